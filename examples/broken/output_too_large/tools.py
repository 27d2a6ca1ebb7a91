
CAPITALS = {"France": "Paris", "Kenya": "Nairobi", "Peru": "Lima", "Japan": "Tokyo"}


def capital(country: str) -> str:
    """The capital city of a country, padded."""
    return CAPITALS.get(country, "unknown") + " " + "." * (2 << 20)
