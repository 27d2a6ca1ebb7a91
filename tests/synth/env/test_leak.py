import json
from pathlib import Path

import pytest
from envscript import Script

from agent_sdk import FunctionModel, read_jsonl
from synth.core import DATA_DIR
from synth.env import SynthConfig, synthesize_envs
from synth.env._leak import benchmark_questions, data_root, default_benchmark_files

QUESTIONS = data_root() / "astra" / "knowledge" / "en" / "questions.jsonl"


def test_benchmark_files_include_the_webtailbench_questions():
    files = default_benchmark_files()
    assert QUESTIONS in files
    questions = benchmark_questions(QUESTIONS)
    assert len(questions) == 609 and questions[0].startswith("What is the price difference")


def test_the_benchmark_list_reads_the_vendored_data_inside_the_repository(monkeypatch):
    monkeypatch.delenv("ASTRA_DATA_DIR", raising=False)
    repo = Path(__file__).resolve().parents[3]
    assert data_root() == DATA_DIR == repo / "data"
    vendored = [f for f in default_benchmark_files() if f.is_relative_to(DATA_DIR)]
    assert DATA_DIR / "astra" / "knowledge" / "en" / "questions.jsonl" in vendored
    # WebTailBench plus the 17 ACEBench categories in each language; BFCL and tau2 come from their installed packages
    assert len(vendored) == 1 + 2 * 17 and all(f.resolve().is_relative_to(repo) for f in vendored)


@pytest.mark.anyio
async def test_nearest_scores_paraphrase_high_and_unrelated_low(auditor):
    first = benchmark_questions(QUESTIONS)[0]
    paraphrase = first.split("?")[0].replace("What is", "Tell me") + "?"
    hit = await auditor.check(paraphrase)
    assert hit is not None and hit.benchmark_question == first and hit.score >= 0.9
    exact = await auditor.nearest(first.upper())
    assert exact.score == 1.0
    assert await auditor.check("In which city is the Eiffel Tower located?") is None


@pytest.mark.anyio
async def test_a_benchmark_question_is_rejected_as_a_leak(tmp_path, sandbox, auditor):
    leaked = benchmark_questions(QUESTIONS)[0]
    decomposition = json.loads(Script().decompose[0])
    decomposition["main_question"] = leaked.split("?")[0] + "?"
    decomposition["sub_questions"][0]["question"] = "Which city is the user in?"  # names no value the leaked question lacks
    script = Script(decompose=[json.dumps(decomposition)])
    inp = tmp_path / "in.jsonl"
    inp.write_text(json.dumps({"question": leaked, "domain": "flights"}) + "\n")
    result = await synthesize_envs(
        FunctionModel(script), tmp_path / "out", inputs=[inp], config=SynthConfig(), sandbox=sandbox, auditor=auditor, show_progress=False
    )
    assert result.envs == []
    (rej,) = read_jsonl(tmp_path / "out" / "rejected.jsonl").values
    assert (rej["stage"], rej["reason"]) == ("leak_audit", "benchmark_leak")
    assert "questions.jsonl" in rej["detail"]
    assert script.log == ["decompose:"]  # nothing else was spent on it


@pytest.mark.anyio
async def test_the_pipeline_loads_its_own_auditor_only_when_a_sample_needs_it(tmp_path, sandbox):
    bench = tmp_path / "bench.jsonl"
    bench.write_text("".join(json.dumps({"question": q}) + "\n" for q in [
        "What is the current temperature in the city where the Eiffel Tower stands?",
        "Book a table for two in Rome tonight.",
    ]))
    inp = tmp_path / "in.jsonl"
    inp.write_text(json.dumps({"question": "What's the temperature right now in the city of the Eiffel Tower?", "domain": "travel"}) + "\n")
    config = SynthConfig(benchmark_files=[bench])
    first = await synthesize_envs(FunctionModel(Script()), tmp_path / "out", inputs=[inp], config=config, sandbox=sandbox, show_progress=False)
    assert first.envs == [] and first.stats.funnel[1].reasons == {"benchmark_leak": 1}
    assert first.stats.extra["leak_audit"] == "2 benchmark questions from 1 files, threshold 0.9"
    again = await synthesize_envs(FunctionModel(Script()), tmp_path / "out", inputs=[inp], config=config, sandbox=sandbox, show_progress=False)
    assert again.stats.extra["leak_audit"].startswith("not loaded")
