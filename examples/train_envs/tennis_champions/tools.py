"""Finals of a mid-size tennis tournament and a player directory."""

FINALS = {
    ("calder open", 2024, "mens_singles"): ("Jonas Aalto", "Bruno Vieira", "7-6(4) 6-3"),
    ("calder open", 2024, "womens_singles"): ("Ana Kovalenko", "Rosa Iturbe", "6-4 3-6 7-5"),
    ("calder open", 2024, "mens_doubles"): ("Vieira / Lund", "Hart / Osei", "6-2 7-5"),
    ("calder open", 2023, "mens_singles"): ("Bruno Vieira", "Kenji Arai", "6-1 6-4"),
    ("calder open", 2023, "womens_singles"): ("Rosa Iturbe", "Mei Tanaka", "7-5 6-7(2) 6-2"),
}
PLAYERS = {
    "jonas aalto": ("Jonas Aalto", "Finland", 1999, "right-handed", 22),
    "ana kovalenko": ("Ana Kovalenko", "Ukraine", 2001, "right-handed", 14),
    "bruno vieira": ("Bruno Vieira", "Brazil", 1996, "left-handed", 31),
    "rosa iturbe": ("Rosa Iturbe", "Spain", 2000, "right-handed", 19),
    "kenji arai": ("Kenji Arai", "Japan", 1998, "right-handed", 47),
    "mei tanaka": ("Mei Tanaka", "Japan", 2003, "left-handed", 38),
}
LABELS = {"mens_singles": "men's singles", "womens_singles": "women's singles", "mens_doubles": "men's doubles",
          "womens_doubles": "women's doubles"}


def tournament_final(tournament: str, year: int, event: str) -> str:
    """The final of one event of a tournament in a year."""
    key = tournament.strip().lower()
    if not any(t == key for t, _, _ in FINALS):
        return f"Unknown tournament {tournament!r}. Tournaments: Calder Open."
    final = FINALS.get((key, year, event))
    if final is None:
        return f"No {LABELS[event]} final on record for the {year} {tournament.strip()}."
    winner, runner_up, score = final
    return f"{year} {tournament.strip()} {LABELS[event]} final: {winner} def. {runner_up} {score}"


def player_profile(name: str) -> str:
    """Country, birth year, playing hand and current ranking."""
    p = PLAYERS.get(name.strip().lower())
    if p is None:
        return f"No player named {name!r} in the directory."
    full, country, born, hand, rank = p
    return f"{full}: represents {country}, born {born}, plays {hand}, ranked {rank}"
