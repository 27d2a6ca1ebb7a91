"""Pick the first tram after a time, then read its arrival downstream (en, multi_hop; an enum line)."""


FIELDS = {
    "domain": "public transit",
    "language": "en",
    "task": {
        "question": "I'll catch the first line 7 tram after 8 am at Kestrel Square. What time does it get to Harbourfront?",
        "answer": "08:31",
        "scenario": "multi_hop",
    },
    "subtasks": [
        {"id": "trip", "question": "Which line 7 trip is the first to leave Kestrel Square after 08:00?", "answer": "T7-1104",
         "golden_call": {"tool": "stop_departures", "arguments": {"stop": "Kestrel Square", "line": "7"}}},
        {"id": "arrival", "question": "When does trip T7-1104 reach Harbourfront?", "answer": "08:31", "depends_on": ["trip"],
         "golden_call": {"tool": "trip_stops", "arguments": {"trip_id": "T7-1104"}}},
    ],
    "tools": [
        {"name": "stop_departures", "description": "Weekday morning departures of a tram line from a stop (trip id and time).",
         "input_schema": {"type": "object",
                          "properties": {"stop": {"type": "string"}, "line": {"type": "string", "enum": ["3", "7", "12"]}},
                          "required": ["stop", "line"]}},
        {"name": "trip_stops", "description": "Every stop of one tram trip with its scheduled time.",
         "input_schema": {"type": "object", "properties": {"trip_id": {"type": "string", "pattern": "^T[0-9]{1,2}-[0-9]{4}$"}},
                          "required": ["trip_id"]}},
    ],
}
