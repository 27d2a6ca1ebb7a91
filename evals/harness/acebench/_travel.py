"""ACEBench's travel scenario, written from the data: users, flights, reservations.

Users and reservations are the gold end states' untouched parts. The flights are not in the
data; the table below is the smallest one consistent with it: every flight a question or a
gold path names, on the days and at the times of day the questions ask for ("the latest
flight ... on July 16th to 17th", "the same evening", no direct Beijing-Shenzhen flight but
one via Nanjing), priced so that the gold paths produce the gold balances:

- CA1234 economy 1,200; CZ4352 economy 1,600 (one booking of each takes Frank from 8,000 to
  6,800, 6,400, or 5,200 for both);
- MU5678 and CZ4321 business 2,700 (a same-cabin change costs nothing) and a change to
  CZ4352 economy refunds 1,100;
- MU3561 and CZ1765 economy 1,500 each (3,000 for the two legs), business 3,000 each (more
  than Grace's 5,000 for both, so she falls back to economy); MU1566 business 4,000.

Checked bags beyond the free allowance cost 50 each (Eve, regular, business: 3 bags cost 50;
Grace, gold, economy: 4 bags cost 50). The allowance by membership and cabin is the one
those balances imply. Fares and fees are paid from, and refunded to, the bank or cash
balance the reservation names. New reservations carry no origin/destination fields, as the
gold end states show.
"""

from __future__ import annotations

from typing import Any, ClassVar

from harness.acebench._scenario import Scenario, ScenarioError

__all__ = ["FLIGHTS", "Travel"]

BAG_FEE = 50.0
ECONOMY, BUSINESS = "Economy Class", "Business Class"
_CABINS = {"economy": ECONOMY, "economy class": ECONOMY, "经济舱": ECONOMY,
           "business": BUSINESS, "business class": BUSINESS, "商务舱": BUSINESS}
_FREE_BAGS = {("regular", ECONOMY): 1, ("regular", BUSINESS): 2, ("silver", ECONOMY): 2, ("silver", BUSINESS): 3,
              ("gold", ECONOMY): 3, ("gold", BUSINESS): 3}


def _flight(no: str, origin: str, destination: str, depart: str, arrive: str, economy: float, business: float) -> dict[str, Any]:
    return {"flight_no": no, "origin": origin, "destination": destination, "depart_time": depart, "arrival_time": arrive,
            "status": "available", "prices": {ECONOMY: economy, BUSINESS: business}}


FLIGHTS: list[dict[str, Any]] = [
    _flight("CA1234", "Beijing", "Shanghai", "2024-07-15 08:00", "2024-07-15 10:30", 1200.0, 2500.0),
    _flight("MU5678", "Shanghai", "Beijing", "2024-07-16 09:00", "2024-07-16 11:30", 1300.0, 2700.0),
    _flight("CZ4321", "Shanghai", "Beijing", "2024-07-16 20:00", "2024-07-16 22:30", 1400.0, 2700.0),
    _flight("CZ4352", "Shanghai", "Beijing", "2024-07-17 20:30", "2024-07-17 23:00", 1600.0, 3000.0),
    _flight("MU3561", "Beijing", "Nanjing", "2024-07-18 08:00", "2024-07-18 10:00", 1500.0, 3000.0),
    _flight("MU1566", "Beijing", "Nanjing", "2024-07-18 19:00", "2024-07-18 21:00", 2000.0, 4000.0),
    _flight("CZ1765", "Nanjing", "Shenzhen", "2024-07-18 12:30", "2024-07-18 15:00", 1500.0, 3000.0),
    _flight("MH1765", "Xiamen", "Chengdu", "2024-07-20 09:00", "2024-07-20 11:30", 1000.0, 2200.0),
    _flight("MU2616", "Chengdu", "Xiamen", "2024-07-22 14:00", "2024-07-22 16:30", 1000.0, 2200.0),
]
_USERS = {
    "user1": {"user_name": "Eve", "password": "password123", "cash_balance": 2000.0, "bank_balance": 50000.0,
              "membership_level": "regular"},
    "user2": {"user_name": "Frank", "password": "password456", "cash_balance": 8000.0, "bank_balance": 8000.0,
              "membership_level": "silver"},
    "user3": {"user_name": "Grace", "password": "password789", "cash_balance": 1000.0, "bank_balance": 5000.0,
              "membership_level": "gold"},
}
_RESERVATIONS = [
    {"reservation_id": "res_1", "user_id": "user1", "flight_no": "CA1234", "payment_method": "bank", "cabin": ECONOMY,
     "baggage": 1, "origin": "Beijing", "destination": "Shanghai"},
    {"reservation_id": "res_2", "user_id": "user1", "flight_no": "MU5678", "payment_method": "bank", "cabin": BUSINESS,
     "baggage": 1, "origin": "Shanghai", "destination": "Beijing"},
    {"reservation_id": "res_3", "user_id": "user2", "flight_no": "MH1765", "payment_method": "bank", "cabin": BUSINESS,
     "baggage": 1, "origin": "Xiamen", "destination": "Chengdu"},
    {"reservation_id": "res_4", "user_id": "user2", "flight_no": "MU2616", "payment_method": "bank", "cabin": BUSINESS,
     "baggage": 1, "origin": "Chengdu", "destination": "Xiamen"},
]


