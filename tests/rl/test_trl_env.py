"""TRL environment classes over a real arena (no model): tool methods, sessions, F1 reward."""

from __future__ import annotations

import json

import pytest

from rl.datasets import build_tasks
from rl.distractors import Distractor


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


def test_environment_rollout_calls_the_arena_and_scores(envs):
    from anyio.from_thread import start_blocking_portal

    from mcp_servers import ArenaServer, LocalSandbox, serve_app
    from rl.trl import environment_factories, f1_reward_func

    travel = next(e for e in envs if e.spec.domain == "travel")
    finance = next(e for e in envs if e.spec.domain == "finance")
    sampled = {travel.spec.id: [Distractor(env_id=finance.spec.id, name="get_stock_price", domain="finance", band="medium")]}
    (task,) = build_tasks([travel], sampled)
    by_id = {e.spec.id: e for e in envs}
    with start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(LocalSandbox()) as sandbox:
            serving, port = portal.start_task(serve_app, ArenaServer(envs, sandbox).app)
            try:
                factories = environment_factories([task], by_id, portal, f"http://127.0.0.1:{port}")
                env = factories[travel.spec.id]()
                methods = {name for name in dir(type(env)) if not name.startswith("_")}
                assert {"find_flights", "get_gate", "get_stock_price"} <= methods
                row = json.loads(json.dumps(task.trl_row()))
                row.pop("environment")
                env.reset(**row)
                assert "41.20" in env.get_stock_price(ticker="ACME")  # distractor served by its source env
                assert "LX2084" in env.find_flights(origin="ZRH", destination="OPO")
                assert "A52" in env.get_gate(flight_number="LX2084")
                assert env.get_gate(flight="x").startswith("Error")  # schema error becomes the tool message
                rewards = f1_reward_func(environments=[env])
                assert rewards == [pytest.approx(2 * 2 / (2 + 4))]
                assert env.last_reward.c == 4 and env.last_reward.n_hat == 2
                assert env.episode is None and env.episodes == 1 and env.calls == 4
                # a new rollout gets a fresh session and a fresh record
                env.reset(**row)
                assert f1_reward_func(environments=[env]) == [0.0]
            finally:
                serving.cancel()
