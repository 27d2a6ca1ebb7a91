
CAPITALS = {"France": "Paris", "Kenya": "Nairobi", "Peru": "Lima", "Japan": "Tokyo"}


def capital(country: str) -> str:
    """The capital city of a country."""
    return CAPITALS[country]["name"]
