"""Weather forecast lookup (en, single_hop)."""


FIELDS = {
    "domain": "weather",
    "language": "en",
    "task": {
        "question": "I'm in Oslo on 14 June 2025. What weather should I expect that day?",
        "answer": "light rain",
        "scenario": "single_hop",
    },
    "subtasks": [
        {
            "id": "s1",
            "question": "What is the forecast sky condition in Oslo on 2025-06-14?",
            "answer": "light rain",
            "golden_call": {"tool": "get_forecast", "arguments": {"city": "Oslo", "date": "2025-06-14"}},
        }
    ],
    "tools": [
        {
            "name": "get_forecast",
            "description": "Get the daily weather forecast (sky, high/low in Celsius, chance of rain) for a city.",
            "input_schema": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "City name, e.g. Lisbon"},
                    "date": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$", "description": "YYYY-MM-DD"},
                },
                "required": ["city", "date"],
            },
        }
    ],
}
