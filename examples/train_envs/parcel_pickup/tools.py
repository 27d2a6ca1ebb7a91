"""A parcel carrier's tracking scans and its network of pickup points."""

PARCELS = {
    "PX7730418852": [("2025-04-07 18:02", "collected from sender, Leeds"), ("2025-04-08 04:40", "at Bristol depot"),
                     ("2025-04-08 11:15", "delivery attempted, no one home"),
                     ("2025-04-08 15:30", "awaiting collection at pickup point PP-2291 until 2025-04-15")],
    "PX7730418853": [("2025-04-07 18:05", "collected from sender, Leeds"), ("2025-04-08 10:52", "delivered, signed by R. Amin")],
    "PX7730419001": [("2025-04-08 09:00", "label created, waiting for the parcel")],
}
POINTS = {
    "PP-2291": ("Corner Mart", "14 Tanner Lane, Bristol BS3 4QT", "Mon-Sat 08:00-21:00, Sun 10:00-16:00"),
    "PP-2292": ("Bedminster Post Office", "201 North Street, Bristol BS3 1JQ", "Mon-Fri 09:00-17:30, Sat 09:00-12:30"),
    "PP-1187": ("Locker at Temple Meads", "Station Approach, Bristol BS1 6QF", "24 hours"),
}


def track_shipment(tracking_number: str) -> str:
    """Latest status first, then the full scan history."""
    scans = PARCELS.get(tracking_number.strip().upper())
    if scans is None:
        return f"No parcel with tracking number {tracking_number}. Check the number on your shipping notice."
    history = "; ".join(f"{when} {what}" for when, what in scans)
    return f"{tracking_number.upper()}: {scans[-1][1]}. History: {history}"


def pickup_point(point_id: str) -> str:
    """Where a pickup point is and when it is open."""
    point = POINTS.get(point_id.strip().upper())
    if point is None:
        return f"Unknown pickup point {point_id}."
    name, address, hours = point
    return f"{point_id.upper()} {name}, {address}. Open {hours}. Bring photo ID and the tracking number."
