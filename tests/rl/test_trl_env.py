"""TRL environment classes over a real arena (no model): tool methods, sessions, F1 reward, repairs."""

from __future__ import annotations

import inspect
import json
from contextlib import contextmanager

import pytest

from rl.datasets import build_tasks
from rl.distractors import Distractor


def trl_tool_names(env) -> set[str]:
    """The tools GRPOTrainer offers for an environment instance (its rule, trl 1.16 `GRPOTrainer.__init__`)."""
    return {
        name
        for name, _ in inspect.getmembers(type(env), predicate=inspect.isfunction)
        if name not in ("reset", "get_reward") and not name.startswith("_")
    }


def travel_task(envs):
    travel = next(e for e in envs if e.spec.domain == "travel")
    finance = next(e for e in envs if e.spec.domain == "finance")
    sampled = {travel.spec.id: [Distractor(env_id=finance.spec.id, name="get_stock_price", domain="finance", band="medium")]}
    (task,) = build_tasks([travel], sampled)
    return travel, task


@contextmanager
def travel_env(envs):
    """A fresh environment instance for the travel task, reset against a real in-process arena."""
    from anyio.from_thread import start_blocking_portal

    from mcp_servers import ArenaServer, LocalSandbox, serve_app
    from rl.trl import environment_factories

    travel, task = travel_task(envs)
    by_id = {e.spec.id: e for e in envs}
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(LocalSandbox()) as sandbox:
        serving, port = portal.start_task(serve_app, ArenaServer(envs, sandbox).app)
        try:
            env = environment_factories([task], by_id, portal, f"http://127.0.0.1:{port}")[travel.spec.id]()
            row = json.loads(json.dumps(task.trl_row()))
            row.pop("environment")
            env.reset(**row)
            yield env, row
        finally:
            serving.cancel()


def test_tool_method_schema_reads_like_the_mcp_schema(envs):
    from transformers.utils import get_json_schema

    from rl.trl import tool_method

    weather = next(e for e in envs if e.spec.domain == "weather")
    method = tool_method(weather.spec.tool("get_uv_index"))
    schema = get_json_schema(method)["function"]
    assert schema["name"] == "get_uv_index"
    params = schema["parameters"]
    assert params["required"] == ["city", "days"]
    assert params["properties"]["city"]["type"] == "string"
    assert params["properties"]["days"]["type"] == "array"
    assert '"items"' in params["properties"]["days"]["description"]  # nested schema kept for the model


def test_the_environment_offers_exactly_its_tools(envs):
    from rl.trl import McpToolEnv, env_class

    travel, _ = travel_task(envs)
    finance = next(e for e in envs if e.spec.domain == "finance")
    env = env_class(travel, [finance.spec.tool("get_stock_price")])(portal=None, arena_url="http://unused")
    assert trl_tool_names(env) == {"find_flights", "get_gate", "get_stock_price"}
    # nothing else public on the instance either (scoring and counters are private), and the base offers nothing
    assert {name for name in dir(env) if not name.startswith("_")} == {"find_flights", "get_gate", "get_stock_price", "reset"}
    assert trl_tool_names(McpToolEnv(portal=None, arena_url="http://unused")) == set()


def test_environment_rollout_calls_the_arena_and_scores(envs):
    from rl.trl import env_stats, f1_reward_func

    metrics: dict[str, float] = {}
    with travel_env(envs) as (env, row):
        assert "41.20" in env.get_stock_price(ticker="ACME")  # distractor served by its source env
        assert "LX2084" in env.find_flights(origin="ZRH", destination="OPO")
        assert "A52" in env.get_gate(flight_number="LX2084")
        assert env.get_gate(flight="x").startswith("Error")  # schema error becomes the tool message
        rewards = f1_reward_func(environments=[env], log_metric=metrics.__setitem__)
        assert rewards == [pytest.approx(2 * 2 / (2 + 4))]
        assert metrics["f1/calls"] == 4 and metrics["f1/solved"] == 2 and metrics["tools/parsed_calls"] == 4
        assert metrics["tools/argument_repairs"] == 0
        assert env_stats(env).episodes == 1 and env_stats(env).calls == 4
        assert env.find_flights(origin="ZRH", destination="OPO").startswith("Error: no open episode")
        # a new rollout gets a fresh session and a fresh record
        env.reset(**row)
        assert f1_reward_func(environments=[env]) == [0.0]
        assert env_stats(env).episodes == 2


def test_parsed_calls_reach_the_arena_with_their_repairs_counted(envs):
    """The chain TRL runs: generated text -> our response parser -> the tool method (as TRL calls it) -> the episode."""
    from rl.trl import ResponseParser, env_stats, f1_reward_func

    turns = [
        '{"name": "find_flights", "arguments": {"origin": "ZRH", "destination": "OPO"}}',
        "```json\n{\"name\": \"get_gate\", \"arguments\": {'flight_number': 'LX2084',}}\n```",
        '<tool_call>\n{"name": "get_gate", "arguments": ??}\n</tool_call>',
    ]
    parser = ResponseParser(tokenizer=None, known_tools={"find_flights", "get_gate", "get_stock_price"})
    metrics: dict[str, float] = {}
    with travel_env(envs) as (env, _):
        observations = []
        for text in turns:
            for call in parser(text)["tool_calls"]:
                function = call["function"]
                observations.append(getattr(env, function["name"])(**function["arguments"]))
        assert "LX2084" in observations[0] and "A52" in observations[1]
        assert observations[2].startswith("Error: the arguments of 'get_gate' are not a JSON object")
        rewards = f1_reward_func(environments=[env], log_metric=metrics.__setitem__)
    # the unparsable call still counts: n=2 solved with c=3 calls
    assert rewards == [pytest.approx(2 * 2 / (2 + 3))]
    assert (metrics["tools/parsed_calls"], metrics["tools/argument_repairs"], metrics["tools/unparsable_arguments"]) == (3, 2, 1)
    stats = env_stats(env)
    assert (stats.calls, stats.argument_repairs, stats.unparsable_arguments) == (3, 2, 1)
