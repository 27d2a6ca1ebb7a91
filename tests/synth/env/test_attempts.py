"""A seed's passes through the pipeline (`SynthConfig.seed_attempts`): what sends a seed round again and what ends it."""

import json

import pytest
from envscript import QUESTION_ROW, Script, rejected, write_rows

from agent_sdk import FunctionModel
from mcp_servers import load_env
from synth.env import SynthConfig, synthesize_envs


@pytest.mark.anyio
async def test_a_seed_rejected_after_decomposition_is_decomposed_afresh_and_kept_on_its_next_attempt(tmp_path, sandbox):
    first = json.loads(Script().decompose[0])
    again = {**first, "main_question": "How warm is it right now in the city of the Eiffel Tower?"}
    script = Script(judge=lambda m: '{"reason": "q2 does not need q1", "verdict": "no"}' if first["main_question"] in str(m) else Script.judge)
    draws = SynthConfig().decompose_draws

    def model(messages, tools, settings):
        # the second attempt draws with seeds `draws`, `draws + 1`, ...: only there does the teacher write the other trace
        if (settings.seed or 0) >= draws and "Break the main question into" in (messages[1].content or ""):
            return json.dumps(again)
        return script(messages, tools, settings)

    inp = write_rows(tmp_path / "in.jsonl", QUESTION_ROW)
    config = SynthConfig(leak_audit=False, seed_attempts=2)
    result = await synthesize_envs(FunctionModel(model), tmp_path / "out", inputs=[inp], config=config, sandbox=sandbox, show_progress=False)
    (rej,) = rejected(tmp_path / "out")
    (env,) = result.envs
    assert (rej["stage"], rej["reason"], env.id) == ("checks", "low_dependency", f"{rej['id']}-a1")
    assert load_env(tmp_path / "out" / env.path).spec.task.question == again["main_question"]
    assert result.stats.extra["envs_by_attempt"] == {"1": 1} and result.stats.input_records == 1
    calls = script.log.copy()
    rerun = await synthesize_envs(FunctionModel(model), tmp_path / "out", config=config, sandbox=sandbox, show_progress=False)
    assert [e.id for e in rerun.envs] == [env.id] and script.log == calls  # resumed from the stores: no request made


@pytest.mark.anyio
async def test_a_seed_whose_question_leaks_gets_no_second_attempt(tmp_path, sandbox):
    inp = write_rows(tmp_path / "in.jsonl", QUESTION_ROW)
    bench = write_rows(tmp_path / "bench.jsonl", {"question": QUESTION_ROW["question"]})
    script = Script()
    config = SynthConfig(benchmark_files=[bench], seed_attempts=3)
    result = await synthesize_envs(FunctionModel(script), tmp_path / "out", inputs=[inp], config=config, sandbox=sandbox, show_progress=False)
    assert result.envs == [] and [(r["stage"], r["reason"]) for r in rejected(tmp_path / "out")] == [("leak_audit", "benchmark_leak")]
    assert script.log.count("decompose:") <= 1
