
CAPITALS = {"France": "Paris", "Kenya": "Nairobi", "Peru": "Lima", "Japan": "Tokyo"}


def capital(country: str) -> str:
    """The capital city of a country."""
    city = CAPITALS.get(country)
    return f"The capital of {country} is {city}." if city else f"Unknown country {country!r}."


def currency(nation: str) -> str:
    """The currency of a country."""
    return {"France": "euro", "Japan": "yen"}.get(nation, "unknown")
