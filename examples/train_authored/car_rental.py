"""Search rental offers, then read the cheapest one's terms (en, multi_hop; stateful quotes, enums, an unneeded tool).

`search_cars` stores each offer as a quote in the session; `get_quote` reads it back, so the
second golden call only works after the first in the same session.
"""

import hashlib


_QUOTE = "Q-" + hashlib.sha256(b"FAO|2025-08-02|5|compact|Seat Ibiza|Velocar").hexdigest()[:6].upper()

FIELDS = {
    "domain": "car rental",
    "language": "en",
    "task": {
        "question": "I need the cheapest compact car at Faro Airport for 5 days from 2 August 2025. How much is the security deposit?",
        "answer": "EUR 600",
        "scenario": "multi_hop",
    },
    "subtasks": [
        {"id": "offer", "question": "Which quote is the cheapest compact car at FAO for 5 days from 2025-08-02?", "answer": _QUOTE,
         "golden_call": {"tool": "search_cars", "arguments": {"location": "FAO", "pickup_date": "2025-08-02", "days": 5,
                                                              "category": "compact"}}},
        {"id": "deposit", "question": f"What security deposit does quote {_QUOTE} require?", "answer": "EUR 600",
         "depends_on": ["offer"], "golden_call": {"tool": "get_quote", "arguments": {"quote_id": _QUOTE}}},
    ],
    "tools": [
        {"name": "list_locations", "description": "Rental desks: location code, name and opening hours.",
         "input_schema": {"type": "object", "properties": {}}},
        {"name": "search_cars", "description": "Rental offers at a location, cheapest first; each offer has a quote id.",
         "input_schema": {"type": "object",
                          "properties": {"location": {"type": "string", "pattern": "^[A-Z]{3}$", "description": "Location code, e.g. FAO"},
                                         "pickup_date": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"},
                                         "days": {"type": "integer", "minimum": 1, "maximum": 30},
                                         "category": {"type": "string", "enum": ["economy", "compact", "suv", "van"]}},
                          "required": ["location", "pickup_date", "days", "category"]}},
        {"name": "get_quote", "description": "Full terms of a quote from search_cars: price, deposit, fuel and mileage policy.",
         "input_schema": {"type": "object", "properties": {"quote_id": {"type": "string"}}, "required": ["quote_id"]}},
    ],
}
