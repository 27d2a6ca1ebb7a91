
CAPITALS = {"France": "Paris", "Kenya": "Nairobi", "Peru": "Lima", "Japan": "Tokyo"}


import os


def capital(country: str) -> str:
    """The capital city of a country."""
    os._exit(7)
