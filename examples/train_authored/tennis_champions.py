"""Two finals, each winner resolved to a country (en, parallel_multi_hop; an enum event)."""


_EVENTS = ["mens_singles", "womens_singles", "mens_doubles", "womens_doubles"]

FIELDS = {
    "domain": "tennis",
    "language": "en",
    "task": {
        "question": "Which countries are the 2024 Calder Open men's and women's singles champions from?",
        "answer": "Men's champion Jonas Aalto is from Finland; women's champion Ana Kovalenko is from Ukraine",
        "scenario": "parallel_multi_hop",
    },
    "subtasks": [
        {"id": "men", "question": "Who won the 2024 Calder Open men's singles?", "answer": "Jonas Aalto",
         "golden_call": {"tool": "tournament_final",
                         "arguments": {"tournament": "Calder Open", "year": 2024, "event": "mens_singles"}}},
        {"id": "men_country", "question": "Which country does Jonas Aalto represent?", "answer": "Finland",
         "depends_on": ["men"], "golden_call": {"tool": "player_profile", "arguments": {"name": "Jonas Aalto"}}},
        {"id": "women", "question": "Who won the 2024 Calder Open women's singles?", "answer": "Ana Kovalenko",
         "golden_call": {"tool": "tournament_final",
                         "arguments": {"tournament": "Calder Open", "year": 2024, "event": "womens_singles"}}},
        {"id": "women_country", "question": "Which country does Ana Kovalenko represent?", "answer": "Ukraine",
         "depends_on": ["women"], "golden_call": {"tool": "player_profile", "arguments": {"name": "Ana Kovalenko"}}},
    ],
    "tools": [
        {"name": "tournament_final", "description": "Result of a tennis tournament final: winner, runner-up and score.",
         "input_schema": {"type": "object",
                          "properties": {"tournament": {"type": "string"},
                                         "year": {"type": "integer", "minimum": 1990, "maximum": 2030},
                                         "event": {"type": "string", "enum": _EVENTS}},
                          "required": ["tournament", "year", "event"]}},
        {"name": "player_profile", "description": "A tennis player's country, age, plays and ranking.",
         "input_schema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}},
    ],
}
