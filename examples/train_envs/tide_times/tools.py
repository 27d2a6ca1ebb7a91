"""Tide predictions for two stations over two days."""

PLACES = {"port ellery": ("TS-1042", 2.1), "saltmarsh quay": ("TS-2217", 0.6), "gull point": ("TS-1042", 5.4)}
STATIONS = {"TS-1042": "Ellery Harbour Entrance", "TS-2217": "Saltmarsh Creek Mouth"}
TIDES = {
    ("TS-1042", "2025-05-10"): [("high", "06:14", 4.8), ("low", "12:27", 0.9), ("high", "18:39", 4.6)],
    ("TS-1042", "2025-05-11"): [("low", "00:41", 1.1), ("high", "06:58", 4.7), ("low", "13:12", 1.0), ("high", "19:25", 4.5)],
    ("TS-2217", "2025-05-10"): [("low", "00:48", 0.6), ("high", "07:02", 3.1), ("low", "13:20", 0.5), ("high", "19:33", 3.0)],
    ("TS-2217", "2025-05-11"): [("low", "01:36", 0.7), ("high", "07:49", 3.0), ("low", "14:05", 0.6), ("high", "20:18", 2.9)],
}


def find_tide_station(place: str) -> str:
    """The station used for a place, with its distance."""
    hit = PLACES.get(place.strip().lower())
    if hit is None:
        return f"No tide station near {place!r}. Places: Gull Point, Port Ellery, Saltmarsh Quay."
    sid, km = hit
    return f"{place.strip()}: use station {sid} ({STATIONS[sid]}), {km} km away"


def tide_table(station_id: str, date: str) -> str:
    """The day's high and low waters (local time, metres above chart datum)."""
    if station_id not in STATIONS:
        return f"Unknown station {station_id}. Use find_tide_station to get a station id."
    rows = TIDES.get((station_id, date))
    if rows is None:
        return f"No predictions for {station_id} on {date}."
    return f"{STATIONS[station_id]} ({station_id}) {date}: " + "; ".join(f"{kind} {t} {h} m" for kind, t, h in rows)
