"""E-bikes at two bike-share stations (en, parallel_single_hop; an unneeded station finder)."""


FIELDS = {
    "domain": "bike sharing",
    "language": "en",
    "task": {
        "question": "How many e-bikes can I pick up right now at the Marrow Park and Quayside Steps bike stations?",
        "answer": "Marrow Park has 6 e-bikes and Quayside Steps has 11 e-bikes",
        "scenario": "parallel_single_hop",
    },
    "subtasks": [
        {"id": "marrow", "question": "How many e-bikes are docked at Marrow Park?", "answer": "6 e-bikes",
         "golden_call": {"tool": "station_status", "arguments": {"station": "Marrow Park"}}},
        {"id": "quayside", "question": "How many e-bikes are docked at Quayside Steps?", "answer": "11 e-bikes",
         "golden_call": {"tool": "station_status", "arguments": {"station": "Quayside Steps"}}},
    ],
    "tools": [
        {"name": "station_status", "description": "Bikes, e-bikes and free docks at a bike-share station.",
         "input_schema": {"type": "object", "properties": {"station": {"type": "string"}}, "required": ["station"]}},
        {"name": "find_stations", "description": "Bike-share stations in a district.",
         "input_schema": {"type": "object", "properties": {"district": {"type": "string"}}, "required": ["district"]}},
    ],
}
