"""A gym's class timetable for one weekday (en, single_hop; an enum day, an unneeded booking tool)."""


_DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

FIELDS = {
    "domain": "fitness",
    "language": "en",
    "task": {
        "question": "Who teaches the Thursday evening spin class at Ironleaf Gym?",
        "answer": "Dara Mensah",
        "scenario": "single_hop",
    },
    "subtasks": [
        {"id": "coach", "question": "Who instructs the spin class at Ironleaf Gym on Thursday evening?", "answer": "Dara Mensah",
         "golden_call": {"tool": "class_timetable", "arguments": {"gym": "Ironleaf Gym", "day": "thursday"}}},
    ],
    "tools": [
        {"name": "class_timetable", "description": "Group classes at a gym on a weekday: time, class, instructor, spaces left.",
         "input_schema": {"type": "object",
                          "properties": {"gym": {"type": "string"}, "day": {"type": "string", "enum": _DAYS}},
                          "required": ["gym", "day"]}},
        {"name": "book_class", "description": "Book a member into a class; returns a booking reference.",
         "input_schema": {"type": "object",
                          "properties": {"gym": {"type": "string"}, "day": {"type": "string", "enum": _DAYS},
                                         "time": {"type": "string", "pattern": "^[0-2][0-9]:[0-5][0-9]$"},
                                         "member_id": {"type": "string", "pattern": "^M[0-9]{6}$"}},
                          "required": ["gym", "day", "time", "member_id"]}},
    ],
}
