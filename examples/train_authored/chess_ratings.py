"""One player's ratings in two time controls (en, parallel_single_hop; an enum, an unneeded tool)."""


_CONTROL = {"type": "string", "enum": ["classical", "rapid", "blitz"]}

FIELDS = {
    "domain": "chess",
    "language": "en",
    "task": {
        "question": "What are Ilse Vandermeer's current classical and blitz chess ratings?",
        "answer": "classical 2467, blitz 2388",
        "scenario": "parallel_single_hop",
    },
    "subtasks": [
        {"id": "classical", "question": "What is Ilse Vandermeer's classical rating?", "answer": "2467",
         "golden_call": {"tool": "player_rating", "arguments": {"player": "Ilse Vandermeer", "time_control": "classical"}}},
        {"id": "blitz", "question": "What is Ilse Vandermeer's blitz rating?", "answer": "2388",
         "golden_call": {"tool": "player_rating", "arguments": {"player": "Ilse Vandermeer", "time_control": "blitz"}}},
    ],
    "tools": [
        {"name": "player_rating", "description": "A chess player's current rating in one time control, with peak and games played.",
         "input_schema": {"type": "object", "properties": {"player": {"type": "string"}, "time_control": _CONTROL},
                          "required": ["player", "time_control"]}},
        {"name": "top_players", "description": "The highest-rated players of a federation in a time control.",
         "input_schema": {"type": "object",
                          "properties": {"federation": {"type": "string", "pattern": "^[A-Z]{3}$"}, "time_control": _CONTROL},
                          "required": ["federation"]}},
    ],
}
