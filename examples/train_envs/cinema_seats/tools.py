"""Two cinemas' programmes and seat maps for a weekend."""

SESSIONS = {
    "RL-0719-01": ("Roxy Lumen", "2025-07-19", "14:10", "Paper Lanterns", "Screen 1", 96, 58),
    "RL-0719-02": ("Roxy Lumen", "2025-07-19", "16:30", "Tidewater", "Screen 2", 120, 71),
    "RL-0719-03": ("Roxy Lumen", "2025-07-19", "17:05", "The Quiet Orchard", "Screen 1", 96, 40),
    "RL-0719-04": ("Roxy Lumen", "2025-07-19", "19:45", "Paper Lanterns", "Screen 3", 142, 37),
    "RL-0719-05": ("Roxy Lumen", "2025-07-19", "21:30", "Tidewater", "Screen 2", 120, 12),
    "RL-0720-01": ("Roxy Lumen", "2025-07-20", "13:00", "Paper Lanterns", "Screen 3", 142, 90),
    "RL-0720-02": ("Roxy Lumen", "2025-07-20", "18:15", "Paper Lanterns", "Screen 1", 96, 23),
    "GO-0719-01": ("Grand Orpheum", "2025-07-19", "20:00", "Paper Lanterns", "Hall A", 310, 144),
}


def list_showtimes(cinema: str, date: str, film: str | None = None) -> str:
    """Sessions of a cinema on a date, in start order."""
    cinemas = sorted({s[0] for s in SESSIONS.values()})
    name = next((c for c in cinemas if c.lower() == cinema.strip().lower()), None)
    if name is None:
        return f"Unknown cinema {cinema!r}. Cinemas: {', '.join(cinemas)}."
    rows = [(s[2], sid, s) for sid, s in SESSIONS.items() if s[0] == name and s[1] == date
            and (film is None or s[3].lower() == film.strip().lower())]
    if not rows:
        return f"No sessions at {name} on {date}."
    return f"{name}, {date}:\n" + "\n".join(f"{start} {s[3]} ({s[4]}) session {sid}" for start, sid, s in sorted(rows))


def seat_availability(session_id: str) -> str:
    """Free seats of a session."""
    s = SESSIONS.get(session_id.strip().upper())
    if s is None:
        return f"No session {session_id}. Use list_showtimes to find session ids."
    cinema, date, start, film, screen, total, free = s
    return f"{session_id.upper()}: {film}, {cinema} {screen}, {date} {start}: {free} of {total} seats free"
