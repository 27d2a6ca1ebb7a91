"""Find a pharmacy that stocks a medicine, then its Saturday hours (en, multi_hop)."""


FIELDS = {
    "domain": "pharmacy",
    "language": "en",
    "task": {
        "question": "Which pharmacy near LS6 2QT has salbutamol inhalers in stock, and how late is it open on Saturday?",
        "answer": "Headingley Chemist (PH-218), open Sat 09:00-17:30",
        "scenario": "multi_hop",
    },
    "subtasks": [
        {"id": "pharmacy", "question": "Which pharmacy near LS6 2QT has salbutamol inhalers in stock?", "answer": "PH-218",
         "golden_call": {"tool": "stock_search", "arguments": {"medicine": "salbutamol inhaler", "postcode": "LS6 2QT"}}},
        {"id": "saturday", "question": "What are PH-218's opening hours on Saturday?", "answer": "Sat 09:00-17:30",
         "depends_on": ["pharmacy"], "golden_call": {"tool": "opening_hours", "arguments": {"pharmacy_id": "PH-218"}}},
    ],
    "tools": [
        {"name": "stock_search", "description": "Pharmacies near a postcode and whether each has a medicine in stock.",
         "input_schema": {"type": "object",
                          "properties": {"medicine": {"type": "string"},
                                         "postcode": {"type": "string", "pattern": "^[A-Z]{1,2}[0-9]{1,2} [0-9][A-Z]{2}$"}},
                          "required": ["medicine", "postcode"]}},
        {"name": "opening_hours", "description": "Weekly opening hours of a pharmacy.",
         "input_schema": {"type": "object", "properties": {"pharmacy_id": {"type": "string", "pattern": "^PH-[0-9]{3}$"}},
                          "required": ["pharmacy_id"]}},
    ],
}
