"""Two race winners, each resolved to a team (en, parallel_multi_hop)."""


FIELDS = {
    "domain": "motor racing",
    "language": "en",
    "task": {
        "question": "Which teams did the winners of the 2024 Valdora and Kestonbury Grands Prix drive for?",
        "answer": "Luca Ferrand (Valdora) drove for Orison Racing; Aiko Mori (Kestonbury) drove for Kaito Velocity",
        "scenario": "parallel_multi_hop",
    },
    "subtasks": [
        {"id": "valdora", "question": "Who won the 2024 Valdora Grand Prix?", "answer": "Luca Ferrand",
         "golden_call": {"tool": "race_result", "arguments": {"race": "Valdora Grand Prix", "season": 2024}}},
        {"id": "valdora_team", "question": "Which team does Luca Ferrand drive for?", "answer": "Orison Racing",
         "depends_on": ["valdora"], "golden_call": {"tool": "driver_profile", "arguments": {"driver": "Luca Ferrand"}}},
        {"id": "kestonbury", "question": "Who won the 2024 Kestonbury Grand Prix?", "answer": "Aiko Mori",
         "golden_call": {"tool": "race_result", "arguments": {"race": "Kestonbury Grand Prix", "season": 2024}}},
        {"id": "kestonbury_team", "question": "Which team does Aiko Mori drive for?", "answer": "Kaito Velocity",
         "depends_on": ["kestonbury"], "golden_call": {"tool": "driver_profile", "arguments": {"driver": "Aiko Mori"}}},
    ],
    "tools": [
        {"name": "race_result", "description": "Podium and fastest lap of a grand prix in a season.",
         "input_schema": {"type": "object",
                          "properties": {"race": {"type": "string"}, "season": {"type": "integer", "minimum": 2000, "maximum": 2030}},
                          "required": ["race", "season"]}},
        {"name": "driver_profile", "description": "A driver's team, nationality and car number.",
         "input_schema": {"type": "object", "properties": {"driver": {"type": "string"}}, "required": ["driver"]}},
    ],
}
