"""A city tram timetable (weekday mornings); each trip runs its line's stops at fixed offsets."""

LINES = {
    "3": [("Kestrel Square", 0), ("University", 6), ("Westgate", 14)],
    "7": [("Kestrel Square", 0), ("Mill Road", 5), ("Civic Centre", 11), ("Harbourfront", 19)],
    "12": [("Civic Centre", 0), ("Harbourfront", 8), ("Ferry Terminal", 13)],
}
TRIPS = {
    "T3-2201": ("3", "07:55"), "T3-2202": ("3", "08:10"), "T3-2203": ("3", "08:25"),
    "T7-1103": ("7", "07:48"), "T7-1104": ("7", "08:12"), "T7-1105": ("7", "08:36"),
    "T12-0301": ("12", "08:05"), "T12-0302": ("12", "08:35"),
}


def _plus(clock: str, minutes: int) -> str:
    h, m = map(int, clock.split(":"))
    total = h * 60 + m + minutes
    return f"{total // 60:02d}:{total % 60:02d}"


def stop_departures(stop: str, line: str) -> str:
    """Trips of `line` leaving `stop`, in time order."""
    offsets = dict(LINES[line])
    name = next((s for s in offsets if s.lower() == stop.strip().lower()), None)
    if name is None:
        return f"Line {line} does not call at {stop!r}. Its stops: {', '.join(s for s, _ in LINES[line])}."
    rows = sorted((_plus(start, offsets[name]), trip) for trip, (ln, start) in TRIPS.items() if ln == line)
    return f"Line {line} departures from {name}:\n" + "\n".join(f"{t} trip {trip}" for t, trip in rows)


def trip_stops(trip_id: str) -> str:
    """The stops and times of one trip."""
    trip = TRIPS.get(trip_id.strip().upper())
    if trip is None:
        return f"No trip {trip_id}. Use stop_departures to find trip ids."
    line, start = trip
    calls = ", ".join(f"{stop} {_plus(start, offset)}" for stop, offset in LINES[line])
    return f"Trip {trip_id.upper()} (line {line}): {calls}"
