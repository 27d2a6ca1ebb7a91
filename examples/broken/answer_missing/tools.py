
CAPITALS = {"France": "Paris", "Kenya": "Nairobi", "Peru": "Lima", "Japan": "Tokyo"}


def capital(country: str) -> str:
    """The capital city of a country."""
    return f"{country} is a country." if country in CAPITALS else "unknown"
