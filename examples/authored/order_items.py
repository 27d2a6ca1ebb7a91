"""Two orders, each resolved to a product (en, parallel_multi_hop)."""


_ORDER = {"type": "object", "properties": {"order_id": {"type": "string", "pattern": r"^#?\d+$"}}, "required": ["order_id"]}
_SKU = {"type": "object", "properties": {"sku": {"type": "string", "pattern": r"^[A-Z]{2}-\d{3}$"}}, "required": ["sku"]}

FIELDS = {
    "domain": "e-commerce",
    "language": "en",
    "task": {
        "question": "Which products did I buy in orders 1042 and 1057?",
        "answer": "Aurora Desk Lamp (order 1042) and Birchwood Cutting Board (order 1057)",
        "scenario": "parallel_multi_hop",
    },
    "subtasks": [
        {"id": "sku_a", "question": "Which SKU is in order 1042?", "answer": "WX-330",
         "golden_call": {"tool": "get_order", "arguments": {"order_id": "1042"}}},
        {"id": "name_a", "question": "What product is SKU WX-330?", "answer": "Aurora Desk Lamp",
         "depends_on": ["sku_a"], "golden_call": {"tool": "get_product", "arguments": {"sku": "WX-330"}}},
        {"id": "sku_b", "question": "Which SKU is in order 1057?", "answer": "KT-118",
         "golden_call": {"tool": "get_order", "arguments": {"order_id": "1057"}}},
        {"id": "name_b", "question": "What product is SKU KT-118?", "answer": "Birchwood Cutting Board",
         "depends_on": ["sku_b"], "golden_call": {"tool": "get_product", "arguments": {"sku": "KT-118"}}},
    ],
    "tools": [
        {"name": "get_order", "description": "Look up an order by its number.", "input_schema": _ORDER},
        {"name": "get_product", "description": "Look up a catalogue product by SKU.", "input_schema": _SKU},
    ],
}
