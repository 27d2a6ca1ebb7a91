"""Cold start from verified environments: golden replay over real MCP, rejection sampling, mixing, CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from typer.testing import CliRunner

from agent_sdk import (
    DEFAULT_SYSTEM_PROMPT,
    ChatMessage,
    FunctionModel,
    ModelError,
    SamplingSettings,
    Toolbox,
    ToolCall,
    Usage,
    read_jsonl,
    read_sft_parquet,
)
from astra_cli import app
from mcp_servers import (
    LocalSandbox,
    answer_in_output,
    build_env_server,
    golden_levels,
    golden_order,
    load_env,
    load_envs,
)
from rl import DistractorConfig, Embedder, sample_distractors
from rl.cold_start import ColdStartConfig, cold_start, final_answer_message
from rl.sft_files import mix_sft, read_sft_file

pytestmark = pytest.mark.anyio

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ENVS = EXAMPLES / "envs"
# Parallel single-hop (three calls), multi-hop (two calls, the second needs the first) and
# parallel multi-hop (four calls, each second hop right after its first: golden_order).
GOLDEN_ENVS = [ENVS / "company_facts", ENVS / "flight_gate", ENVS / "order_items"]


def _rows(path: Path) -> list[dict[str, Any]]:
    return read_jsonl(path).values


@pytest.fixture(scope="module")
def embedder(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    """The packaged embedding model, loaded once for this module's distractor sampling."""
    return Embedder(cache_dir=tmp_path_factory.mktemp("emb"))


async def _tools_and_outputs(env_dir: Path, sandbox: LocalSandbox) -> tuple[list[dict[str, Any]], list[str]]:
    """What a fresh MCP session lists and returns for the golden calls, in golden order."""
    env = load_env(env_dir)
    async with Toolbox(build_env_server(env, sandbox)) as toolbox:
        outputs = []
        for subtask in golden_order(env.spec):
            assert subtask.golden_call is not None
            result = await toolbox.call_tool(subtask.golden_call.tool, subtask.golden_call.arguments)
            assert result.ok, result
            outputs.append(result.text)
        return toolbox.openai_tools(), outputs


def test_golden_levels_group_independent_calls():
    waves = {d.name: [[s.id for s in wave] for wave in golden_levels(load_env(d).spec)] for d in ENVS.iterdir()}
    assert waves["flight_gate"] == [["flight"], ["gate"]]
    assert waves["company_facts"] == [["ceo", "hq", "staff"]]
    assert waves["order_items"] == [["sku_a", "sku_b"], ["name_a", "name_b"]]
    assert waves["nutrition_compare"] == [["lentils", "rice"]]  # `compare` needs no tool


async def test_golden_replay_records_real_outputs_in_the_export_format(tmp_path):
    out = tmp_path / "cold"
    async with LocalSandbox() as sandbox:
        with anyio.fail_after(300):
            stats = await cold_start(GOLDEN_ENVS, out, sandbox=sandbox)
            expected = [await _tools_and_outputs(d, sandbox) for d in GOLDEN_ENVS]
    assert (stats.envs_found, stats.envs_used, stats.skipped) == (3, 3, [])
    assert (stats.golden.planned, stats.golden.kept, stats.rows, stats.tool_calls) == (3, 3, 3, 3 + 2 + 4)
    rows = _rows(out / "sft.jsonl")
    for row, env_dir, (tools, outputs) in zip(rows, GOLDEN_ENVS, expected, strict=True):
        spec = load_env(env_dir).spec
        messages = row["messages"]
        assert messages[0] == {"role": "system", "content": DEFAULT_SYSTEM_PROMPT}
        assert messages[1] == {"role": "user", "content": spec.task.question}
        assert [t["function"]["name"] for t in row["tools"]] == [t["function"]["name"] for t in tools]
        assert [t["function"]["parameters"]["properties"] for t in row["tools"]] == [t["function"]["parameters"]["properties"] for t in tools]
        turns = [m for m in messages if m["role"] == "assistant" and m.get("tool_calls")]
        subtasks = golden_order(spec)
        assert [len(m["tool_calls"]) for m in turns] == [1] * len(subtasks), "one step at a time, as the system prompt asks"
        calls = [c for m in turns for c in m["tool_calls"]]
        assert [(c["function"]["name"], c["function"]["arguments"]) for c in calls] == [
            (s.golden_call.tool, s.golden_call.arguments) for s in subtasks if s.golden_call]  # objects, as chat templates render them
        tool_messages = [m for m in messages if m["role"] == "tool"]
        assert [m["content"] for m in tool_messages] == outputs  # the real outputs of a fresh session
        assert [m["tool_call_id"] for m in tool_messages] == [c["id"] for c in calls]
        assert all(answer_in_output(s.answer, m["content"]) for s, m in zip(subtasks, tool_messages, strict=True))
        assert messages[-1] == {"role": "assistant", "content": final_answer_message(spec)}
        assert spec.task.answer in messages[-1]["content"]

    import pyarrow.parquet as pq

    table = pq.read_table(out / "sft.parquet")
    assert table.num_rows == 3 and set(table.column_names) == {"messages", "tools"}
    assert [t.messages[-1].content for t in read_sft_parquet(out / "sft.parquet")] == [r["messages"][-1]["content"] for r in rows]
    openai_rows = _rows(out / "openai.jsonl")
    assert all(isinstance(c["function"]["arguments"], str) for r in openai_rows for m in r["messages"] for c in m.get("tool_calls", []))
    datasets = pytest.importorskip("datasets")
    loaded = datasets.load_dataset("parquet", data_files=str(out / "sft.parquet"), split="train")
    assert loaded[0]["messages"] == rows[0]["messages"]

    # A re-run resumes every record and writes the same files in the same order.
    before = (out / "sft.jsonl").read_bytes()
    async with LocalSandbox() as sandbox:
        with anyio.fail_after(300):
            again = await cold_start(GOLDEN_ENVS, out, sandbox=sandbox)
    assert again.resumed == 3 and (out / "sft.jsonl").read_bytes() == before


