"""ACEBench's phone scenarios, written from the data: device, messages, reminders, food delivery.

Everything here is read off the benchmark's own files, not its code (which is not published
on PyPI and is not copied): the default states are the gold end states' untouched parts
(users, inbox, reminder list, balances), the behaviour is what the function docs say and
what the gold milestone paths need to reach the gold end states:

- every message and reminder call needs the device logged in; sending a message and every
  food-platform call also need Wi-Fi (gold paths view and delete messages with Wi-Fi off,
  and turn it on before sending or ordering);
- the inbox holds at most 6 messages, so sending into a full inbox fails until one is
  deleted ("if a message needs to be deleted ..." in every sending task); a new message
  takes the next id and has no time; "earliest"/"latest" are by message time;
- a new reminder takes the next position as both key and `reminder_id`;
- an order charges quantity x unit price to the user's balance, who must be logged in on
  the platform.

Menus: every product and price a gold end state shows is here. Two tasks also need an
alternative the data never names ("a cheaper milk tea" at Heytea, "one that I can afford"
with 120 yuan at Jiutian BBQ); one product each is added for them, marked below.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from harness.acebench._scenario import Scenario, ScenarioError

__all__ = ["BaseApi", "FoodPlatform", "MessageApi", "ReminderApi"]

INBOX_CAPACITY = 6
USER_IDS = {"Eve": "USR100", "Frank": "USR101", "Grace": "USR102", "Helen": "USR103", "Isaac": "USR104", "Jack": "USR105"}

_INBOX = {
    "1": {"sender_id": "USR100", "receiver_id": "USR101",
          "message": "Hey Frank, don't forget about our meeting on 2024-06-11 at 4 PM in Conference Room 1.", "time": "2024-06-09"},
    "2": {"sender_id": "USR101", "receiver_id": "USR102",
          "message": "Can you help me order a \"Margherita Pizza\" delivery? The merchant is Domino's.", "time": "2024-03-09"},
    "3": {"sender_id": "USR102", "receiver_id": "USR103",
          "message": "Please check the milk tea delivery options available from Heytea and purchase a cheaper milk tea for me. "
                     "After making the purchase, remember to reply to me with \"Already bought.\"", "time": "2023-12-05"},
    "4": {"sender_id": "USR103", "receiver_id": "USR102", "message": "No problem Helen, I can assist you.", "time": "2024-09-09"},
    "5": {"sender_id": "USR104", "receiver_id": "USR105", "message": "Isaac, are you available for a call?", "time": "2024-06-06"},
    "6": {"sender_id": "USR105", "receiver_id": "USR104", "message": "Yes Jack, let's do it in 30 minutes.", "time": "2024-01-15"},
}
_REMINDERS = {
    "1": {"reminder_id": 1001, "title": "Doctor's Appointment", "description": "Visit Dr. Smith for a checkup.",
          "time": "2024-07-15 09:30", "notified": False},
    "2": {"reminder_id": 1002, "title": "Team Meeting", "description": "Monthly project review with the team.",
          "time": "2024-07-17 11:00", "notified": False},
    "3": {"reminder_id": 1003, "title": "To-do list",
          "description": "First, help Frank place a food delivery order at \"Hema Fresh,\" ordering two \"Fresh Gift Packs.\" "
                         "Then, send a message to Frank saying, \"The price of the purchased goods is () yuan.\" Replace the "
                         "parentheses with the actual amount, keeping one decimal place.",
          "time": "2024-07-16 11:00", "notified": False},
}
_FOOD_USERS = {
    "Eve": {"user_id": "U100", "password": "password123", "balance": 500.0},
    "Frank": {"user_id": "U101", "password": "password456", "balance": 300.0},
    "Grace": {"user_id": "U102", "password": "password789", "balance": 150.0},
    "Helen": {"user_id": "U103", "password": "password321", "balance": 800.0},
    "Isaac": {"user_id": "U104", "password": "password654", "balance": 400.0},
    "Jack": {"user_id": "U105", "password": "password654", "balance": 120.0},
}
MENUS: dict[str, dict[str, float]] = {
    "Domino's": {"Margherita Pizza": 68.0, "Super Supreme Pizza": 88.0},
    "Hema Fresh": {"Fresh Gift Pack": 99.0},
    "Jiutian BBQ": {"Grilled Pork Belly": 78.0, "Grilled Lamb Chops": 138.0},  # lamb chops: added, not in the data
    "Heytea": {"Four Seasons Spring Milk Tea": 22.0, "Cheese Grape Milk Tea": 29.0},  # grape: added, not in the data
    "Rice Village Bibimbap": {"Stone Pot Bibimbap": 35.0, "Korean Beef Bibimbap": 45.0},
}
_TIME = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$")


class BaseApi(Scenario):
    """The phone itself: Wi-Fi and the device login the other phone apps depend on."""

    NAME = "BaseApi"
    STATE: ClassVar[dict[str, Any]] = {"wifi": False, "logged_in": False}
    wifi: bool
    logged_in: bool

    def turn_on_wifi(self) -> dict[str, Any]:
        self.wifi = True
        return {"status": True, "message": "Wi-Fi is on."}

    def login_device(self) -> dict[str, Any]:
        self.logged_in = True
        return {"status": True, "message": "Device logged in."}

    def require(self, *, wifi: bool = False, login: bool = False) -> None:
        """Refuse unless the device is logged in / online, as the call needs."""
        if login and not self.logged_in:
            raise ScenarioError("The device is not logged in; log in to the device first.")
        if wifi and not self.wifi:
            raise ScenarioError("Wi-Fi is off; turn on Wi-Fi first.")


class _PhoneApp(Scenario):
    """An app on the phone: its calls ask the phone (`device`) for the login or Wi-Fi they need."""

    def __init__(self, device: BaseApi) -> None:
        super().__init__()
        self.device = device


class MessageApi(_PhoneApp):
    """Text messages between the six users, in one inbox of limited capacity."""

    NAME = "MessageApi"
    STATE: ClassVar[dict[str, Any]] = {"inbox": _INBOX}
    inbox: dict[str, dict[str, Any]]

    @staticmethod
    def _user_id(name: str) -> str:
        if name not in USER_IDS:
            raise ScenarioError(f"Unknown user {name!r}; known users: {', '.join(USER_IDS)}.")
        return USER_IDS[name]

    def send_message(self, sender_name: str, receiver_name: str, message: str) -> dict[str, Any]:
        self.device.require(login=True, wifi=True)
        sender, receiver = self._user_id(sender_name), self._user_id(receiver_name)
        if len(self.inbox) >= INBOX_CAPACITY:
            raise ScenarioError(f"The inbox is full ({INBOX_CAPACITY} messages); delete a message before sending.")
        new_id = str(max((int(k) for k in self.inbox), default=0) + 1)
        self.inbox[new_id] = {"sender_id": sender, "receiver_id": receiver, "message": message}
        return {"status": True, "message": f"Message sent to {receiver_name}.", "message_id": int(new_id)}

    def view_messages_between_users(self, sender_name: str, receiver_name: str) -> dict[str, Any]:
        self.device.require(login=True)
        sender, receiver = self._user_id(sender_name), self._user_id(receiver_name)
        found = [{"message_id": int(k), "message": m["message"], **({"time": m["time"]} if "time" in m else {})}
                 for k, m in self.inbox.items() if m["sender_id"] == sender and m["receiver_id"] == receiver]
        return {"status": True, "messages": found}

    def delete_message(self, message_id: int) -> dict[str, Any]:
        self.device.require(login=True)
        key = str(message_id)
        if key not in self.inbox:
            raise ScenarioError(f"No message with id {message_id}.")
        del self.inbox[key]
        return {"status": True, "message": f"Message {message_id} deleted."}

    def search_messages(self, user_name: str, keyword: str) -> dict[str, Any]:
        self.device.require(login=True)
        user = self._user_id(user_name)
        found = [{"message_id": int(k), "sender_id": m["sender_id"], "receiver_id": m["receiver_id"], "message": m["message"]}
                 for k, m in self.inbox.items()
                 if user in (m["sender_id"], m["receiver_id"]) and keyword.lower() in m["message"].lower()]
        return {"status": True, "messages": found}

    def _by_time(self) -> list[str]:
        # Messages sent in this episode have no time: they are the newest.
        return sorted(self.inbox, key=lambda k: (self.inbox[k].get("time") or "9999", int(k)))

    def get_latest_message_id(self) -> dict[str, Any]:
        self.device.require(login=True)
        if not self.inbox:
            raise ScenarioError("The inbox is empty.")
        return {"status": True, "message_id": int(self._by_time()[-1])}

    def get_earliest_message_id(self) -> dict[str, Any]:
        self.device.require(login=True)
        if not self.inbox:
            raise ScenarioError("The inbox is empty.")
        return {"status": True, "message_id": int(self._by_time()[0])}


class ReminderApi(_PhoneApp):
    """Reminders with a title, a description and a time."""

    NAME = "ReminderApi"
    STATE: ClassVar[dict[str, Any]] = {"reminder_list": _REMINDERS}
    reminder_list: dict[str, dict[str, Any]]

    def add_reminder(self, title: str, description: str, time: str) -> dict[str, Any]:
        self.device.require(login=True)
        if not _TIME.match(time):
            raise ScenarioError(f"Invalid time {time!r}; use YYYY-MM-DD HH:MM.")
        position = len(self.reminder_list) + 1
        self.reminder_list[str(position)] = {"reminder_id": position, "title": title, "description": description,
                                             "time": time, "notified": False}
        return {"status": True, "message": f"Reminder {title!r} added.", "reminder_id": position}

    def view_reminder_by_title(self, title: str) -> dict[str, Any]:
        self.device.require(login=True)
        for reminder in self.reminder_list.values():
            if reminder["title"].lower() == title.lower():
                return {"status": True, "reminder": dict(reminder)}
        raise ScenarioError(f"No reminder titled {title!r}.")

    def search_reminders(self, keyword: str) -> dict[str, Any]:
        self.device.require(login=True)
        found = [dict(r) for r in self.reminder_list.values()
                 if keyword.lower() in r["title"].lower() or keyword.lower() in r["description"].lower()]
        return {"status": True, "reminders": found}


class FoodPlatform(_PhoneApp):
    """Food delivery: platform accounts with balances, merchants' menus, orders."""

    NAME = "FoodPlatform"
    STATE: ClassVar[dict[str, Any]] = {"users": _FOOD_USERS, "logged_in_users": [], "orders": []}
    users: dict[str, dict[str, Any]]
    logged_in_users: list[str]
    orders: list[dict[str, Any]]

    def _account(self, name: str) -> dict[str, Any]:
        if name not in self.users:
            raise ScenarioError(f"No food-platform account {name!r}.")
        return self.users[name]

    @staticmethod
    def _menu(merchant_name: str) -> dict[str, float]:
        if merchant_name not in MENUS:
            raise ScenarioError(f"Unknown merchant {merchant_name!r}; merchants: {', '.join(MENUS)}.")
        return MENUS[merchant_name]

    def login_food_platform(self, username: str, password: str) -> dict[str, Any]:
        self.device.require(wifi=True)
        if self._account(username)["password"] != password:
            raise ScenarioError("Wrong password.")
        if username not in self.logged_in_users:
            self.logged_in_users.append(username)
        return {"status": True, "message": f"{username} logged in to the food platform."}

    def check_balance(self, user_name: str) -> dict[str, Any]:
        self.device.require(wifi=True)
        return {"status": True, "balance": self._account(user_name)["balance"]}

    def get_products(self, merchant_name: str) -> dict[str, Any]:
        self.device.require(wifi=True)
        return {"status": True, "merchant_name": merchant_name,
                "products": [{"product": p, "price": price} for p, price in self._menu(merchant_name).items()]}

    def add_food_delivery_order(self, username: str, merchant_name: str, items: list[dict[str, Any]]) -> dict[str, Any]:
        self.device.require(wifi=True)
        account = self._account(username)
        if username not in self.logged_in_users:
            raise ScenarioError(f"{username} is not logged in to the food platform.")
        menu = self._menu(merchant_name)
        lines = []
        for item in items if isinstance(items, list) else []:
            product, quantity = (item.get("product"), item.get("quantity")) if isinstance(item, dict) else (None, None)
            if product not in menu:
                raise ScenarioError(f"{merchant_name} has no product {product!r}; products: {', '.join(menu)}.")
            if not isinstance(quantity, int) or isinstance(quantity, bool) or quantity < 1:
                raise ScenarioError(f"Invalid quantity {quantity!r} for {product!r}.")
            lines.append({"product": product, "quantity": quantity, "price_per_unit": menu[product]})
        if not lines:
            raise ScenarioError("An order needs items, each {'product': ..., 'quantity': ...}.")
        total = sum(line["quantity"] * line["price_per_unit"] for line in lines)
        if total > account["balance"]:
            raise ScenarioError(f"Insufficient balance: the order costs {total}, the balance is {account['balance']}.")
        account["balance"] -= total
        self.orders.append({"user_name": username, "merchant_name": merchant_name, "items": lines, "total_price": total})
        return {"status": True, "message": f"Order placed with {merchant_name}.", "total_price": total,
                "balance": account["balance"]}
