"""Season tables and squad statistics of a small football league."""

TABLES = {
    ("northern premier", "2024-25"): [("Vale Rovers", 78), ("Kestrel Athletic", 74), ("Dunmore City", 69)],
    ("northern premier", "2023-24"): [("Kestrel Athletic", 81), ("Dunmore City", 72), ("Vale Rovers", 70)],
}
SCORERS = {
    ("Vale Rovers", "2024-25"): ("Lina Bergstrom", 23),
    ("Kestrel Athletic", "2024-25"): ("Tomas Eriksen", 19),
    ("Kestrel Athletic", "2023-24"): ("Ruben Achterberg", 27),
    ("Dunmore City", "2024-25"): ("Sade Okonjo", 15),
}


def league_table(league: str, season: str) -> str:
    """Final standings of a league season."""
    rows = TABLES.get((league.strip().lower(), season))
    if rows is None:
        return f"No table for {league} {season}."
    return "\n".join(f"{i}. {team} - {pts} pts" for i, (team, pts) in enumerate(rows, 1))


def top_scorer(team: str, season: str) -> str:
    """A team's leading league goalscorer in a season."""
    hit = SCORERS.get((team.strip(), season))
    if hit is None:
        return f"No scoring data for {team} in {season}."
    return f"{team} {season} top scorer: {hit[0]} ({hit[1]} goals)"
