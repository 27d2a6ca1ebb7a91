"""Find a flight, then its departure gate (en, multi_hop)."""


_IATA = {"type": "string", "pattern": "^[A-Z]{3}$"}

FIELDS = {
    "domain": "travel",
    "language": "en",
    "task": {
        "question": "I'm taking the morning flight from Zurich (ZRH) to Porto (OPO) on 2025-09-03. Which gate does it leave from?",
        "answer": "A52",
        "scenario": "multi_hop",
    },
    "subtasks": [
        {
            "id": "flight",
            "question": "Which flight leaves ZRH for OPO in the morning of 2025-09-03?",
            "answer": "LX2084",
            "golden_call": {
                "tool": "find_flights",
                "arguments": {"origin": "ZRH", "destination": "OPO", "date": "2025-09-03"},
            },
        },
        {
            "id": "gate",
            "question": "From which gate does LX2084 depart?",
            "answer": "A52",
            "depends_on": ["flight"],
            "golden_call": {"tool": "get_flight_status", "arguments": {"flight_number": "LX2084"}},
        },
    ],
    "tools": [
        {
            "name": "find_flights",
            "description": "List flights between two airports on a date, with departure times.",
            "input_schema": {
                "type": "object",
                "properties": {"origin": _IATA, "destination": _IATA, "date": {"type": "string", "format": "date"}},
                "required": ["origin", "destination", "date"],
            },
        },
        {
            "name": "get_flight_status",
            "description": "Gate and status of a flight by flight number.",
            "input_schema": {
                "type": "object",
                "properties": {"flight_number": {"type": "string", "description": "e.g. LX2084"}},
                "required": ["flight_number"],
            },
        },
    ],
}
