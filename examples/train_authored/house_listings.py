"""Two property listings' asking prices, then a comparison without a tool (en, parallel_single_hop)."""


_LISTING = {"type": "object", "properties": {"listing_id": {"type": "string", "pattern": "^MLS-[0-9]{5}$"}},
            "required": ["listing_id"]}

FIELDS = {
    "domain": "real estate",
    "language": "en",
    "task": {
        "question": "Which of the two flats I saved, MLS-58213 and MLS-58240, has the lower asking price?",
        "answer": "MLS-58240 (GBP 231,500 vs GBP 245,000)",
        "scenario": "parallel_single_hop",
    },
    "subtasks": [
        {"id": "first", "question": "What is the asking price of MLS-58213?", "answer": "GBP 245,000",
         "golden_call": {"tool": "get_listing", "arguments": {"listing_id": "MLS-58213"}}},
        {"id": "second", "question": "What is the asking price of MLS-58240?", "answer": "GBP 231,500",
         "golden_call": {"tool": "get_listing", "arguments": {"listing_id": "MLS-58240"}}},
        {"id": "cheaper", "question": "Which of the two is cheaper?", "answer": "MLS-58240",
         "depends_on": ["first", "second"], "needs_tool": False},
    ],
    "tools": [
        {"name": "get_listing", "description": "Details of a property listing: type, address, asking price, size, energy rating.",
         "input_schema": _LISTING},
        {"name": "search_listings", "description": "Listings in an area, optionally under a maximum price.",
         "input_schema": {"type": "object",
                          "properties": {"area": {"type": "string"}, "max_price": {"type": "integer", "minimum": 0}},
                          "required": ["area"]}},
    ],
}