def _public(flight: dict[str, Any]) -> dict[str, Any]:
    prices = flight["prices"]
    return {**{k: v for k, v in flight.items() if k != "prices"},
            "economy_price": prices[ECONOMY], "business_price": prices[BUSINESS]}


class Travel(Scenario):
    """Flight booking: look up flights and reservations, reserve, modify, cancel."""

    NAME = "Travel"
    STATE: ClassVar[dict[str, Any]] = {"users": _USERS, "reservations": _RESERVATIONS}
    users: dict[str, dict[str, Any]]
    reservations: list[dict[str, Any]]

    def __init__(self) -> None:
        super().__init__()
        self.flights = {f["flight_no"]: f for f in FLIGHTS}

    def _user(self, user_id: str, password: str | None = None) -> dict[str, Any]:
        user = self.users.get(user_id)
        if user is None:
            raise ScenarioError(f"No user {user_id!r}.")
        if password is not None and user["password"] != password:
            raise ScenarioError("Wrong password.")
        return user

    def _flight(self, flight_no: str) -> dict[str, Any]:
        if flight_no not in self.flights:
            raise ScenarioError(f"No flight {flight_no!r}.")
        return self.flights[flight_no]

    def _reservation(self, user_id: str, reservation_id: str) -> dict[str, Any]:
        for reservation in self.reservations:
            if reservation["reservation_id"] == reservation_id:
                if reservation["user_id"] != user_id:
                    raise ScenarioError(f"Reservation {reservation_id} does not belong to {user_id}.")
                return reservation
        raise ScenarioError(f"No reservation {reservation_id!r}.")

    @staticmethod
    def _cabin(cabin: str) -> str:
        name = _CABINS.get(str(cabin).strip().lower())
        if name is None:
            raise ScenarioError(f"Unknown cabin {cabin!r}; use {ECONOMY!r} or {BUSINESS!r}.")
        return name

    @staticmethod
    def _balance_key(payment_method: str) -> str:
        if payment_method not in ("bank", "cash"):
            raise ScenarioError(f"Unknown payment method {payment_method!r}; use 'bank' or 'cash'.")
        return f"{payment_method}_balance"

    def _bag_fee(self, user: dict[str, Any], cabin: str, bags: int) -> float:
        return max(0, bags - _FREE_BAGS[(user["membership_level"], cabin)]) * BAG_FEE

    def _charge(self, user: dict[str, Any], payment_method: str, amount: float) -> None:
        key = self._balance_key(payment_method)
        if amount > user[key]:
            raise ScenarioError(f"Insufficient {payment_method} balance: {amount} needed, {user[key]} available.")
        user[key] -= amount

    def get_user_details(self, user_id: str, password: str) -> dict[str, Any]:
        user = self._user(user_id, password)
        return {"status": True, "user_id": user_id, **{k: v for k, v in user.items() if k != "password"}}

    def get_flight_details(self, origin: str | None = None, destination: str | None = None) -> dict[str, Any]:
        found = [_public(f) for f in FLIGHTS
                 if (not origin or f["origin"] == origin) and (not destination or f["destination"] == destination)]
        if not found:
            raise ScenarioError(f"No flights from {origin or 'anywhere'} to {destination or 'anywhere'}.")
        return {"status": True, "flights": found}

    def get_reservation_details(self, reservation_id: str | None = None, user_id: str | None = None) -> dict[str, Any]:
        if not reservation_id and not user_id:
            raise ScenarioError("Give a reservation_id or a user_id.")
        found = [dict(r) for r in self.reservations
                 if (not reservation_id or r["reservation_id"] == reservation_id) and (not user_id or r["user_id"] == user_id)]
        return {"status": True, "reservations": found}

    def find_transfer_flights(self, origin_city: str, transfer_city: str, destination_city: str) -> dict[str, Any]:
        pairs = [{"first_leg": _public(a), "second_leg": _public(b)}
                 for a in FLIGHTS if a["origin"] == origin_city and a["destination"] == transfer_city
                 for b in FLIGHTS if b["origin"] == transfer_city and b["destination"] == destination_city
                 and a["arrival_time"] < b["depart_time"]]
        return {"status": True, "transfer_flights": pairs}

    def reserve_flight(self, user_id: str, password: str, flight_no: str, cabin: str, baggage_count: int,
                       payment_method: str | None = None, payment_methods: str | None = None) -> dict[str, Any]:
        # The data's schema requires `payment_methods` but documents (and every gold path uses) `payment_method`.
        method = payment_method or payment_methods
        if method is None:
            raise ScenarioError("Missing payment_method ('bank' or 'cash').")
        user, flight, cabin_name = self._user(user_id, password), self._flight(flight_no), self._cabin(cabin)
        cost = flight["prices"][cabin_name] + self._bag_fee(user, cabin_name, baggage_count)
        self._charge(user, method, cost)
        reservation_id = f"res_{len(self.reservations) + 1}"
        self.reservations.append({"reservation_id": reservation_id, "user_id": user_id, "flight_no": flight_no,
                                  "payment_method": method, "cabin": cabin_name, "baggage": baggage_count})
        return {"status": True, "reservation_id": reservation_id, "charged": cost}

    def modify_flight(self, user_id: str, reservation_id: str, new_flight_no: str | None = None, new_cabin: str | None = None,
                      add_baggage: int = 0, new_payment_method: str | None = None) -> dict[str, Any]:
        user, reservation = self._user(user_id), self._reservation(user_id, reservation_id)
        old, cabin = self._flight(reservation["flight_no"]), reservation["cabin"]
        new = self._flight(new_flight_no) if new_flight_no else old
        if (new["origin"], new["destination"]) != (old["origin"], old["destination"]):
            raise ScenarioError(f"{new['flight_no']} does not fly {old['origin']}-{old['destination']}.")
        new_cabin_name = self._cabin(new_cabin) if new_cabin else cabin
        bags = reservation["baggage"] + int(add_baggage or 0)
        delta = (new["prices"][new_cabin_name] - old["prices"][cabin]
                 + self._bag_fee(user, new_cabin_name, bags) - self._bag_fee(user, cabin, reservation["baggage"]))
        method = new_payment_method or reservation["payment_method"]
        if delta > 0:
            self._charge(user, method, delta)
        else:
            user[self._balance_key(method)] -= delta
        reservation.update(flight_no=new["flight_no"], cabin=new_cabin_name, baggage=bags)
        return {"status": True, "reservation_id": reservation_id, "charged": delta}

    def cancel_reservation(self, user_id: str, reservation_id: str, reason: str) -> dict[str, Any]:
        # No gold path cancels; the fare (not bag fees) is refunded to the payment method.
        user, reservation = self._user(user_id), self._reservation(user_id, reservation_id)
        refund = self._flight(reservation["flight_no"])["prices"][reservation["cabin"]]
        user[self._balance_key(reservation["payment_method"])] += refund
        self.reservations.remove(reservation)
        return {"status": True, "message": f"Reservation {reservation_id} cancelled ({reason}).", "refunded": refund}
