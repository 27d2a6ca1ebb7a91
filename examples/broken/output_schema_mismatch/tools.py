
CAPITALS = {"France": "Paris", "Kenya": "Nairobi", "Peru": "Lima", "Japan": "Tokyo"}


def capital(country: str) -> dict:
    """The capital city of a country."""
    return {"country": country, "city": CAPITALS.get(country, "unknown")}
