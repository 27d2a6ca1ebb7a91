"""Three-day city forecasts from a small fixed table."""

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
