"""Each tool kind's results and errors, run as the environment's module runs them."""

from __future__ import annotations

import pytest

from synth.world import compile_tools, environment_code
from synth.world._build import run_module


@pytest.fixture
def tools(rental):
    compiled = compile_tools(rental, "en")
    return {t.spec.name: t for t in compiled}, run_module(environment_code(rental, "en", compiled))


def test_the_five_kinds_are_compiled(tools):
    compiled, _ = tools
    kinds = {name: t.kind for name, t in compiled.items()}
    assert kinds["get_car"] == "lookup" and kinds["search_cars"] == "search" and kinds["list_cars_by_branch"] == "follow"
    assert kinds["compute_rental_cost"] == "compute" and kinds["list_car_classes"] == "vocabulary"
    assert compiled["get_car"].spec.input_schema["required"] == ["car"]


def test_lookup_takes_the_key_or_the_name(rental, tools):
    _, ns = tools
    car = rental.entity("car").rows[0]
    by_key, by_name = ns["get_car"](car=car["plate"]), ns["get_car"](car=car["model"].upper())
    assert by_key == by_name and by_key["plate"] == car["plate"]
    assert by_key["daily_rate"] == f"USD {car['daily_rate']:.2f}" and by_key["seats"] == f"{car['seats']} seats"


def test_lookup_of_an_unknown_row_says_how_to_find_one(tools):
    _, ns = tools
    assert ns["get_car"](car="ZZ-0000") == {"error": "no car 'ZZ-0000'; find cars with search_cars"}
    assert ns["get_rental"](rental="R-1")["error"].startswith("no rental 'R-1'; find rentals with search_rentals")


def test_a_name_shared_by_two_rows_asks_for_an_id(rental):
    rows = rental.entity("branch").rows
    rows[1]["name"] = rows[0]["name"]
    compiled = compile_tools(rental, "en")
    ns = run_module(environment_code(rental, "en", compiled))
    error = ns["get_branch"](branch=rows[0]["name"])["error"]
    assert error.startswith(f"2 branches are named {rows[0]['name']!r} ({rows[0]['branch_id']}, {rows[1]['branch_id']})")


def test_search_filters_and_refuses_what_it_cannot_use(rental, tools):
    _, ns = tools
    cars = rental.entity("car").rows
    found = ns["search_cars"](car_class="economy")
    assert found["count"] == sum(c["car_class"] == "economy" for c in cars)
    assert {c["id"] for c in found["cars"]} == {c["plate"] for c in cars if c["car_class"] == "economy"}
    assert ns["search_cars"]()["error"].startswith("give at least one of:")
    assert ns["search_cars"](car_class="luxury")["error"] == "no class is 'luxury'; class values are: economy, compact, SUV, premium"


def test_follow_lists_the_rows_pointing_at_a_parent(rental, tools):
    _, ns = tools
    car = rental.entity("car").rows[3]
    listed = ns["list_rentals_by_plate"](car=car["model"])
    assert listed["plate"] == car["plate"]
    assert {r["id"] for r in listed["rentals"]} == {r["rental_id"] for r in rental.entity("rental").rows if r["plate"] == car["plate"]}


def test_compute_kinds(rental, tools):
    _, ns = tools
    car = rental.entity("car").rows[2]
    mine = [r for r in rental.entity("rental").rows if r["plate"] == car["plate"]]
    assert ns["compute_rental_cost"](car=car["plate"], days=3)["rental_cost"] == f"USD {car['daily_rate'] * 3:.2f}"
    assert ns["compute_rental_count"](car=car["plate"])["rental_count"] == f"{len(mine)} rentals"
    assert ns["compute_rental_total"](car=car["plate"])["rental_total"] == f"USD {sum(r['price'] for r in mine):.2f}"
    assert ns["compute_rental_cost"](car=car["plate"], days="many")["error"] == "days must be a number, not 'many'"
    import datetime as dt

    r = rental.entity("rental").rows[0]
    days = (dt.date.fromisoformat(r["dropoff"]) - dt.date.fromisoformat(r["pickup"])).days
    assert ns["compute_rental_days"](rental=r["rental_id"])["rental_days"] == f"{days} days"


def test_vocabulary_lists_its_values(tools):
    _, ns = tools
    assert ns["list_rental_statuses"]() == {"rental_statuses": ["booked", "active", "returned", "cancelled"]}


def test_chinese_descriptions_and_errors(rental):
    compiled = compile_tools(rental, "zh")
    by_name = {t.spec.name: t for t in compiled}
    assert by_name["get_car"].spec.description.startswith("按编号或名称查询一个汽车：")
    assert by_name["search_cars"].spec.description.startswith("筛选车型、级别、座位数等于给定值的全部汽车")
    ns = run_module(environment_code(rental, "zh", compiled))
    assert ns["get_car"](car="ZZ-0000") == {"error": "没有汽车“ZZ-0000”；可用 search_cars 查找汽车"}
    car = rental.entity("car").rows[0]
    assert ns["get_car"](car=car["plate"])["seats"] == f"{car['seats']}座"
