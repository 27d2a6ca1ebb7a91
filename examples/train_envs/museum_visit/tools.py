"""Visitor information for three city museums."""

MUSEUMS = {
    "aldergate clock museum": {
        "name": "Aldergate Clock Museum", "address": "12 Cog Lane",
        "hours": "Tue-Sat 10:00-18:00, Sun 11:00-16:30, closed Mon",
        "tickets": "adult GBP 9.00, concession GBP 6.00, under-16 free",
        "exhibitions": ["Marine Chronometers", "The Astronomical Clock Workshop"],
    },
    "verrin textile hall": {
        "name": "Verrin Textile Hall", "address": "3 Weavers Yard",
        "hours": "daily 09:30-17:00, Thu until 20:00",
        "tickets": "adult GBP 12.50, concession GBP 8.00, family GBP 30.00",
        "exhibitions": ["Indigo Routes", "Looms of the Industrial North"],
    },
    "harrowby natural history rooms": {
        "name": "Harrowby Natural History Rooms", "address": "Park Terrace",
        "hours": "Wed-Mon 10:00-17:30, closed Tue",
        "tickets": "free entry, donations welcome",
        "exhibitions": ["Fossils of the Coast"],
    },
}


def museum_info(museum: str, include_exhibitions: bool = False) -> str:
    """Hours, tickets and address of one museum."""
    m = MUSEUMS.get(museum.strip().lower())
    if m is None:
        return f"Unknown museum {museum!r}. Museums: {', '.join(v['name'] for v in MUSEUMS.values())}."
    text = f"{m['name']}, {m['address']}. Hours: {m['hours']}. Tickets: {m['tickets']}."
    if include_exhibitions:
        text += " Now showing: " + "; ".join(m["exhibitions"]) + "."
    return text
