"""An online shop's order and catalogue tables."""

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
