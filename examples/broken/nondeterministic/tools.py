
CAPITALS = {"France": "Paris", "Kenya": "Nairobi", "Peru": "Lima", "Japan": "Tokyo"}


import random


def capital(country: str) -> str:
    """The capital city of a country."""
    return f"{CAPITALS.get(country, 'unknown')} (ref {random.getrandbits(64):x})"
