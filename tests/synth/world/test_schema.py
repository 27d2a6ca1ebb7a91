"""World validation: a bad schema gets an error naming the field; the JSON Schema is published."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from astra_cli import app
from synth.world import World, load_world_file


def _error(raw: dict) -> str:
    with pytest.raises(ValidationError) as exc:
        World.model_validate(raw)
    return str(exc.value)


def test_the_rental_world_validates(rental_raw):
    world = World.model_validate(rental_raw)
    assert [e.name for e in world.entities] == ["branch", "car", "rental"]
    assert [(c.name, f.name, p.name) for c, f, p in world.relations] == [("car", "branch_id", "branch"), ("rental", "plate", "car")]


def test_a_ref_to_an_unknown_entity_names_the_field(rental_raw):
    rental_raw["entities"][1]["fields"][5]["ref"] = "shop"
    message = _error(rental_raw)
    assert "entities[1].fields[5] (car.branch_id)" in message and "'shop'" in message


def test_an_enum_without_its_vocabulary_names_the_field(rental_raw):
    rental_raw["entities"][1]["fields"][2]["vocabulary"] = "classes"
    assert "car.car_class" in _error(rental_raw) and "'classes'" in _error(rental_raw)


def test_a_key_that_is_not_an_id_or_code_is_refused(rental_raw):
    rental_raw["entities"][0]["key"] = "city"
    assert "key 'city' must be of type id or code" in _error(rental_raw)


def test_a_label_missing_a_language_is_refused(rental_raw):
    rental_raw["entities"][0]["fields"][2]["label"] = {"en": "city"}
    assert "entities[0].fields[2].label: no label in 'zh'" in _error(rental_raw)


def test_an_english_label_in_a_chinese_world_is_refused(rental_raw):
    rental_raw["languages"] = ["zh"]
    rental_raw["entities"][0]["label"] = "branch"
    assert "entities[0].label: 'branch' is not Chinese" in _error(rental_raw)


def test_a_derived_quantity_over_a_wrong_field_is_refused(rental_raw):
    rental_raw["derived"][0]["field"] = "model"
    assert "derived[0] (rental_cost): product needs 'field', a numeric field" in _error(rental_raw)


def test_a_world_file_error_names_the_file_and_path(tmp_path, rental_raw):
    rental_raw["entities"][2]["fields"][2]["ref"] = "vehicle"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(rental_raw))
    with pytest.raises(ValueError, match=r"bad\.json: .*rental\.plate.*'vehicle'"):
        load_world_file(path)


def test_a_yaml_world_file_loads(tmp_path, rental_raw):
    import yaml

    path = tmp_path / "rental.yaml"
    path.write_text(yaml.safe_dump(rental_raw, allow_unicode=True))
    assert load_world_file(path) == World.model_validate(rental_raw)


def test_the_json_schema_is_published_by_the_cli():
    result = CliRunner().invoke(app, ["world", "schema"])
    assert result.exit_code == 0, result.output
    schema = json.loads(result.output)
    assert schema["title"] == "World" and {"entities", "derived", "vocabularies"} <= set(schema["properties"])
