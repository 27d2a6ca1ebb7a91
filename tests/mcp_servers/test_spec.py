import json
from pathlib import Path

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from astra_cli import app
from mcp_servers import EnvLoadError, EnvSpec, compute_env_id, find_envs, load_env


def _spec_dict(env) -> dict:
    return env.spec.model_dump(mode="json")


def test_load_round_trip(counter_dir: Path, counter_env) -> None:
    loaded = load_env(counter_dir)
    assert loaded.spec == counter_env.spec
    assert loaded.code == counter_env.code
    assert find_envs(counter_dir) == [counter_dir]
    assert find_envs(counter_dir.parent) == [counter_dir]


def test_id_is_content_derived(counter_env) -> None:
    data = _spec_dict(counter_env)
    assert compute_env_id(data, counter_env.code) == counter_env.spec.id
    assert compute_env_id(data, counter_env.code + "\n# changed") != counter_env.spec.id


def test_malformed_json_names_file_and_line(counter_dir: Path) -> None:
    (counter_dir / "env.json").write_text('{\n  "id": "env-1",\n  oops\n}')
    with pytest.raises(EnvLoadError) as err:
        load_env(counter_dir)
    assert str(counter_dir / "env.json") in str(err.value)
    assert "line 3" in str(err.value)


@pytest.mark.parametrize(
    ("mutate", "field", "problem"),
    [
        (lambda d: d["tools"][0].update(input_schema={"type": "object", "properties": {"x": {"type": "nope"}}}), "tools.0.input_schema", "not a valid JSON Schema"),
        (lambda d: d["tools"][0].update(input_schema={"type": "string"}), "tools.0.input_schema", "type"),
        (lambda d: d["tools"][1].update(name="add"), "(root)", "duplicate tool names: add"),
        (lambda d: d["tools"][0].update(name="not-an-identifier"), "tools.0.name", "not a valid Python identifier"),
        (lambda d: d["subtasks"][0].update(depends_on=["missing"]), "(root)", "unknown subtask"),
        (lambda d: d["subtasks"][0]["golden_call"].update(arguments={"amount": "many"}), "(root)", "golden_call arguments invalid"),
        (lambda d: d["subtasks"][0]["golden_call"].update(tool="nope"), "(root)", "unknown tool"),
        (lambda d: d["task"].update(scenario="zigzag"), "task.scenario", "Input should be"),
        (lambda d: d.pop("domain"), "domain", "Field required"),
    ],
)
def test_bad_env_json_names_field_and_problem(counter_dir: Path, counter_env, mutate, field, problem) -> None:
    data = _spec_dict(counter_env)
    mutate(data)
    (counter_dir / "env.json").write_text(json.dumps(data))
    with pytest.raises(EnvLoadError) as err:
        load_env(counter_dir)
    message = str(err.value)
    assert message.startswith(str(counter_dir / "env.json"))
    assert field in message and problem in message


def test_cycles_and_non_leaf_without_tool_are_rejected(counter_env) -> None:
    data = _spec_dict(counter_env)
    data["subtasks"] = [
        {"id": "a", "question": "q", "answer": "x1", "depends_on": ["b"], "golden_call": {"tool": "add", "arguments": {}}},
        {"id": "b", "question": "q", "answer": "x2", "depends_on": ["a"], "golden_call": {"tool": "add", "arguments": {}}},
    ]
    with pytest.raises(ValidationError, match="cycle: a -> b -> a|cycle: b -> a -> b"):
        EnvSpec.model_validate(data)
    data["subtasks"] = [
        {"id": "a", "question": "q", "answer": "x1", "needs_tool": False},
        {"id": "b", "question": "q", "answer": "x2", "depends_on": ["a"], "golden_call": {"tool": "add", "arguments": {}}},
    ]
    with pytest.raises(ValidationError, match="'a' has dependents"):
        EnvSpec.model_validate(data)


def test_missing_entry_module(counter_dir: Path) -> None:
    (counter_dir / "tools.py").unlink()
    with pytest.raises(EnvLoadError, match="entry: module file .*tools.py not found"):
        load_env(counter_dir)


def test_schema_command_prints_json_schema() -> None:
    result = CliRunner().invoke(app, ["env", "schema"])
    assert result.exit_code == 0
    schema = json.loads(result.output)
    assert schema["title"] == "EnvSpec"
    assert {"id", "task", "subtasks", "tools", "limits"} <= set(schema["properties"])
