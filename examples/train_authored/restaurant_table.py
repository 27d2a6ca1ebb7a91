"""Find the earliest free table, then book it (en, multi_hop; the booking lives in the session)."""

import hashlib


_REF = "SW-" + hashlib.sha256(b"saffron wharf|2025-10-11|18:30|4|Jonas Berg").hexdigest()[:6].upper()

FIELDS = {
    "domain": "restaurants",
    "language": "en",
    "task": {
        "question": "Book the earliest free table for 4 at Saffron Wharf on 11 October 2025 under the name Jonas Berg. "
        "What's the booking reference?",
        "answer": _REF,
        "scenario": "multi_hop",
    },
    "subtasks": [
        {"id": "slot", "question": "What is the earliest free time for a party of 4 at Saffron Wharf on 2025-10-11?",
         "answer": "18:30",
         "golden_call": {"tool": "find_tables",
                         "arguments": {"restaurant": "Saffron Wharf", "date": "2025-10-11", "party_size": 4}}},
        {"id": "book", "question": "Book that table for Jonas Berg; what is the reference?", "answer": _REF,
         "depends_on": ["slot"],
         "golden_call": {"tool": "book_table",
                         "arguments": {"restaurant": "Saffron Wharf", "date": "2025-10-11", "time": "18:30",
                                       "party_size": 4, "name": "Jonas Berg"}}},
    ],
    "tools": [
        {"name": "find_tables", "description": "Free table times at a restaurant on a date for a party size.",
         "input_schema": {"type": "object",
                          "properties": {"restaurant": {"type": "string"},
                                         "date": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"},
                                         "party_size": {"type": "integer", "minimum": 1, "maximum": 12}},
                          "required": ["restaurant", "date", "party_size"]}},
        {"name": "book_table", "description": "Book a free table; returns the booking reference.",
         "input_schema": {"type": "object",
                          "properties": {"restaurant": {"type": "string"},
                                         "date": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"},
                                         "time": {"type": "string", "pattern": "^[0-2][0-9]:[0-5][0-9]$"},
                                         "party_size": {"type": "integer", "minimum": 1, "maximum": 12},
                                         "name": {"type": "string", "minLength": 1}},
                          "required": ["restaurant", "date", "time", "party_size", "name"]}},
    ],
}
