"""A bike-share network snapshot (last feed update 2025-05-03 08:15)."""

STATIONS = {
    "marrow park": ("Marrow Park", 114, "Old Town", 9, 6, 5),
    "quayside steps": ("Quayside Steps", 131, "Docklands", 3, 11, 1),
    "tannery yard": ("Tannery Yard", 118, "Old Town", 0, 0, 20),
    "signal hill": ("Signal Hill", 140, "Docklands", 7, 4, 9),
}


def station_status(station: str) -> str:
    """Bikes available at one station."""
    s = STATIONS.get(station.strip().lower())
    if s is None:
        return f"Unknown station {station!r}. Stations: {', '.join(v[0] for v in STATIONS.values())}."
    name, number, district, classic, electric, docks = s
    return (f"{name} (station {number}, {district}): {classic} classic bikes, {electric} e-bikes, "
            f"{docks} free dock{'' if docks == 1 else 's'}; updated 2025-05-03 08:15")


def find_stations(district: str) -> str:
    """Station names in a district."""
    names = [v[0] for v in STATIONS.values() if v[2].lower() == district.strip().lower()]
    return ", ".join(names) if names else f"No stations in {district!r}. Districts: Old Town, Docklands."
