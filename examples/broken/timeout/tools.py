
CAPITALS = {"France": "Paris", "Kenya": "Nairobi", "Peru": "Lima", "Japan": "Tokyo"}


import threading


def capital(country: str) -> str:
    """The capital city of a country, eventually."""
    threading.Event().wait(60)
    return CAPITALS[country]
