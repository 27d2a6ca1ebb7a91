"""Find a flight, then its departure gate (en, multi_hop)."""

CODE = '''"""A small departures board."""

FLIGHTS = [
    {"number": "LX2084", "origin": "ZRH", "destination": "OPO", "date": "2025-09-03", "departs": "07:40",
     "gate": "A52", "status": "on time"},
    {"number": "TP945", "origin": "ZRH", "destination": "OPO", "date": "2025-09-03", "departs": "18:15",
     "gate": "E31", "status": "delayed 25 min"},
    {"number": "LX2086", "origin": "ZRH", "destination": "OPO", "date": "2025-09-04", "departs": "07:55",
     "gate": "A47", "status": "on time"},
    {"number": "KL1958", "origin": "AMS", "destination": "OPO", "date": "2025-09-03", "departs": "09:20",
     "gate": "D6", "status": "boarding"},
]


def find_flights(origin: str, destination: str, date: str) -> str:
    """Flights between two airports (IATA codes) on a date."""
    rows = [f for f in FLIGHTS if (f["origin"], f["destination"], f["date"]) == (origin, destination, date)]
    if not rows:
        return f"No flights from {origin} to {destination} on {date}."
    return "\\n".join(f"{f['number']} departs {f['departs']}" for f in sorted(rows, key=lambda f: f["departs"]))


def get_flight_status(flight_number: str) -> str:
    """Gate and status of a flight."""
    for f in FLIGHTS:
        if f["number"] == flight_number.strip().upper():
            return (f"{f['number']} {f['origin']}->{f['destination']} {f['date']} {f['departs']}: "
                    f"gate {f['gate']}, {f['status']}")
    return f"Unknown flight {flight_number}."
'''

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
