"""`McpEpisode` over a real arena: one session entered with `async with`, arguments repaired as the agent repairs them,
every call and repair on the trajectory, the F1 reward."""

from __future__ import annotations

import anyio
import pytest

from agent_sdk import ArgumentRepair
from mcp_servers import ArenaServer, LocalSandbox, serve_app
from rl._episode import McpEpisode
from rl.datasets import build_tasks

pytestmark = pytest.mark.anyio


async def test_argument_text_is_repaired_and_every_repair_is_recorded(envs):
    travel = next(e for e in envs if e.spec.domain == "travel")
    (task,) = build_tasks([travel], {})
    noted = ArgumentRepair(call_id="c9", tool="get_gate", raw="{flight_number: 'LX2084'}", fixes=["unquoted_keys", "single_quotes"])
    async with LocalSandbox() as sandbox, anyio.create_task_group() as tg:
        port = await tg.start(serve_app, ArenaServer(envs, sandbox).app)
        with anyio.fail_after(120):
            async with McpEpisode(f"http://127.0.0.1:{port}", task) as episode:
                # text as a veRL parser hands it over: single quotes and a trailing comma, repaired here
                flights = await episode.call("find_flights", "{'origin': 'ZRH', 'destination': 'OPO',}", turn=1)
                # a dict a parser already repaired, with the repair it reports
                gate = await episode.call("get_gate", {"flight_number": "LX2084"}, turn=2, repair=noted)
                clean = await episode.call("get_gate", '{"flight_number": "TP945"}', turn=3)
                broken = await episode.call("get_gate", "{{{ not json", turn=3)
                parts = episode.reward()
                trajectory = episode.trajectory()
        tg.cancel_scope.cancel()
    assert "LX2084" in flights and "A52" in gate and "E31" in clean
    first, second, third, fourth = episode.records
    assert first.call.arguments == {"origin": "ZRH", "destination": "OPO"}
    assert first.call.raw_arguments == "{'origin': 'ZRH', 'destination': 'OPO',}"
    assert first.repair is not None and first.repair.fixes == ["single_quotes", "trailing_commas"] and first.repair.ok
    assert second.repair == noted and second.call.id == "c9" and second.call.raw_arguments == noted.raw
    assert third.repair is None
    # unrepairable text: the agent's error message, an isError-like result, and still a call
    assert fourth.repair is not None and not fourth.repair.ok
    assert broken == "Error: " + fourth.repair.failure_message()
    assert not fourth.result.ok and fourth.result.error_kind == "bad_arguments"
    assert [r.call_id for r in trajectory.repairs] == [first.call.id, "c9", fourth.call.id]
    assert (parts.n, parts.n_hat, parts.c) == (2, 2, 4)


async def test_an_episode_records_every_call_and_scores_them(envs):
    travel = next(e for e in envs if e.spec.domain == "travel")
    (task,) = build_tasks([travel], {})
    async with LocalSandbox() as sandbox, anyio.create_task_group() as tg:
        port = await tg.start(serve_app, ArenaServer(envs, sandbox).app)
        # Generous limits: a sandbox worker's first call is slow on a loaded machine.
        episode = McpEpisode(f"http://127.0.0.1:{port}", task, call_timeout_s=120, connect_timeout_s=120)
        async with episode:
            assert sorted(t["function"]["name"] for t in episode.tools) == ["find_flights", "get_gate"]
            flights = await episode.call("find_flights", '{"origin": "ZRH", "destination": "OPO"}', turn=1, call_id="a")
            refused = await episode.call("get_gate", "[1, 2]", turn=2)
            gate = await episode.call("get_gate", {"flight_number": "LX2084"}, turn=2)
            parts = episode.reward()
        tg.cancel_scope.cancel()
    assert "LX2084" in flights and "A52" in gate and refused.startswith("Error")
    rows = [(r.turn, r.call.id, r.call.name, r.result.ok, r.result.error_kind) for r in episode.records]
    assert rows == [(1, "a", "find_flights", True, None), (2, "call_1", "get_gate", False, "bad_arguments"),
                    (2, "call_2", "get_gate", True, None)]  # fmt: skip
    assert episode.records[1].call.raw_arguments == "[1, 2]"
    assert (parts.n, parts.n_hat, parts.c) == (2, 2, 3)
    assert episode.tools == []  # closed: the session is gone
