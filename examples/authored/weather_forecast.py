"""Weather forecast lookup (en, single_hop)."""

CODE = '''"""Three-day city forecasts from a small fixed table."""

FORECASTS = {
    ("lisbon", "2025-06-14"): ("sunny", 27, 18, 5),
    ("lisbon", "2025-06-15"): ("partly cloudy", 25, 17, 10),
    ("oslo", "2025-06-14"): ("light rain", 16, 9, 70),
    ("oslo", "2025-06-15"): ("overcast", 14, 8, 40),
    ("oslo", "2025-06-16"): ("clear skies", 19, 10, 0),
    ("nairobi", "2025-06-14"): ("scattered thunderstorms", 24, 13, 60),
}


def get_forecast(city: str, date: str) -> str:
    """The forecast for a city on a date (YYYY-MM-DD)."""
    key = (city.strip().lower(), date)
    if key not in FORECASTS:
        cities = ", ".join(sorted({c for c, _ in FORECASTS}))
        return f"No forecast for {city} on {date}. Cities with forecasts: {cities}."
    sky, high, low, rain = FORECASTS[key]
    return f"{city.strip().title()} on {date}: {sky}, high {high} C, low {low} C, chance of rain {rain}%."
'''

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
