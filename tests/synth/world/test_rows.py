"""Rows from code: the same seed gives the same rows; references resolve; Chinese worlds get Chinese names."""

from __future__ import annotations

import re

from synth.world import World, fill_rows


def test_the_same_seed_gives_the_same_rows(rental_raw):
    assert fill_rows(World.model_validate(rental_raw)) == fill_rows(World.model_validate(rental_raw))


def test_another_seed_gives_other_rows(rental_raw):
    a = fill_rows(World.model_validate(rental_raw))
    rental_raw["seed"] = 8
    b = fill_rows(World.model_validate(rental_raw))
    assert a.entity("rental").rows != b.entity("rental").rows


def test_rows_follow_the_schema(rental):
    cars = rental.entity("car").rows
    plates = {c["plate"] for c in cars}
    assert len(plates) == len(cars) == 12
    assert all(25 <= c["daily_rate"] <= 180 and 2 <= c["seats"] <= 7 and isinstance(c["seats"], int) for c in cars)
    assert len({c["model"] for c in cars}) == 12
    branches = {b["branch_id"] for b in rental.entity("branch").rows}
    assert all(c["branch_id"] in branches for c in cars)
    rentals = rental.entity("rental").rows
    assert all(r["plate"] in plates and r["pickup"] < r["dropoff"] for r in rentals)
    assert all(re.fullmatch(r"\d{2}:\d{2}", b["opens_at"]) for b in rental.entity("branch").rows)


def test_a_chinese_world_gets_chinese_names(rental_raw):
    rental_raw["languages"] = ["zh"]
    for e in rental_raw["entities"]:
        e["label"] = e["label"]["zh"]
        for f in e["fields"]:
            f["label"] = f["label"]["zh"]
            if isinstance(f.get("unit"), dict):
                f["unit"] = f["unit"]["zh"]
    for d in rental_raw["derived"]:
        for k in ("label", "argument_label", "unit"):
            if isinstance(d.get(k), dict):
                d[k] = d[k]["zh"]
    world = fill_rows(World.model_validate(rental_raw))
    assert all(re.search(r"[\u4e00-\u9fff]", r["customer"]) for r in world.entity("rental").rows)
