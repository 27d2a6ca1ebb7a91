"""University course catalogue (en, single_hop)."""

CODE = '''"""Autumn-term course catalogue."""

COURSES = {
    "CS231": {"title": "Computer Vision", "instructor": "Dr. Helena Voss", "room": "Gates B03", "credits": 4},
    "CS229": {"title": "Machine Learning", "instructor": "Prof. Arun Mehta", "room": "Nvidia Aud.", "credits": 4},
    "HIST104": {"title": "The Hanseatic League", "instructor": "Dr. Jonas Pfeil", "room": "Green 212", "credits": 3},
}


def course_info(code: str) -> dict:
    """Title, instructor, room and credits of a course by its code."""
    course = COURSES.get(code.replace(" ", "").upper())
    if course is None:
        return {"error": f"no course {code}"}
    return {"code": code.upper(), **course}
'''

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
