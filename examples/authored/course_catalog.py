"""University course catalogue (en, single_hop)."""


FIELDS = {
    "domain": "education",
    "language": "en",
    "task": {"question": "Who teaches CS231 this autumn?", "answer": "Dr. Helena Voss", "scenario": "single_hop"},
    "subtasks": [
        {"id": "instructor", "question": "Who is the instructor of CS231?", "answer": "Dr. Helena Voss",
         "golden_call": {"tool": "course_info", "arguments": {"code": "CS231"}}},
    ],
    "tools": [
        {"name": "course_info", "description": "Catalogue entry of a course: title, instructor, room, credits.",
         "input_schema": {"type": "object", "properties": {"code": {"type": "string", "description": "e.g. CS231"}},
                          "required": ["code"]}},
    ],
}
