import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import anyio
import pytest
from envscript import Crash, Script, doc

from agent_sdk import FunctionModel
from mcp_servers import load_env
from synth.env import SynthConfig, synthesize_envs

HERE = Path(__file__).parent

PARALLEL = json.dumps({
    "main_question": "What are the current temperatures in Paris and in Rome?",
    "final_answer": "Paris 18°C, Rome 24°C",
    "sub_questions": [
        {"id": "q1", "question": "What is the current temperature in Paris?", "answer": "18°C", "depends_on": []},
        {"id": "q2", "question": "What is the current temperature in Rome?", "answer": "24°C", "depends_on": []},
    ],
})
ROW = {"question": "What are the current temperatures in Paris and in Rome?", "domain": "weather"}


def merge_script(merged_calls: dict[str, dict] | None = None) -> Script:
    merged = {
        "tool": {"name": "city_weather", "description": "Current weather of a city.",
                 "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
        "golden_calls": merged_calls or {"q1": {"city": "Paris"}, "q2": {"city": "Rome"}},
    }
    others = json.dumps({"rows": [{"key": ["berlin"], "value": "12°C"}, {"key": ["madrid"], "value": "27°C"}, {"key": ["oslo"], "value": "9°C"}]},
                        ensure_ascii=False)
    return Script(
        decompose=[PARALLEL],
        docs={"q1": doc("get_city_weather", {"city": "string"}, {"city": "Paris"}), "q2": doc("weather_now", {"city": "string"}, {"city": "Rome"})},
        scale="{}",
        rows={"get_city_weather": [others], "weather_now": [others], "city_weather": [others]},
        groups='{"groups": [{"ids": ["q1", "q2"], "intent": "current weather of a city"}]}',
        merged=json.dumps(merged),
    )


async def run(out: Path, script: Script, sandbox, row=ROW, **cfg):
    inp = out.parent / "in.jsonl"  # one input path: seeds record it as provenance
    inp.write_text(json.dumps(row) + "\n")
    return await synthesize_envs(FunctionModel(script), out, inputs=[inp], config=SynthConfig(leak_audit=False, **cfg), sandbox=sandbox, show_progress=False)


@pytest.mark.anyio
async def test_same_intent_tools_merge_into_one_verified_tool(tmp_path, sandbox):
    result = await run(tmp_path / "out", merge_script(), sandbox)
    (record,) = result.envs
    assert record.scenario == "parallel_single_hop" and record.tools == 1
    assert "merged q1+q2 into city_weather" in record.notes
    env = load_env(tmp_path / "out" / record.path)
    assert [s.golden_call.arguments for s in env.spec.subtasks] == [{"city": "Paris"}, {"city": "Rome"}]


@pytest.mark.anyio
async def test_duplicates_whose_calls_fit_one_of_them_merge_into_it_without_asking(tmp_path, sandbox):
    # the teacher's merged documents for duplicates made a filter required and broke every member's call
    script = merge_script()
    script.docs = {"q1": doc("get_city_weather", {"city": "string"}, {"city": "Paris"}), "q2": doc("get_city_weather_2", {"city": "string"}, {"city": "Rome"})}
    script.rows["get_city_weather_2"] = script.rows["weather_now"]
    result = await run(tmp_path / "out", script, sandbox)
    (record,) = result.envs
    assert record.tools == 1 and "merged q1+q2 (duplicates) into get_city_weather" in record.notes
    assert not any(entry.startswith(("merged:", "groups:")) for entry in script.log), "neither a grouping nor a document is asked for"
    env = load_env(tmp_path / "out" / record.path)
    assert [s.golden_call.arguments for s in env.spec.subtasks] == [{"city": "Paris"}, {"city": "Rome"}]


@pytest.mark.anyio
async def test_a_merge_that_breaks_one_member_falls_back(tmp_path, sandbox):
    # q2's golden call takes a value its sub-question does not offer: the merged tool would not answer q2
    script = merge_script({"q1": {"city": "Paris"}, "q2": {"city": "Paris"}})
    result = await run(tmp_path / "out", script, sandbox, code_retries=1)
    (record,) = result.envs
    assert record.tools == 2
    assert any(n.startswith("merge_fallback q1+q2:") and "q2" in n for n in record.notes), record.notes
    assert script.log.count("rows:city_weather") == 0
    env = load_env(tmp_path / "out" / record.path)
    assert sorted(t.name for t in env.spec.tools) == ["get_city_weather", "weather_now"]


def snapshot(out: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(out)): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.is_file() and "cache" not in p.relative_to(out).parts and p.name != "stats.json"
    }


