"""Route, then the day's first sailing, then its ship (en, multi_hop with three dependent calls)."""


FIELDS = {
    "domain": "ferries",
    "language": "en",
    "task": {
        "question": "Which ship runs the first ferry from Kelmarsh to Brannock on 21 June 2025?",
        "answer": "MV Corran Star",
        "scenario": "multi_hop",
    },
    "subtasks": [
        {"id": "route", "question": "Which ferry route connects Kelmarsh and Brannock?", "answer": "RT-031",
         "golden_call": {"tool": "find_route", "arguments": {"from_port": "Kelmarsh", "to_port": "Brannock"}}},
        {"id": "sailing", "question": "Which is the first sailing of route RT-031 on 2025-06-21?", "answer": "S-5521",
         "depends_on": ["route"], "golden_call": {"tool": "route_timetable", "arguments": {"route_id": "RT-031", "date": "2025-06-21"}}},
        {"id": "ship", "question": "Which vessel operates sailing S-5521?", "answer": "MV Corran Star", "depends_on": ["sailing"],
         "golden_call": {"tool": "sailing_detail", "arguments": {"sailing_id": "S-5521"}}},
    ],
    "tools": [
        {"name": "find_route", "description": "The ferry route between two ports: route id, operator, crossing time.",
         "input_schema": {"type": "object",
                          "properties": {"from_port": {"type": "string"}, "to_port": {"type": "string"}},
                          "required": ["from_port", "to_port"]}},
        {"name": "route_timetable", "description": "Sailings of a route on a date (sailing id and departure time).",
         "input_schema": {"type": "object",
                          "properties": {"route_id": {"type": "string", "pattern": "^RT-[0-9]{3}$"},
                                         "date": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"}},
                          "required": ["route_id", "date"]}},
        {"name": "sailing_detail", "description": "Departure, arrival, vessel and car-deck space of one sailing.",
         "input_schema": {"type": "object", "properties": {"sailing_id": {"type": "string", "pattern": "^S-[0-9]{4}$"}},
                          "required": ["sailing_id"]}},
    ],
}
