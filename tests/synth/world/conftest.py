"""A small world every world test builds on: a rental shop in English and Chinese."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from synth.world import World, fill_rows

# The scripted proposals (`world_proposal`) are imported by name, here and by the loop's tests.
sys.path.insert(0, str(Path(__file__).parent))

RENTAL = {
    "name": "car_rental",
    "domain": "Car rental",
    "languages": ["en", "zh"],
    "seed": 7,
    "vocabularies": {
        "car_models": ["Toyota Corolla", "Honda Civic", "Ford Focus", "Tesla Model 3", "BMW X1", "Kia Rio", "Mazda CX-5", "VW Golf",
                       "Audi A4", "Nissan Leaf", "Hyundai i30", "Skoda Octavia"],
        "car_classes": ["economy", "compact", "SUV", "premium"],
        "rental_statuses": ["booked", "active", "returned", "cancelled"],
    },
    "entities": [
        {"name": "branch", "label": {"en": "branch", "zh": "门店"}, "key": "branch_id", "row_count": 6, "fields": [
            {"name": "branch_id", "label": {"en": "branch id", "zh": "门店编号"}, "type": "id"},
            {"name": "name", "label": {"en": "name", "zh": "名称"}, "type": "name", "faker": "street_name", "unique": True},
            {"name": "city", "label": {"en": "city", "zh": "城市"}, "type": "name", "faker": "city"},
            {"name": "opens_at", "label": {"en": "opening time", "zh": "开门时间"}, "type": "time"}]},
        {"name": "car", "label": {"en": "car", "zh": "汽车"}, "key": "plate", "row_count": 12, "fields": [
            {"name": "plate", "label": {"en": "plate", "zh": "车牌"}, "type": "code", "unique": True},
            {"name": "model", "label": {"en": "model", "zh": "车型"}, "type": "name", "vocabulary": "car_models", "unique": True},
            {"name": "car_class", "label": {"en": "class", "zh": "级别"}, "type": "enum", "vocabulary": "car_classes"},
            {"name": "daily_rate", "label": {"en": "daily rate", "zh": "日租金"}, "type": "money", "currency": "USD", "min": 25, "max": 180},
            {"name": "seats", "label": {"en": "seats", "zh": "座位数"}, "type": "integer", "unit": {"en": "seats", "zh": "座"}, "min": 2, "max": 7},
            {"name": "branch_id", "label": {"en": "branch", "zh": "门店"}, "type": "ref", "ref": "branch"}]},
        {"name": "rental", "label": {"en": "rental", "zh": "租车订单"}, "key": "rental_id", "row_count": 30, "fields": [
            {"name": "rental_id", "label": {"en": "rental id", "zh": "订单编号"}, "type": "id"},
            {"name": "customer", "label": {"en": "customer", "zh": "客户"}, "type": "name", "faker": "name"},
            {"name": "plate", "label": {"en": "car", "zh": "汽车"}, "type": "ref", "ref": "car"},
            {"name": "pickup", "label": {"en": "pickup date", "zh": "取车日期"}, "type": "date"},
            {"name": "dropoff", "label": {"en": "return date", "zh": "还车日期"}, "type": "date", "after": "pickup"},
            {"name": "price", "label": {"en": "price", "zh": "价格"}, "type": "money", "currency": "USD", "min": 40, "max": 900},
            {"name": "status", "label": {"en": "status", "zh": "状态"}, "type": "enum", "vocabulary": "rental_statuses"}]},
    ],
    "derived": [
        {"name": "rental_cost", "label": {"en": "rental cost", "zh": "租金"}, "kind": "product", "entity": "car", "field": "daily_rate",
         "argument": "days", "argument_label": {"en": "days", "zh": "天"}},
        {"name": "rental_count", "label": {"en": "number of rentals", "zh": "订单数"}, "kind": "count", "entity": "car", "child": "rental",
         "via": "plate", "unit": {"en": "rentals", "zh": "单"}},
        {"name": "rental_total", "label": {"en": "total rental price", "zh": "订单总价"}, "kind": "sum", "entity": "car", "child": "rental",
         "via": "plate", "field": "price"},
        {"name": "rental_days", "label": {"en": "rental length", "zh": "租期"}, "kind": "days_between", "entity": "rental", "field": "pickup",
         "field_to": "dropoff", "unit": {"en": "days", "zh": "天"}},
    ],
}  # fmt: skip


@pytest.fixture
def rental_raw() -> dict:
    """The rental world as a world file holds it (a fresh copy each test)."""
    import copy

    return copy.deepcopy(RENTAL)


@pytest.fixture
def rental() -> World:
    """The rental world with its rows filled from its seed."""
    return fill_rows(World.model_validate(RENTAL))
