"""A handful of property listings in Leeds."""

LISTINGS = {
    "MLS-58213": {"type": "2-bed flat", "address": "Flat 4, 14 Orchard Row", "area": "Headingley", "price": 245_000,
                  "size_m2": 71, "epc": "C"},
    "MLS-58214": {"type": "3-bed terrace", "address": "9 Cardigan Lane", "area": "Headingley", "price": 318_000,
                  "size_m2": 96, "epc": "D"},
    "MLS-58240": {"type": "2-bed flat", "address": "Flat 11, Canal Wharf", "area": "Holbeck", "price": 231_500,
                  "size_m2": 66, "epc": "B"},
    "MLS-58241": {"type": "1-bed flat", "address": "Flat 2, Canal Wharf", "area": "Holbeck", "price": 168_750,
                  "size_m2": 48, "epc": "B"},
}


def _line(listing_id: str, x: dict) -> str:
    return (f"{listing_id}: {x['type']}, {x['address']}, {x['area']}, Leeds; asking GBP {x['price']:,}; "
            f"{x['size_m2']} m2; EPC {x['epc']}")


def get_listing(listing_id: str) -> str:
    """One listing."""
    x = LISTINGS.get(listing_id.strip().upper())
    if x is None:
        return f"Listing {listing_id} not found (sold or withdrawn)."
    return _line(listing_id.upper(), x)


def search_listings(area: str, max_price: int | None = None) -> str:
    """Listings in an area, cheapest first."""
    rows = sorted((x["price"], lid) for lid, x in LISTINGS.items()
                  if x["area"].lower() == area.strip().lower() and (max_price is None or x["price"] <= max_price))
    if not rows:
        return f"No listings in {area}. Areas: {', '.join(sorted({x['area'] for x in LISTINGS.values()}))}."
    return "\n".join(_line(lid, LISTINGS[lid]) for _, lid in rows)
