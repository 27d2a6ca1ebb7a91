"""The loop's two model-facing pieces over real MCP sessions: golden-replay cold-start data and the
before/after evaluation episode (a scripted model plays the golden calls)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_sdk import FunctionModel, read_jsonl
from mcp_servers import load_env
from astra_loop import cold_start_data, evaluate

pytestmark = pytest.mark.anyio


async def test_cold_start_data_replays_golden_calls_and_keeps_the_sft_rows(tmp_path: Path, train_envs: Path) -> None:
    sft = tmp_path / "judged.jsonl"
    sft.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}) + "\n")
    data = await cold_start_data(envs_dirs=[train_envs], sft_files=[sft, tmp_path / "absent.jsonl"], out_dir=tmp_path / "cold")
    assert (data.sft_rows, data.env_rows, data.skipped_envs) == (1, 2, [])
    rows = read_jsonl(data.path).values
    assert rows[0]["messages"][1]["content"] == "hello"
    for row in rows[1:]:
        spec = load_env(next(p for p in train_envs.iterdir() if load_env(p).spec.id == row["env_id"])).spec
        messages = row["messages"]
        assert [m["role"] for m in messages[:2]] == ["system", "user"] and messages[1]["content"] == spec.task.question
        calls = [m["tool_calls"][0]["function"] for m in messages if m.get("tool_calls")]
        golden = [s.golden_call for s in spec.subtasks if s.golden_call is not None]
        assert sorted(c["name"] for c in calls) == sorted(g.tool for g in golden)
        outputs = " ".join(m["content"] for m in messages if m["role"] == "tool")
        for s in spec.subtasks:
            if s.golden_call is not None:
                assert s.answer.casefold() in outputs.casefold()
        assert messages[-1] == {"role": "assistant", "content": spec.task.answer}
        assert {t["function"]["name"] for t in row["tools"]} == {t.name for t in spec.tools}


async def test_evaluate_scores_every_environment_with_f1(eval_envs: Path, golden: Callable[[Path], FunctionModel]) -> None:
    result = await evaluate(golden(eval_envs), eval_envs, label="base", target="scripted", max_turns=6, concurrency=2)
    assert [s.env for s in result.scores] == ["flight_gate", "weather_forecast"]
    assert all(s.reward == 1.0 and s.n_hat == s.n == s.c for s in result.scores)
    assert result.mean_reward == 1.0 and result.label == "base"


async def test_an_agent_that_never_calls_scores_zero(eval_envs: Path) -> None:
    silent = FunctionModel(lambda messages, tools, settings: "I do not know.")
    result = await evaluate(silent, eval_envs, label="trained", target="scripted", max_turns=6, concurrency=2)
    assert [(s.reward, s.c) for s in result.scores] == [(0.0, 0), (0.0, 0)]
