"""Two orders, each resolved to a product (en, parallel_multi_hop)."""

CODE = '''"""An online shop's order and catalogue tables."""

ORDERS = {
    "1042": {"placed": "2025-05-02", "sku": "WX-330", "quantity": 2, "status": "delivered"},
    "1043": {"placed": "2025-05-02", "sku": "HB-071", "quantity": 1, "status": "shipped"},
    "1057": {"placed": "2025-05-06", "sku": "KT-118", "quantity": 1, "status": "delivered"},
    "1058": {"placed": "2025-05-07", "sku": "WX-331", "quantity": 3, "status": "processing"},
}
PRODUCTS = {
    "WX-330": ("Aurora Desk Lamp", 48.90),
    "WX-331": ("Aurora Floor Lamp", 129.00),
    "HB-071": ("Linen Throw Pillow", 22.50),
    "KT-118": ("Birchwood Cutting Board", 35.75),
}


def get_order(order_id: str) -> dict:
    """An order's date, item SKU, quantity and status."""
    order = ORDERS.get(order_id.strip().lstrip("#"))
    if order is None:
        return {"error": f"order {order_id} not found"}
    return {"order_id": order_id, **order}


def get_product(sku: str) -> str:
    """Name and unit price of a catalogue item."""
    item = PRODUCTS.get(sku.strip().upper())
    if item is None:
        return f"No product with SKU {sku}."
    name, price = item
    return f"{sku.upper()}: {name}, USD {price:.2f}"
'''

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
