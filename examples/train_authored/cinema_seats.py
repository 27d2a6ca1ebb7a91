"""Find the evening showing of a film, then its free seats (en, multi_hop)."""


FIELDS = {
    "domain": "cinema",
    "language": "en",
    "task": {
        "question": "How many seats are still free for the evening showing of Paper Lanterns at the Roxy Lumen on 19 July 2025?",
        "answer": "37 of 142 seats free (19:45, Screen 3)",
        "scenario": "multi_hop",
    },
    "subtasks": [
        {"id": "session", "question": "Which session is the evening showing of Paper Lanterns at the Roxy Lumen on 2025-07-19?",
         "answer": "RL-0719-04",
         "golden_call": {"tool": "list_showtimes", "arguments": {"cinema": "Roxy Lumen", "date": "2025-07-19"}}},
        {"id": "seats", "question": "How many seats are free in session RL-0719-04?", "answer": "37 of 142 seats free",
         "depends_on": ["session"], "golden_call": {"tool": "seat_availability", "arguments": {"session_id": "RL-0719-04"}}},
    ],
    "tools": [
        {"name": "list_showtimes", "description": "Sessions at a cinema on a date (session id, start time, film, screen).",
         "input_schema": {"type": "object",
                          "properties": {"cinema": {"type": "string", "description": "e.g. Roxy Lumen"},
                                         "date": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"},
                                         "film": {"type": "string", "description": "Only sessions of this film"}},
                          "required": ["cinema", "date"]}},
        {"name": "seat_availability", "description": "Free and total seats of one session.",
         "input_schema": {"type": "object",
                          "properties": {"session_id": {"type": "string", "pattern": "^[A-Z]{2}-[0-9]{4}-[0-9]{2}$"}},
                          "required": ["session_id"]}},
    ],
}
