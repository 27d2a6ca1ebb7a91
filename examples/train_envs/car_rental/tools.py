"""Car rental desks at three airports; quotes from a search live in the session."""

import hashlib

LOCATIONS = {"FAO": "Faro Airport, 07:00-23:00", "PMI": "Palma Airport, 06:30-00:30", "NCE": "Nice Airport T2, 07:00-22:00"}
# (location, category) -> [(car, supplier, EUR per day, deposit EUR, mileage)]
FLEET = {
    ("FAO", "economy"): [("Fiat Panda", "Velocar", 29.0, 450, "unlimited"), ("Kia Picanto", "Sunroad", 31.5, 400, "250 km/day")],
    ("FAO", "compact"): [("Seat Ibiza", "Velocar", 36.9, 600, "unlimited"), ("VW Polo", "Sunroad", 40.2, 750, "unlimited"),
                         ("Renault Clio", "Algarve Drive", 38.4, 900, "300 km/day")],
    ("FAO", "suv"): [("Dacia Duster", "Sunroad", 58.0, 1000, "unlimited")],
    ("PMI", "compact"): [("Opel Corsa", "Isla Rent", 33.0, 500, "unlimited")],
    ("NCE", "compact"): [("Peugeot 208", "Riviera Cars", 44.0, 800, "unlimited")],
}
QUOTES = {}


def list_locations() -> str:
    """Every rental desk."""
    return "\n".join(f"{code}: {desc}" for code, desc in sorted(LOCATIONS.items()))


def search_cars(location: str, pickup_date: str, days: int, category: str) -> str:
    """Offers for the search, cheapest first, each saved as a quote."""
    if location not in LOCATIONS:
        return f"Unknown location {location}. Locations: {', '.join(sorted(LOCATIONS))}."
    offers = FLEET.get((location, category), [])
    if not offers:
        return f"No {category} cars at {location}."
    rows = []
    for car, supplier, daily, deposit, mileage in sorted(offers, key=lambda o: o[2]):
        key = "|".join([location, pickup_date, str(days), category, car, supplier])
        quote = "Q-" + hashlib.sha256(key.encode()).hexdigest()[:6].upper()
        total = f"EUR {daily * days:.2f}"
        QUOTES[quote] = {"car": car, "supplier": supplier, "location": location, "pickup_date": pickup_date, "days": days,
                         "total": total, "deposit": f"EUR {deposit}", "mileage": mileage, "fuel": "full-to-full"}
        rows.append(f"{quote}: {car} or similar ({supplier}), {days} days, {total}")
    return f"{category} cars at {location} from {pickup_date}:\n" + "\n".join(rows)


def get_quote(quote_id: str) -> dict:
    """The terms of a quote made by search_cars in this session."""
    quote = QUOTES.get(quote_id.strip().upper())
    if quote is None:
        return {"error": f"no quote {quote_id!r} in this session; run search_cars first"}
    return {"quote_id": quote_id.strip().upper(), **quote}
