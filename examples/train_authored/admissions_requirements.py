"""A university programme's English-language requirement (en, single_hop; an unneeded listing tool with an enum)."""


FIELDS = {
    "domain": "university admissions",
    "language": "en",
    "task": {
        "question": "What IELTS score do I need to get into the MSc Data Science at Northmere University?",
        "answer": "IELTS 7.0 overall with no band below 6.5",
        "scenario": "single_hop",
    },
    "subtasks": [
        {"id": "ielts", "question": "What English-language score does Northmere's MSc Data Science require?",
         "answer": "IELTS 7.0 overall with no band below 6.5",
         "golden_call": {"tool": "program_requirements",
                         "arguments": {"university": "Northmere University", "program": "MSc Data Science"}}},
    ],
    "tools": [
        {"name": "program_requirements", "description": "Entry requirements, deadline and fees of a university programme.",
         "input_schema": {"type": "object",
                          "properties": {"university": {"type": "string"}, "program": {"type": "string", "description": "e.g. MSc Data Science"}},
                          "required": ["university", "program"]}},
        {"name": "list_programs", "description": "Programmes a university offers, optionally only at one level.",
         "input_schema": {"type": "object",
                          "properties": {"university": {"type": "string"},
                                         "level": {"type": "string", "enum": ["undergraduate", "postgraduate"]}},
                          "required": ["university"]}},
    ],
}