@pytest.mark.anyio
async def test_crash_and_resume_gives_identical_output(tmp_path, sandbox):
    await run(tmp_path / "ref", Script(), sandbox)
    with pytest.raises(BaseException) as info:
        await run(tmp_path / "crashed", Script(crash_on="rows:get_city_weather"), sandbox)
    assert info.group_contains(Crash) if isinstance(info.value, BaseExceptionGroup) else info.type is Crash
    assert not (tmp_path / "crashed" / "envs").exists()
    with open(tmp_path / "crashed" / "checks.jsonl", "a") as fh:
        fh.write('{"id": "s-torn", "half a rec')  # a record torn by the crash
    script = Script()
    await run(tmp_path / "crashed", script, sandbox)
    assert not any(entry.startswith(("decompose", "necessity", "check:")) for entry in script.log)  # done stages skipped
    assert snapshot(tmp_path / "crashed") == snapshot(tmp_path / "ref")


RUNNER = textwrap.dedent(
    """
    import sys, json, anyio
    from pathlib import Path
    sys.path.insert(0, {env_dir!r})
    from envscript import Script
    from agent_sdk import FunctionModel
    from synth.env import SynthConfig, synthesize_envs

    class Hang(Script):
        def __call__(self, messages, tools, settings):
            first = next(m.content for m in messages if m.role == "user")
            if "Its data table has rows for" in first and "get_city_weather" in first:
                Path({marker!r}).write_text("at code")
                return anyio.sleep_forever()
            return super().__call__(messages, tools, settings)

    async def main():
        await synthesize_envs(FunctionModel(Hang()), Path({out!r}), inputs=[Path({inp!r})],
                              config=SynthConfig(leak_audit=False), show_progress=False)

    anyio.run(main)
    """
)


@pytest.mark.anyio
async def test_kill_9_mid_pipeline_then_resume_gives_identical_output(tmp_path, sandbox):
    await run(tmp_path / "ref", Script(), sandbox)
    out, marker = tmp_path / "killed", tmp_path / "marker"
    inp = tmp_path / "in.jsonl"
    code = RUNNER.format(env_dir=str(HERE), marker=str(marker), out=str(out), inp=str(inp))
    proc = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    try:
        with anyio.fail_after(120):
            while not marker.exists():
                assert proc.poll() is None, "the pipeline exited before reaching the rows of a tool"
                await anyio.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert (out / "checks.jsonl").exists() and not (out / "assemble.jsonl").exists()
    script = Script()
    await run(out, script, sandbox)
    assert "decompose:" not in script.log
    assert snapshot(out) == snapshot(tmp_path / "ref")


@pytest.mark.anyio
async def test_stages_run_alone_then_the_rest_resumes_from_the_stores(tmp_path, sandbox):
    out = tmp_path / "out"
    inp = tmp_path / "in.jsonl"
    inp.write_text(json.dumps({"question": "What is the current temperature in the city where the Eiffel Tower stands?", "domain": "travel"}) + "\n")
    first = Script()
    partial = await synthesize_envs(FunctionModel(first), out, inputs=[inp], config=SynthConfig(leak_audit=False), stages=["decompose", "leak_audit"], sandbox=sandbox, show_progress=False)
    assert partial.envs == [] and first.log == ["decompose:"]
    assert (out / "leak_audit.jsonl").is_file() and not (out / "necessity.jsonl").exists()
    rest = Script()
    result = await synthesize_envs(FunctionModel(rest), out, config=SynthConfig(leak_audit=False), sandbox=sandbox, show_progress=False)
    assert len(result.envs) == 1 and "decompose:" not in rest.log
    with pytest.raises(ValueError, match="unknown stage"):
        await synthesize_envs(FunctionModel(rest), out, stages=["decompse"], sandbox=sandbox)
