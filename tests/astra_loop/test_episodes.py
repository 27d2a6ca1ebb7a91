"""The loop's two model-facing pieces over real MCP sessions: golden-replay cold-start data (`rl.cold_start`'s)
and the before/after evaluation episode (a scripted model plays the golden calls)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest

from agent_sdk import DEFAULT_SYSTEM_PROMPT, FunctionModel, Toolbox, read_jsonl
from astra_loop import cold_start_data, evaluate
from astra_loop.evaluate import EvalProtocol
from mcp_servers import golden_order, load_env
from rl import DistractorConfig, Embedder, final_answer_message, prepare

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def embedder(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    """The packaged embedding model, loaded once for this module's distractor sampling."""
    return Embedder(cache_dir=tmp_path_factory.mktemp("emb"))


async def test_cold_start_rows_are_rl_cold_starts_episodes_as_evaluation_plays_them(
    tmp_path: Path, eval_envs: Path, golden: Callable[[Path], FunctionModel], embedder: Embedder
) -> None:
    """The loop's cold-start rows are `rl.cold_start`'s golden replays: the evaluation's system prompt and
    tool set (distractors included), arguments as objects; judged rows come first, in the same format."""
    judged = tmp_path / "judged.jsonl"
    call = {"id": "c0", "type": "function", "function": {"name": "lookup", "arguments": '{"q": "hi"}'}}
    judged.write_text(json.dumps({"messages": [
        {"role": "user", "content": "hi"}, {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c0", "content": "hello"}, {"role": "assistant", "content": "hello"}]}) + "\n")
    distractors = DistractorConfig(mode="banded", per_band=1)
    data = await cold_start_data(envs_dirs=[eval_envs], sft_files=[judged, tmp_path / "absent.jsonl"], out_dir=tmp_path / "cold",
                                 distractors=distractors, embedder=embedder)
    assert (data.sft_rows, data.env_rows, data.skipped_envs, data.rejection_reasons) == (1, 2, [], {})
    assert data.distractors_per_env > 0
    rows = read_jsonl(data.path).values
    assert rows[0]["messages"][1]["tool_calls"][0]["function"]["arguments"] == {"q": "hi"}, "judged rows leave in the one format too"
    assert rows[1:] == read_jsonl(tmp_path / "cold" / "envs" / "sft.jsonl").values, "the replays are rl.cold_start's rows"

    # The evaluation with the same distractors offered: what its model is sent is what the rows hold.
    model = golden(eval_envs)
    await evaluate(model, eval_envs, label="base", target="scripted", max_turns=6, concurrency=2, distractors=1,
                   protocol=EvalProtocol.greedy(), embedder=embedder)
    sent = {next(m.content for m in r.messages if m.role == "user"): r for r in model.requests}
    specs = {s.task.question: s for s in (load_env(p).spec for p in eval_envs.iterdir())}
    for row in rows[1:]:
        messages = row["messages"]
        request, spec = sent[messages[1]["content"]], specs[messages[1]["content"]]
        assert messages[0] == {"role": "system", "content": DEFAULT_SYSTEM_PROMPT} == {"role": "system", "content": request.messages[0].content}
        names = [t["function"]["name"] for t in row["tools"]]
        assert names == [t["function"]["name"] for t in request.tools], "the tool set the evaluation offers"
        assert set(names) > {t.name for t in spec.tools}, "the environment's tools and its distractors"
        calls = [c for m in messages if m.get("tool_calls") for c in m["tool_calls"]]
        assert all(isinstance(c["function"]["arguments"], dict) for c in calls)
        assert [c["function"]["name"] for c in calls] == [s.golden_call.tool for s in golden_order(spec)]
        assert messages[-1] == {"role": "assistant", "content": final_answer_message(spec)}


async def test_cold_start_rows_replay_against_the_environments_tools(tmp_path: Path, train_envs: Path, embedder: Embedder) -> None:
    """Every call of a cold-start row validates against the tool it names and, made again on a fresh
    session of the environment, returns the tool message the row holds; the distractors are GRPO's."""
    distractors = DistractorConfig(mode="banded", per_band=1, seed=3)
    data = await cold_start_data(envs_dirs=[train_envs], sft_files=[], out_dir=tmp_path / "cold", distractors=distractors, embedder=embedder)
    assert (data.sft_rows, data.env_rows) == (0, 2)
    prepare(train_envs, tmp_path / "rl", seed=3, distractors=distractors, embedder=embedder)
    grpo = json.loads((tmp_path / "rl" / "distractors.json").read_text())
    envs = {load_env(p).spec.task.question: p for p in train_envs.iterdir()}
    for row in read_jsonl(data.path).values:
        env_dir = envs[row["messages"][1]["content"]]
        spec = load_env(env_dir).spec
        schemas = {t["function"]["name"]: t["function"]["parameters"] for t in row["tools"]}
        assert list(schemas) == [t.name for t in spec.tools] + [d["name"] for d in grpo[spec.id]], "GRPO's distractors"
        async with Toolbox(env_dir) as toolbox:
            replayed = 0
            for i, message in enumerate(row["messages"]):
                for call in message.get("tool_calls") or []:
                    name, arguments = call["function"]["name"], call["function"]["arguments"]
                    assert spec.tool(name) is not None, f"{name} is one of the environment's tools"
                    jsonschema.validate(arguments, schemas[name])
                    result = await toolbox.call_tool(name, arguments)
                    assert result.ok and row["messages"][i + 1] == {"role": "tool", "tool_call_id": call["id"], "name": name, "content": result.text}
                    replayed += 1
        assert replayed == len(golden_order(spec)) > 0


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
