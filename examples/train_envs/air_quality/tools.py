"""Daily air-quality readings of three cities."""

READINGS = {
    ("tbilisi", "2025-01-19"): (74, 23.1, 31), ("tbilisi", "2025-01-20"): (87, 29.4, 38),
    ("tbilisi", "2025-01-21"): (103, 36.0, 41),
    ("yerevan", "2025-01-19"): (128, 46.7, 52), ("yerevan", "2025-01-20"): (142, 52.3, 57),
    ("yerevan", "2025-01-21"): (119, 42.8, 49),
    ("baku", "2025-01-20"): (65, 18.9, 44),
}
BANDS = [(50, "good"), (100, "moderate"), (150, "unhealthy for sensitive groups"), (200, "unhealthy")]


def daily_air_quality(city: str, date: str) -> str:
    """AQI with its category, PM2.5 and NO2 for one day."""
    key = city.strip().lower()
    if not any(c == key for c, _ in READINGS):
        return f"No monitoring data for {city!r}. Cities: Baku, Tbilisi, Yerevan."
    r = READINGS.get((key, date))
    if r is None:
        days = sorted(d for c, d in READINGS if c == key)
        return f"No reading for {city.strip()} on {date}. Days with data: {', '.join(days)}."
    aqi, pm25, no2 = r
    band = next(label for limit, label in BANDS if aqi <= limit)
    return f"{city.strip()} {date}: AQI {aqi} ({band}), PM2.5 {pm25} ug/m3, NO2 {no2} ug/m3"
