"""Stock levels and opening hours of a few community pharmacies."""

NEARBY = {"LS6 2QT": [("PH-203", 0.7), ("PH-218", 0.4), ("PH-219", 1.6)], "LS2 9JT": [("PH-110", 0.2), ("PH-203", 1.1)]}
PHARMACIES = {
    "PH-110": ("Parkinson Court Pharmacy", "Mon-Fri 09:00-17:00, Sat closed, Sun closed"),
    "PH-203": ("Hyde Park Pharmacy", "Mon-Fri 08:30-18:30, Sat 09:00-13:00, Sun closed"),
    "PH-218": ("Headingley Chemist", "Mon-Fri 08:30-19:00, Sat 09:00-17:30, Sun closed"),
    "PH-219": ("Kirkstall Late Pharmacy", "Mon-Sun 07:00-23:00"),
}
STOCK = {
    "salbutamol inhaler": {"PH-218": 7, "PH-110": 3},
    "cetirizine 10 mg": {"PH-203": 24, "PH-218": 12, "PH-219": 30},
    "ibuprofen 200 mg": {"PH-110": 40, "PH-203": 15, "PH-218": 60, "PH-219": 8},
}


def stock_search(medicine: str, postcode: str) -> str:
    """Nearby pharmacies, nearest first, with the medicine's stock."""
    stock = STOCK.get(medicine.strip().lower())
    if stock is None:
        return f"Unknown medicine {medicine!r}. Tracked medicines: {', '.join(sorted(STOCK))}."
    nearby = NEARBY.get(postcode.strip().upper())
    if nearby is None:
        return f"No pharmacies on file near {postcode}. Covered postcodes: {', '.join(sorted(NEARBY))}."
    lines = []
    for pid, miles in sorted(nearby, key=lambda p: p[1]):
        n = stock.get(pid, 0)
        lines.append(f"{PHARMACIES[pid][0]} {pid}, {miles} mi: {f'{n} in stock' if n else 'out of stock'}")
    return f"{medicine.strip()} near {postcode.upper()}:\n" + "\n".join(lines)


def opening_hours(pharmacy_id: str) -> str:
    """Opening hours by day."""
    p = PHARMACIES.get(pharmacy_id.strip().upper())
    if p is None:
        return f"Unknown pharmacy {pharmacy_id}."
    return f"{p[0]} ({pharmacy_id.upper()}): {p[1]}"
