"""Stateful booking: book a room, then read the booking back (en, multi_hop).

`book_room` stores the booking in session state; `get_booking` reads it, so the second
golden call only works after the first in the same session.
"""

import hashlib


_CODE_ANSWER = "HB-" + hashlib.sha256(b"harbor-view|suite|2025-09-14|3|Ana Silva").hexdigest()[:6].upper()

FIELDS = {
    "domain": "travel",
    "language": "en",
    "task": {
        "question": "Book a suite at Harbor View Inn (harbor-view) for Ana Silva, checking in 2025-09-14 for 3 nights. "
        "What is the total price of the booking?",
        "answer": "CAD 867.00",
        "scenario": "multi_hop",
    },
    "subtasks": [
        {
            "id": "book",
            "question": "Book the suite; what is the confirmation code?",
            "answer": _CODE_ANSWER,
            "golden_call": {
                "tool": "book_room",
                "arguments": {"hotel": "harbor-view", "room_type": "suite", "check_in": "2025-09-14",
                              "nights": 3, "guest": "Ana Silva"},
            },
        },
        {
            "id": "total",
            "question": f"What is the total price of booking {_CODE_ANSWER}?",
            "answer": "CAD 867.00",
            "depends_on": ["book"],
            "golden_call": {"tool": "get_booking", "arguments": {"confirmation": _CODE_ANSWER}},
        },
    ],
    "tools": [
        {
            "name": "book_room",
            "description": "Book a hotel room for a guest; returns a confirmation code.",
            "input_schema": {
                "type": "object",
                "properties": {
                    "hotel": {"type": "string", "description": "Hotel id, e.g. harbor-view"},
                    "room_type": {"type": "string", "enum": ["single", "double", "suite"]},
                    "check_in": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"},
                    "nights": {"type": "integer", "minimum": 1, "maximum": 30},
                    "guest": {"type": "string", "minLength": 1},
                },
                "required": ["hotel", "room_type", "check_in", "nights", "guest"],
            },
        },
        {
            "name": "get_booking",
            "description": "Show a booking made earlier in this session by its confirmation code.",
            "input_schema": {
                "type": "object",
                "properties": {"confirmation": {"type": "string"}},
                "required": ["confirmation"],
            },
        },
    ],
}
