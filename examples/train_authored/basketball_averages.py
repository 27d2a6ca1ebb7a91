"""Two players' season scoring averages from one tool (en, parallel_single_hop)."""


FIELDS = {
    "domain": "basketball",
    "language": "en",
    "task": {
        "question": "How many points per game did Tobi Adeyemi and Marek Lindqvist average in the 2024-25 season?",
        "answer": "Tobi Adeyemi 21.4 points per game, Marek Lindqvist 17.8 points per game",
        "scenario": "parallel_single_hop",
    },
    "subtasks": [
        {"id": "adeyemi", "question": "What was Tobi Adeyemi's scoring average in 2024-25?", "answer": "21.4 points",
         "golden_call": {"tool": "player_season_stats", "arguments": {"player": "Tobi Adeyemi", "season": "2024-25"}}},
        {"id": "lindqvist", "question": "What was Marek Lindqvist's scoring average in 2024-25?", "answer": "17.8 points",
         "golden_call": {"tool": "player_season_stats", "arguments": {"player": "Marek Lindqvist", "season": "2024-25"}}},
    ],
    "tools": [
        {"name": "player_season_stats", "description": "A basketball player's per-game averages for one season.",
         "input_schema": {"type": "object",
                          "properties": {"player": {"type": "string"},
                                         "season": {"type": "string", "pattern": r"^\d{4}-\d{2}$", "description": "e.g. 2024-25"}},
                          "required": ["player", "season"]}},
    ],
}
