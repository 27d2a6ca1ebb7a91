"""Free tables of two restaurants; bookings made in a session take the table."""

import hashlib

# (restaurant, date) -> [(seats, time)]
FREE = {
    ("saffron wharf", "2025-10-11"): [(2, "17:30"), (4, "18:30"), (6, "19:15"), (4, "20:45")],
    ("saffron wharf", "2025-10-12"): [(4, "17:45"), (2, "19:00"), (8, "21:00")],
    ("the copper kettle", "2025-10-11"): [(4, "19:30")],
}
BOOKED = {}


def _times(restaurant: str, date: str, party_size: int) -> list[str]:
    taken = {(t, s) for (r, d, t, s) in BOOKED.values() if (r, d) == (restaurant, date)}
    return sorted(t for s, t in FREE.get((restaurant, date), []) if s >= party_size and (t, s) not in taken)


def find_tables(restaurant: str, date: str, party_size: int) -> str:
    """Free times for the party, earliest first."""
    key = restaurant.strip().lower()
    if not any(r == key for r, _ in FREE):
        return f"Unknown restaurant {restaurant!r}. Restaurants: Saffron Wharf, The Copper Kettle."
    times = _times(key, date, party_size)
    if not times:
        return f"No free tables for {party_size} at {restaurant.strip()} on {date}."
    return f"{restaurant.strip()} on {date}, party of {party_size}: free at {', '.join(times)}"


def book_table(restaurant: str, date: str, time: str, party_size: int, name: str) -> str:
    """Book the smallest free table that fits the party at that time."""
    key = restaurant.strip().lower()
    tables = sorted(s for s, t in FREE.get((key, date), []) if t == time and s >= party_size)
    if time not in _times(key, date, party_size) or not tables:
        return f"No free table for {party_size} at {restaurant.strip()} on {date} at {time}; use find_tables."
    ref = "SW-" + hashlib.sha256("|".join([key, date, time, str(party_size), name]).encode()).hexdigest()[:6].upper()
    BOOKED[ref] = (key, date, time, tables[0])
    return f"Booked a table for {party_size} at {restaurant.strip()} on {date} at {time} for {name}. Reference {ref}."
