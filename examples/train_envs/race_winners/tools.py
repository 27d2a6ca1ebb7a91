"""Results and drivers of a single-seater racing series."""

RESULTS = {
    ("valdora grand prix", 2024): (["Luca Ferrand", "Tomas Greer", "Ines Duarte"], "Ines Duarte"),
    ("kestonbury grand prix", 2024): (["Aiko Mori", "Ravi Sethi", "Tomas Greer"], "Ravi Sethi"),
    ("valdora grand prix", 2023): (["Tomas Greer", "Ravi Sethi", "Ines Duarte"], "Tomas Greer"),
}
DRIVERS = {
    "luca ferrand": ("Luca Ferrand", "Orison Racing", "Belgian", 27),
    "tomas greer": ("Tomas Greer", "Hallam GP", "Irish", 8),
    "ines duarte": ("Ines Duarte", "Hallam GP", "Portuguese", 14),
    "aiko mori": ("Aiko Mori", "Kaito Velocity", "Japanese", 5),
    "ravi sethi": ("Ravi Sethi", "Orison Racing", "Indian", 61),
}


def race_result(race: str, season: int) -> str:
    """Top three and the fastest lap."""
    key = race.strip().lower()
    if not any(r == key for r, _ in RESULTS):
        races = sorted({r.title() for r, _ in RESULTS})
        return f"Unknown race {race!r}. Races: {', '.join(races)}."
    result = RESULTS.get((key, season))
    if result is None:
        return f"No result for the {season} {race.strip()}."
    podium, fastest = result
    places = ", ".join(f"{i}. {name}" for i, name in enumerate(podium, 1))
    return f"{season} {race.strip()}: {places}; fastest lap {fastest}"


def driver_profile(driver: str) -> str:
    """Team, nationality and number."""
    d = DRIVERS.get(driver.strip().lower())
    if d is None:
        return f"No driver named {driver!r}."
    name, team, nationality, number = d
    return f"{name}: drives for {team}, {nationality}, car #{number}"
