"""Two harbours, each resolved to a tide station, then its morning high tide (en, parallel_multi_hop)."""


FIELDS = {
    "domain": "tides",
    "language": "en",
    "task": {
        "question": "What time is the morning high tide on 10 May 2025 at Port Ellery and at Saltmarsh Quay?",
        "answer": "Port Ellery 06:14, Saltmarsh Quay 07:02",
        "scenario": "parallel_multi_hop",
    },
    "subtasks": [
        {"id": "ellery_station", "question": "Which tide station serves Port Ellery?", "answer": "TS-1042",
         "golden_call": {"tool": "find_tide_station", "arguments": {"place": "Port Ellery"}}},
        {"id": "ellery_tide", "question": "When is the morning high tide at TS-1042 on 2025-05-10?", "answer": "06:14",
         "depends_on": ["ellery_station"],
         "golden_call": {"tool": "tide_table", "arguments": {"station_id": "TS-1042", "date": "2025-05-10"}}},
        {"id": "saltmarsh_station", "question": "Which tide station serves Saltmarsh Quay?", "answer": "TS-2217",
         "golden_call": {"tool": "find_tide_station", "arguments": {"place": "Saltmarsh Quay"}}},
        {"id": "saltmarsh_tide", "question": "When is the morning high tide at TS-2217 on 2025-05-10?", "answer": "07:02",
         "depends_on": ["saltmarsh_station"],
         "golden_call": {"tool": "tide_table", "arguments": {"station_id": "TS-2217", "date": "2025-05-10"}}},
    ],
    "tools": [
        {"name": "find_tide_station", "description": "The nearest tide-prediction station to a coastal place.",
         "input_schema": {"type": "object", "properties": {"place": {"type": "string"}}, "required": ["place"]}},
        {"name": "tide_table", "description": "High and low water times and heights at a tide station on a date.",
         "input_schema": {"type": "object",
                          "properties": {"station_id": {"type": "string", "pattern": "^TS-[0-9]{4}$"},
                                         "date": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"}},
                          "required": ["station_id", "date"]}},
    ],
}
