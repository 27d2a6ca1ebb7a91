
CAPITALS = {"France": "Paris", "Kenya": "Nairobi", "Peru": "Lima", "Japan": "Tokyo"}


def capital(country: str) -> str:
    """The capital city of a country."""
    return "; ".join(f"{k}: {v}" for k, v in sorted(CAPITALS.items()))
