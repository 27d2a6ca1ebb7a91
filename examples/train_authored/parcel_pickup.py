"""Track a parcel to its pickup point, then look up the point's address (en, multi_hop)."""


FIELDS = {
    "domain": "package tracking",
    "language": "en",
    "task": {
        "question": "My parcel PX7730418852 says it's waiting at a pickup point. Where do I go to collect it?",
        "answer": "Corner Mart, 14 Tanner Lane, Bristol BS3 4QT",
        "scenario": "multi_hop",
    },
    "subtasks": [
        {"id": "point", "question": "At which pickup point is parcel PX7730418852 waiting?", "answer": "PP-2291",
         "golden_call": {"tool": "track_shipment", "arguments": {"tracking_number": "PX7730418852"}}},
        {"id": "address", "question": "What is the street address of pickup point PP-2291?", "answer": "14 Tanner Lane",
         "depends_on": ["point"], "golden_call": {"tool": "pickup_point", "arguments": {"point_id": "PP-2291"}}},
    ],
    "tools": [
        {"name": "track_shipment", "description": "Status and scan history of a parcel by tracking number.",
         "input_schema": {"type": "object",
                          "properties": {"tracking_number": {"type": "string", "pattern": "^PX[0-9]{10}$"}},
                          "required": ["tracking_number"]}},
        {"name": "pickup_point", "description": "Name, address and opening hours of a parcel pickup point.",
         "input_schema": {"type": "object", "properties": {"point_id": {"type": "string", "pattern": "^PP-[0-9]{4}$"}},
                          "required": ["point_id"]}},
    ],
}
