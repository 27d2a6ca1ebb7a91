
CAPITALS = {"France": "Paris", "Kenya": "Nairobi", "Peru": "Lima", "Japan": "Tokyo"}


def capital(country: str) -> str:
    """Whether the country is in the table."""
    return "yes" if country in CAPITALS else "no such country"
