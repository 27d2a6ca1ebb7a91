"""The Fernhill public libraries: catalogue, copies per branch, holds and opening hours."""

CATALOGUE = {
    "FH-40912": {"title": "The Salt Road", "author": "Mira Okafor", "year": 2021, "media": "book"},
    "FH-40913": {"title": "The Salt Road", "author": "Mira Okafor", "year": 2022, "media": "audiobook"},
    "FH-41877": {"title": "Salt and Stone", "author": "Tomas Reyes", "year": 2019, "media": "book"},
    "FH-38204": {"title": "Roads of the North", "author": "Mira Okafor", "year": 2016, "media": "book"},
}
COPIES = {
    "FH-40912": [("Central Library", "on loan, due 2025-03-18"), ("Riverside Branch", "on the shelf at 823.92 OKA"),
                 ("Hillcrest Branch", "on loan, due 2025-03-09")],
    "FH-40913": [("Digital collection", "2 of 5 licences free")],
    "FH-41877": [("Central Library", "on the shelf at 641.3 REY"), ("Hillcrest Branch", "on the shelf at 641.3 REY")],
    "FH-38204": [("Central Library", "in transit to Hillcrest Branch")],
}
HOURS = {
    "central library": "Central Library, 2 Market Square: Mon-Sat 09:00-20:00, Sun 12:00-17:00",
    "riverside branch": "Riverside Branch, 41 Quay Walk: Tue-Sat 10:00-18:00, closed Sun and Mon",
    "hillcrest branch": "Hillcrest Branch, 7 Beacon Road: Mon-Fri 10:00-19:00, Sat 10:00-14:00",
}
HOLDS = {}


def search_catalog(query: str, media: str | None = None) -> str:
    """Catalogue items whose title or author contains every word of the query."""
    words = query.lower().split()
    rows = [(book_id, b) for book_id, b in sorted(CATALOGUE.items())
            if all(w in f"{b['title']} {b['author']}".lower() for w in words) and media in (None, b["media"])]
    if not rows:
        return f"No catalogue items match {query!r}. Try fewer words, a title or an author's surname."
    return "\n".join(f"{book_id}: {b['title']} by {b['author']} ({b['year']}, {b['media']})" for book_id, b in rows)


def get_copies(book_id: str) -> str:
    """Each copy of a catalogue item: branch and status."""
    copies = COPIES.get(book_id.strip().upper())
    if copies is None:
        return f"No catalogue item {book_id}. Use search_catalog to find an item's FH- id."
    lines = [f"{branch}: {status}" for branch, status in copies]
    return f"Copies of {book_id.upper()} ({CATALOGUE[book_id.upper()]['title']}):\n" + "\n".join(lines)


def place_hold(book_id: str, card_number: str) -> str:
    """Put a hold on an item for a card; the queue position counts holds in this session."""
    if book_id.upper() not in CATALOGUE:
        return f"No catalogue item {book_id}."
    queue = HOLDS.setdefault(book_id.upper(), [])
    if card_number not in queue:
        queue.append(card_number)
    return f"Hold placed on {book_id.upper()} for card {card_number}; position {queue.index(card_number) + 1} in the queue."


def branch_hours(branch: str) -> str:
    """Opening hours and address of a branch."""
    hours = HOURS.get(branch.strip().lower())
    if hours is None:
        return f"Unknown branch {branch!r}. Branches: Central Library, Riverside Branch, Hillcrest Branch."
    return hours
