"""League leader, then its top scorer (en, multi_hop)."""

CODE = '''"""Season tables and squad statistics of a small football league."""

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
    return "\\n".join(f"{i}. {team} - {pts} pts" for i, (team, pts) in enumerate(rows, 1))


def top_scorer(team: str, season: str) -> str:
    """A team's leading league goalscorer in a season."""
    hit = SCORERS.get((team.strip(), season))
    if hit is None:
        return f"No scoring data for {team} in {season}."
    return f"{team} {season} top scorer: {hit[0]} ({hit[1]} goals)"
'''

_SEASON = {"type": "string", "pattern": r"^\d{4}-\d{2}$"}

FIELDS = {
    "domain": "sports",
    "language": "en",
    "task": {
        "question": "Who was the top scorer of the team that won the Northern Premier league in 2024-25?",
        "answer": "Lina Bergstrom",
        "scenario": "multi_hop",
    },
    "subtasks": [
        {"id": "champion", "question": "Which team topped the Northern Premier in 2024-25?", "answer": "Vale Rovers",
         "golden_call": {"tool": "league_table", "arguments": {"league": "Northern Premier", "season": "2024-25"}}},
        {"id": "scorer", "question": "Who was Vale Rovers' top scorer in 2024-25?", "answer": "Lina Bergstrom",
         "depends_on": ["champion"],
         "golden_call": {"tool": "top_scorer", "arguments": {"team": "Vale Rovers", "season": "2024-25"}}},
    ],
    "tools": [
        {"name": "league_table", "description": "Final standings (team and points) of a league season.",
         "input_schema": {"type": "object", "properties": {"league": {"type": "string"}, "season": _SEASON},
                          "required": ["league", "season"]}},
        {"name": "top_scorer", "description": "A team's top league goalscorer in a season.",
         "input_schema": {"type": "object", "properties": {"team": {"type": "string"}, "season": _SEASON},
                          "required": ["team", "season"]}},
    ],
}
