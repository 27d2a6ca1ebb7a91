"""Two facts about two museums from one tool (en, parallel_single_hop; an optional flag)."""


FIELDS = {
    "domain": "museums",
    "language": "en",
    "task": {
        "question": "When does the Aldergate Clock Museum close on Sundays, and how much is an adult ticket at the Verrin Textile Hall?",
        "answer": "The Aldergate Clock Museum closes at 16:30 on Sundays; a Verrin Textile Hall adult ticket is GBP 12.50",
        "scenario": "parallel_single_hop",
    },
    "subtasks": [
        {"id": "sunday", "question": "At what time does the Aldergate Clock Museum close on Sundays?", "answer": "16:30",
         "golden_call": {"tool": "museum_info", "arguments": {"museum": "Aldergate Clock Museum"}}},
        {"id": "ticket", "question": "How much is an adult ticket at the Verrin Textile Hall?", "answer": "GBP 12.50",
         "golden_call": {"tool": "museum_info", "arguments": {"museum": "Verrin Textile Hall"}}},
    ],
    "tools": [
        {"name": "museum_info", "description": "Opening hours, ticket prices and address of a museum.",
         "input_schema": {"type": "object",
                          "properties": {"museum": {"type": "string"},
                                         "include_exhibitions": {"type": "boolean", "description": "Also list current exhibitions"}},
                          "required": ["museum"]}},
    ],
}