def flight_gate_agent() -> FunctionModel:
    """Plays flight_gate with the golden calls (seed 0) or with one redundant call (other seeds),
    and answers every other task without calling anything."""

    def reply(messages: list[ChatMessage], tools: Any, settings: SamplingSettings | None) -> ChatMessage | str:
        question = next(m.content or "" for m in messages if m.role == "user")
        done = [m for m in messages if m.role == "tool"]
        plan = [("find_flights", {"origin": "ZRH", "destination": "OPO", "date": "2025-09-03"}),
                ("get_flight_status", {"flight_number": "LX2084"})]
        if settings is not None and settings.seed:
            plan.insert(1, ("find_flights", {"origin": "ZRH", "destination": "OPO", "date": "2025-09-04"}))
        if "Porto (OPO)" in question and len(done) < len(plan):
            name, arguments = plan[len(done)]
            return ChatMessage(role="assistant", tool_calls=[ToolCall(id=f"c{len(done)}", name=name, arguments=arguments)])
        return "It leaves from gate A52." if done else "I do not know."

    return FunctionModel(reply, name="scripted-agent", reply_usage=Usage(prompt_tokens=10, completion_tokens=5, requests=1))


async def test_rejection_sampling_keeps_only_f1_one_and_skips_unverified_envs(tmp_path):
    out = tmp_path / "cold"
    paths = [ENVS / "flight_gate", ENVS / "weather_forecast", EXAMPLES / "broken" / "answer_missing"]
    config = ColdStartConfig(agent_samples=2, temperature=0.7)
    async with LocalSandbox() as sandbox:
        with anyio.fail_after(300):
            stats = await cold_start(paths, out, model=flight_gate_agent(), config=config, sandbox=sandbox)
    assert [(s.path, s.reason) for s in stats.skipped] == [(str((EXAMPLES / "broken" / "answer_missing").resolve()), "verify_failed")]
    assert "answer_missing" in stats.skipped[0].codes
    assert (stats.golden.kept, stats.agent.planned, stats.agent.kept, stats.agent.rejected) == (2, 4, 1, 3)
    assert stats.rejection_reasons == {"f1_below_1": 3} and stats.model == "scripted-agent"
    rejected = {r["id"]: r for r in _rows(out / "rejected.jsonl")}
    flight_id, weather_id = load_env(paths[0]).spec.id, load_env(paths[1]).spec.id
    assert set(rejected) == {f"{flight_id}/agent/1", f"{weather_id}/agent/0", f"{weather_id}/agent/1"}
    assert rejected[f"{flight_id}/agent/1"]["reward"] == pytest.approx(0.8)  # 2 of 2 solved in 3 calls
    rows = _rows(out / "sft.jsonl")
    flight, weather = load_env(paths[0]).spec, load_env(paths[1]).spec
    assert [r["messages"][-1]["content"] for r in rows] == [final_answer_message(flight), "It leaves from gate A52.", final_answer_message(weather)]
    kept = _rows(out / "trajectories.jsonl")
    assert {t["metadata"]["record_id"]: t["metadata"]["reward"]["reward"] for t in kept} == {
        f"{flight_id}/golden": 1.0, f"{flight_id}/agent/0": 1.0, f"{weather_id}/golden": 1.0}

    # Mixing with another export keeps the first copy of every conversation.
    other = tmp_path / "other.jsonl"
    other.write_text((out / "openai.jsonl").read_text().splitlines()[1] + "\n" + json.dumps({"messages": [
        {"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}) + "\n")
    report = mix_sft([out, other], tmp_path / "mixed")
    assert (report.rows, report.duplicates, report.kept) == (4, 1, {str(out): 3, str(other): 1})
    assert len(read_sft_file(tmp_path / "mixed" / "sft.parquet")) == 4


def test_cli_cold_start_and_mix(tmp_path):
    runner = CliRunner()
    out = tmp_path / "cold"
    result = runner.invoke(app, ["sft", "cold-start", "--envs", str(ENVS / "weather_forecast"), "--envs", str(ENVS / "flight_gate"),
                                 "--envs", str(EXAMPLES / "broken" / "crash"), "--out", str(out), "--distractors", "banded", "--per-band", "1"])
    assert result.exit_code == 0, result.output
    assert "skipped" in result.stderr and "verify_failed" in result.stderr
    stats = json.loads((out / "stats.json").read_text())
    assert (stats["envs_found"], stats["envs_used"], stats["rows"]) == (3, 2, 2) and stats["distractors_per_env"] > 0
    own = {load_env(ENVS / name).spec.task.question: {t.name for t in load_env(ENVS / name).spec.tools} for name in ("weather_forecast", "flight_gate")}
    assert all({t["function"]["name"] for t in r["tools"]} > own[r["messages"][1]["content"]] for r in _rows(out / "sft.jsonl"))
    mixed = runner.invoke(app, ["sft", "mix", str(out / "sft.jsonl"), str(out / "openai.jsonl"), "--out", str(tmp_path / "m")])
    assert mixed.exit_code == 0, mixed.output
    assert json.loads(mixed.stdout)["duplicates"] == 2
    missing = runner.invoke(app, ["sft", "mix", str(tmp_path / "nope.jsonl"), "--out", str(tmp_path / "m2")])
    assert missing.exit_code == 2 and "nope.jsonl" in missing.output
    nothing = runner.invoke(app, ["sft", "cold-start", "--envs", str(tmp_path / "empty"), "--out", str(out)])
    assert nothing.exit_code == 2 and "no environment" in nothing.output


def forecast_agent(broken: bool) -> FunctionModel:
    """Solves weather_forecast (sample 1 then answers wrongly); `broken` makes sample 0 raise and
    sample 1 fail as a model backend."""

    def reply(messages: list[ChatMessage], tools: Any, settings: SamplingSettings | None) -> ChatMessage | str | Exception:
        seed = settings.seed if settings is not None else 0
        if broken:
            return RuntimeError("connection reset") if seed == 0 else ModelError("server unavailable")
        if any(m.role == "tool" for m in messages):
            return "Sunny." if seed else "Light rain."
        call = ToolCall(id="c0", name="get_forecast", arguments={"city": "Oslo", "date": "2025-06-14"})
        return ChatMessage(role="assistant", tool_calls=[call])

    return FunctionModel(reply, name="forecast-agent")


async def test_failed_episodes_are_data_and_a_rerun_plays_them_again(tmp_path):
    out = tmp_path / "cold"
    config = ColdStartConfig(agent_samples=2)
    async with LocalSandbox() as sandbox:
        with anyio.fail_after(300):
            first = await cold_start([ENVS / "weather_forecast"], out, model=forecast_agent(broken=True), config=config, sandbox=sandbox)
            assert (first.golden.kept, first.agent.rejected, first.rows) == (1, 2, 1)
            assert first.rejection_reasons == {"episode_error": 1, "model_error": 1}
            checked = config.model_copy(update={"check_answer": True})
            second = await cold_start([ENVS / "weather_forecast"], out, model=forecast_agent(broken=False), config=checked, sandbox=sandbox)
    assert (second.resumed, second.agent.kept, second.rows) == (1, 1, 2)  # the golden replay resumed, both episodes played again
    assert second.rejection_reasons == {"wrong_answer": 1}  # F1 = 1, but it answered "Sunny."
    reasons = [json.loads(line)["reason"] for line in (out / "rejected.jsonl").read_text().splitlines()]
    assert reasons.count("episode_error") == reasons.count("model_error") == reasons.count("wrong_answer") == 1


def distractor_agent(envs: list[Path]) -> FunctionModel:
    """Calls the first distractor it is offered (with the arguments of its source environment's golden
    call), then plays the golden calls and answers."""
    specs = [load_env(d).spec for d in envs]
    golden_args = {s.golden_call.tool: s.golden_call.arguments for spec in specs for s in spec.subtasks if s.golden_call}

    def reply(messages: list[ChatMessage], tools: Any, settings: SamplingSettings | None) -> ChatMessage | str:
        spec = next(spec for spec in specs if spec.task.question == next(m.content for m in messages if m.role == "user"))
        distractor = next(t["function"]["name"] for t in tools if spec.tool(t["function"]["name"]) is None)
        plan = [(distractor, golden_args[distractor])] + [(s.golden_call.tool, s.golden_call.arguments) for s in golden_order(spec) if s.golden_call]
        done = sum(m.role == "tool" for m in messages)
        if done < len(plan):
            name, arguments = plan[done]
            return ChatMessage(role="assistant", tool_calls=[ToolCall(id=f"c{done}", name=name, arguments=arguments)])
        return spec.task.answer

    return FunctionModel(reply, name="distractor-agent")


async def test_distractors_are_offered_callable_counted_and_part_of_the_record(tmp_path, embedder):
    out = tmp_path / "cold"
    paths = [ENVS / "flight_gate", ENVS / "weather_forecast"]
    config = ColdStartConfig(agent_samples=1, distractors=DistractorConfig(mode="banded", per_band=1))
    expected = sample_distractors(load_envs(*paths), config.distractors, embedder=embedder)
    model = distractor_agent(paths)
    async with LocalSandbox() as sandbox:
        with anyio.fail_after(300):
            stats = await cold_start(paths, out, model=model, config=config, sandbox=sandbox, embedder=embedder)
    specs = {load_env(d).spec.task.question: load_env(d).spec for d in paths}
    assert stats.distractors_per_env == sum(map(len, expected.values())) / 2 > 0
    for row in _rows(out / "sft.jsonl"):
        spec = specs[row["messages"][1]["content"]]
        names = [t.name for t in spec.tools] + [d.name for d in expected[spec.id]]
        assert [t["function"]["name"] for t in row["tools"]] == names, "the environment's tools, then its distractors"
    kept = {t["metadata"]["record_id"]: t["metadata"]["distractors"] for t in _rows(out / "trajectories.jsonl")}
    assert kept == {f"{s.id}/golden": [d.ref for d in expected[s.id]] for s in specs.values()}
    # The agent's distractor call was served (its real output came back) and counted in c.
    for request in model.requests:
        first = next((m for m in request.messages if m.role == "tool"), None)
        assert first is None or not (first.content or "").startswith("Error"), first
    rejected = {r["id"]: r for r in _rows(out / "rejected.jsonl")}
    flight, weather = (load_env(d).spec for d in paths)
    assert {k: (r["reason"], r["reward"]) for k, r in rejected.items()} == {
        f"{flight.id}/agent/0": ("f1_below_1", pytest.approx(0.8)), f"{weather.id}/agent/0": ("f1_below_1", pytest.approx(2 / 3))}
    assert all(r["distractors"] == [d.ref for d in expected[r["env_id"]]] for r in rejected.values())

    # Without distractors the same records are other episodes: none resumes, the tools are the environment's.
    async with LocalSandbox() as sandbox:
        with anyio.fail_after(300):
            again = await cold_start(paths, out, config=ColdStartConfig(), sandbox=sandbox)
    assert (again.resumed, again.golden.kept, again.distractors_per_env) == (0, 2, 0.0)
    for row in _rows(out / "sft.jsonl"):
        assert [t["function"]["name"] for t in row["tools"]] == [t.name for t in specs[row["messages"][1]["content"]].tools]


def test_final_answers_are_framed_in_several_wordings_of_the_task_language():
    specs = [load_env(d).spec for d in sorted(ENVS.iterdir()) if (d / "env.json").is_file()]
    finals = [final_answer_message(spec) for spec in specs]
    assert all(spec.task.answer.lower() in final.lower() for spec, final in zip(specs, finals, strict=True))
    assert len({final.replace(spec.task.answer, "").replace(spec.task.answer[:1].lower() + spec.task.answer[1:], "")
                for spec, final in zip(specs, finals, strict=True)}) >= 3  # not one sentence for every task
    zh = specs[0].model_copy(update={"id": "zh-env", "task": specs[0].task.model_copy(update={"question": "这家诊所在哪个城市？", "answer": "巢湖县"})})
    assert "巢湖县" in final_answer_message(zh) and final_answer_message(zh) == final_answer_message(zh)
