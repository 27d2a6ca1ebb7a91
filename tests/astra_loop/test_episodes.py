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
from astra_loop.evaluate import EvalProtocol

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


async def test_evaluate_plays_k_seeded_episodes_per_environment(eval_envs: Path, golden: Callable[[Path], FunctionModel]) -> None:
    model = golden(eval_envs)
    result = await evaluate(model, eval_envs, label="base", target="scripted", max_turns=6, concurrency=2)
    seeds = [1000, 1001, 1002, 1003]
    assert [(s.env, s.seed) for s in result.scores] == [(e, seed) for e in ("flight_gate", "weather_forecast") for seed in seeds]
    assert all(s.reward == 1.0 and s.n_hat == s.n == s.c and s.recall == 1.0 and s.answer_correct == 1.0 for s in result.scores)
    assert {(r.settings.seed, r.settings.temperature, r.settings.top_p) for r in model.requests} == {(s, 0.6, 0.95) for s in seeds}
    assert result.mean_reward == 1.0 and result.label == "base"
    assert result.interval("recall").text() == "1.000 [1.000, 1.000]"
    greedy = await evaluate(golden(eval_envs), eval_envs, label="base", target="scripted", max_turns=6, concurrency=2, protocol=EvalProtocol.greedy())
    assert [(s.env, s.seed) for s in greedy.scores] == [("flight_gate", None), ("weather_forecast", None)], "greedy plays once"


async def test_answer_correctness_is_the_share_of_values_stated(eval_envs: Path) -> None:
    from rl import answer_correctness
    from rl.reward import answer_values
    from synth.env._meaning import meaning_findings

    examples = Path(__file__).parents[2] / "examples" / "envs"
    assert answer_values(load_env(examples / "zh_hospital").spec) == ["王志远", "赵海峰"]
    assert answer_values(load_env(examples / "company_facts").spec) == ["Priya Raman", "Lagos", "12,705"]
    assert answer_correctness("父亲挂神经内科，医生是王志远。", load_env(examples / "zh_hospital").spec) == 0.5, "CJK matches anywhere"
    assert answer_correctness("Priya Raman runs it from Lagos with 12705 staff.", load_env(examples / "company_facts").spec) == 1.0
    for path in (examples / "zh_hospital", examples / "company_facts", eval_envs / "flight_gate"):
        spec = load_env(path).spec
        values = answer_values(spec)
        assert values and meaning_findings(spec) == []
        assert answer_correctness(spec.task.answer, spec) == 1.0
        assert answer_correctness(None, spec) == 0.0
        if len(values) > 1:
            assert answer_correctness(f"It is {values[0]}.", spec) == pytest.approx(1 / len(values))
    spec = load_env(eval_envs / "flight_gate").spec
    assert answer_correctness(f"Your gate is {spec.task.answer.lower()}.", spec) == 1.0, "matched as verify matches answers"


async def test_an_agent_that_never_calls_scores_zero(eval_envs: Path) -> None:
    silent = FunctionModel(lambda messages, tools, settings: "I do not know.")
    result = await evaluate(silent, eval_envs, label="trained", target="scripted", max_turns=6, concurrency=2)
    assert [(s.reward, s.c, s.answer_correct) for s in result.scores] == [(0.0, 0, 0.0)] * 8


async def test_distractors_are_offered_and_calls_to_them_count(eval_envs: Path, golden: Callable[[Path], FunctionModel]) -> None:
    model = golden(eval_envs)
    result = await evaluate(model, eval_envs, label="base", target="scripted", max_turns=6, concurrency=2, distractors=1, protocol=EvalProtocol.greedy())
    specs = {load_env(p).spec.task.question: load_env(p).spec for p in eval_envs.iterdir()}
    for request in model.requests:
        spec = specs[next(m.content for m in request.messages if m.role == "user")]
        names = [t["function"]["name"] for t in request.tools]
        assert set(names) > {t.name for t in spec.tools}, "its own tools and the other environment's as distractors"
    assert result.distractors == 1
    assert all(s.reward == 1.0 for s in result.scores)
