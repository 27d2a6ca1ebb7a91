"""League leader, then its top scorer (en, multi_hop)."""


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
