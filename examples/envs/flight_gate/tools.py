"""A small departures board."""

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
    return "\n".join(f"{f['number']} departs {f['departs']}" for f in sorted(rows, key=lambda f: f["departs"]))


def get_flight_status(flight_number: str) -> str:
    """Gate and status of a flight."""
    for f in FLIGHTS:
        if f["number"] == flight_number.strip().upper():
            return (f"{f['number']} {f['origin']}->{f['destination']} {f['date']} {f['departs']}: "
                    f"gate {f['gate']}, {f['status']}")
    return f"Unknown flight {flight_number}."
