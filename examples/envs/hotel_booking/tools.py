"""A hotel booking desk whose bookings live in the session."""

import hashlib

HOTELS = {
    "harbor-view": {"name": "Harbor View Inn", "currency": "CAD",
                    "rates": {"single": 129.0, "double": 164.0, "suite": 289.0}},
    "pine-lodge": {"name": "Pine Lodge", "currency": "CAD",
                   "rates": {"single": 98.0, "double": 121.0, "suite": 205.0}},
}
BOOKINGS = {}


def book_room(hotel: str, room_type: str, check_in: str, nights: int, guest: str) -> str:
    """Book a room; returns the confirmation code."""
    info = HOTELS.get(hotel)
    if info is None:
        return f"Unknown hotel {hotel!r}; hotels: {', '.join(sorted(HOTELS))}."
    key = "|".join([hotel, room_type, check_in, str(nights), guest])
    code = "HB-" + hashlib.sha256(key.encode()).hexdigest()[:6].upper()
    total = info["rates"][room_type] * nights
    BOOKINGS[code] = {"hotel": info["name"], "room_type": room_type, "check_in": check_in,
                      "nights": nights, "guest": guest, "total": f"{info['currency']} {total:.2f}"}
    return f"Booked {room_type} at {info['name']} for {guest}. Confirmation code: {code}"


def get_booking(confirmation: str) -> dict:
    """The details of a booking made in this session."""
    booking = BOOKINGS.get(confirmation.strip().upper())
    if booking is None:
        return {"error": f"no booking with confirmation {confirmation!r}"}
    return {"confirmation": confirmation.upper(), **booking}
