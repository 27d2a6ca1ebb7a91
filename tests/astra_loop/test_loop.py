"""`run_loop` and `astra loop` up to the audit on real environments: no model, no training.

Synthesis is skipped (no knowledge rows, no tool docs), so the stages that run are real:
verify over MCP, the copy into train_envs/, and the separation audit with MiniLM embeddings.
"""

from __future__ import annotations

import json
import shutil
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from envscript import Script
from typer.testing import CliRunner
from world_proposal import clinic_proposal

from agent_sdk import FunctionModel
from astra_cli import app
from astra_loop import EvalResult, LoopConfig, LoopConfigError, OverlapError, StageBook, StageError, StageRecord, preset, run_loop

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


async def test_the_loop_runs_verify_and_audit_then_resumes_without_redoing_them(tmp_path: Path, train_envs: Path, eval_envs: Path) -> None:
    config = LoopConfig(out=tmp_path / "run", extra_train_envs=[train_envs], eval_envs=eval_envs)
    records = await run_loop(config, until="audit")
    assert [r.name for r in records] == ["synth", "verify", "audit"]
    assert records[0].summary == {"skipped": "no knowledge rows and no tool docs given"}
    assert records[1].summary["passed"] == 2 and records[1].summary["failed"] == 0
    assert len(list((tmp_path / "run" / "train_envs").glob("*/env.json"))) == 2
    assert records[2].summary["overlaps"] == 0
    report = (tmp_path / "run" / "report.md").read_text()
    assert "| audit | done |" in report and "| cold_start | not run |" in report
    events: list[tuple[str, str]] = []
    await run_loop(config, until="audit", on_event=lambda s, e: events.append((s, e)))
    assert events == [("synth", "skip"), ("verify", "skip"), ("audit", "skip")]


async def test_the_same_environment_given_twice_is_trained_on_once(tmp_path: Path, train_envs: Path, eval_envs: Path) -> None:
    # a --train-envs directory from an earlier synthesis over the same rows holds the same environments
    again = tmp_path / "again"
    shutil.copytree(train_envs, again)
    config = LoopConfig(out=tmp_path / "run", extra_train_envs=[train_envs, again], eval_envs=eval_envs)
    records = await run_loop(config, until="verify")
    assert records[1].summary["passed"] == 2 and records[1].summary["duplicates"] == 2
    assert len(list((tmp_path / "run" / "train_envs").glob("*/env.json"))) == 2


async def test_training_on_an_eval_environment_stops_the_loop_before_training(tmp_path: Path, train_envs: Path, eval_envs: Path) -> None:
    shutil.copytree(eval_envs / "weather_forecast", train_envs / "weather_copy")
    config = LoopConfig(out=tmp_path / "run", extra_train_envs=[train_envs], eval_envs=eval_envs)
    with pytest.raises(OverlapError, match="weather_forecast"):
        await run_loop(config)
    book = StageBook(tmp_path / "run")
    assert book.record("verify") is not None and book.record("audit") is None and book.record("cold_start") is None
    assert "weather_forecast" in (tmp_path / "run" / "overlap.jsonl").read_text()


async def test_missing_inputs_and_unknown_presets_are_named(tmp_path: Path) -> None:
    with pytest.raises(LoopConfigError, match="--knowledge .*nope.jsonl: no such file"):
        await run_loop(LoopConfig(out=tmp_path, knowledge=[tmp_path / "nope.jsonl"]))
    with pytest.raises(LoopConfigError, match="unknown preset 'gpu'; choose from \\['astra', 'cpu-small'\\]"):
        preset("gpu")


def test_cli_runs_to_the_audit_and_reports_errors(tmp_path: Path, train_envs: Path, eval_envs: Path) -> None:
    runner = CliRunner()
    args = ["loop", "--out", str(tmp_path / "run"), "--train-envs", str(train_envs), "--eval-envs", str(eval_envs), "--until", "audit"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "report: " in result.output and "audit" in result.output
    bad = runner.invoke(app, [*args, "--redo", "train"])
    assert bad.exit_code == 2
    assert "--redo 'train': no such stage" in bad.output
    assert runner.invoke(app, [*args, "--preset", "tiny"]).exit_code == 2


async def test_the_synth_stage_feeds_verify_with_a_scripted_generator(tmp_path: Path, eval_envs: Path) -> None:
    """A scripted model plays every synthesis step; the environment it yields is verified and audited."""
    opened: list[str] = []

    @asynccontextmanager
    async def scripted(target: str, **options: object):
        opened.append(target)
        yield FunctionModel(Script())

    rows = tmp_path / "knowledge.jsonl"
    rows.write_text(json.dumps({"question": "What is the current temperature in the city where the Eiffel Tower stands?", "domain": "travel"}) + "\n")
    config = LoopConfig(out=tmp_path / "run", knowledge=[rows], eval_envs=eval_envs, generator="http://127.0.0.1:9/v1",
                        synth_config={"leak_audit": False})
    records = await run_loop(config, until="audit", models=scripted)
    assert opened == ["http://127.0.0.1:9/v1"]
    assert records[0].summary == {"environments": 1}
    assert records[1].summary["passed"] == 1
    assert records[1].summary["sources"] == {"world": 0, "synthesized": 1, "authored": 0, "imported": 0}
    report = (tmp_path / "run" / "report.md").read_text()
    assert "| assemble |" in report
    assert report.splitlines()[2] == "Training environments by source: world 0, synthesized 1, authored 0, imported 0."
    assert "**Warning:** synthesis supplied 1 training environments, fewer than the preset's minimum of 10" in report


async def test_the_synth_stage_builds_environments_from_a_world_file(tmp_path: Path, eval_envs: Path) -> None:
    world = Path(__file__).resolve().parents[2] / "examples" / "worlds" / "car_rental.yaml"
    config = LoopConfig(out=tmp_path / "run", worlds=[world], eval_envs=eval_envs,
                        preset=preset("cpu-small").with_overrides({"world_envs": 12}))  # fmt: skip
    records = await run_loop(config, until="verify")
    assert records[0].summary["world_environments"] >= 10
    assert records[1].summary["sources"]["world"] == records[0].summary["world_environments"] == records[1].summary["passed"]
    assert (tmp_path / "run" / "synth_worlds" / "stats.json").is_file()


async def test_given_nothing_to_train_on_the_loop_builds_from_the_example_worlds(tmp_path: Path, eval_envs: Path) -> None:
    config = LoopConfig(out=tmp_path / "run", eval_envs=eval_envs, preset=preset("cpu-small").with_overrides({"world_envs": 8}))
    records = await run_loop(config, until="verify")
    assert records[0].summary["world_environments"] >= 6
    assert records[1].summary["sources"]["world"] == records[1].summary["passed"] >= 6


async def test_a_corpus_trains_without_resynthesis_and_the_report_splits_sources(tmp_path: Path, train_envs: Path, eval_envs: Path) -> None:
    sft = tmp_path / "corpus_sft.jsonl"
    sft.write_text(json.dumps({"messages": [{"role": "user", "content": "Which gate does LH123 leave from?"}, {"role": "assistant", "content": "B12"}]}) + "\n")
    config = LoopConfig(out=tmp_path / "run", extra_train_envs=[train_envs], extra_sft=[sft], eval_envs=eval_envs)
    records = await run_loop(config, until="audit")
    assert records[0].summary == {"skipped": "no knowledge rows and no tool docs given"}, "nothing is synthesized again"
    assert records[1].summary["sources"] == {"world": 0, "synthesized": 0, "authored": 2, "imported": 0}
    report = (config.out / "report.md").read_text()
    assert "Training environments by source: world 0, synthesized 0, authored 2, imported 0." in report
    assert "fewer than the preset's minimum of 10: what training learned comes mostly from other sources" in report
    with pytest.raises(LoopConfigError, match="--train-sft .*absent.jsonl: no such file"):
        await run_loop(config.model_copy(update={"extra_sft": [tmp_path / "absent.jsonl"]}))


async def _evaluate_after_training(config: LoopConfig, eval_envs: Path, golden, grpo: dict[str, object]) -> tuple[list, list[str]]:
    """Run the loop to the audit, mark the training stages done by hand (no training in tests), then
    evaluate: the GRPO model plays golden, every other model answers without a call."""
    await run_loop(config, until="audit")
    book = StageBook(config.out)
    book.finish(StageRecord(name="cold_start", finished_at="2026-12-01T10:00:00+00:00", wall_s=1.0, summary={"model_dir": "sft/model"}))
    book.finish(StageRecord(name="grpo", finished_at="2026-12-01T10:00:00+00:00", wall_s=2.0, summary=grpo))
    opened: list[str] = []

    @asynccontextmanager
    async def policies(target: str, **options: object):
        opened.append(target)
        yield golden(eval_envs) if target == "grpo/model" else FunctionModel(lambda messages, tools, settings: "No idea.")

    return await run_loop(config, models=policies), opened


async def test_the_evaluate_stage_scores_base_then_trained_and_the_report_shows_the_delta(
    tmp_path: Path, train_envs: Path, eval_envs: Path, golden
) -> None:
    config = LoopConfig(out=tmp_path / "run", extra_train_envs=[train_envs], eval_envs=eval_envs)
    records, opened = await _evaluate_after_training(config, eval_envs, golden, {"model_dir": "grpo/model"})
    assert opened == ["embedded", "grpo/model"]
    summary = records[-1].summary
    assert {k: summary[k] for k in ("base_mean_f1", "trained_mean_f1", "delta", "envs", "episodes_per_env")} == {
        "base_mean_f1": 0.0, "trained_mean_f1": 1.0, "delta": 1.0, "envs": 2, "episodes_per_env": 2}  # fmt: skip
    assert summary["trained_minus_base_recall"] == [1.0, 1.0, 1.0] and summary["trained_minus_base_answer_correct"] == [1.0, 1.0, 1.0]
    report = (config.out / "report.md").read_text()
    assert "| flight_gate | 0.00 → 1.00 | 0.00 → 1.00 | 0.00 → 1.00 | 0.0 → 2.0 |" in report
    assert "| trained − base | 1.000 [1.000, 1.000] * | 1.000 [1.000, 1.000] * | 1.000 [1.000, 1.000] * |" in report
    base = EvalResult.model_validate_json((config.out / "eval" / "base.json").read_bytes())
    assert base.fingerprint.startswith("embedded:") and len(base.scores) == 4, "cpu-small: 2 seeded episodes per environment"
    offered = EvalResult.model_validate_json((config.out / "eval" / "trained_distractors.json").read_bytes())
    assert offered.distractors == 1 and offered.mean_reward == 1.0, "the golden player ignores the distractors it is offered"
    assert "### With 1 banded distractor(s) per band offered, as in training" in report
    assert (config.out / "plots" / "before_after.png").is_file()


async def test_after_grpo_steps_the_cold_start_model_is_scored_between_base_and_trained(
    tmp_path: Path, train_envs: Path, eval_envs: Path, golden
) -> None:
    config = LoopConfig(out=tmp_path / "run", extra_train_envs=[train_envs], eval_envs=eval_envs)
    records, opened = await _evaluate_after_training(config, eval_envs, golden, {"model_dir": "grpo/model", "steps": 3})
    assert opened == ["embedded", "sft/model", "grpo/model"]
    assert records[-1].summary["cold_start_mean_f1"] == 0.0 and records[-1].summary["trained_mean_f1"] == 1.0
    report = (config.out / "report.md").read_text()
    assert "| environment | F1 (base → cold_start → trained) |" in report
    assert "| flight_gate | 0.00 → 0.00 → 1.00 |" in report
    assert "| trained − cold_start | 1.000 [1.000, 1.000] * |" in report and "| cold_start − base | 0.000 [0.000, 0.000] |" in report


async def test_no_grpo_steps_hands_the_cold_start_model_to_the_evaluation(tmp_path: Path, train_envs: Path, eval_envs: Path) -> None:
    config = LoopConfig(out=tmp_path / "run", extra_train_envs=[train_envs], eval_envs=eval_envs,
                        preset=preset("cpu-small").model_copy(update={"grpo": False}))
    await run_loop(config, until="audit")
    StageBook(config.out).finish(
        StageRecord(name="cold_start", finished_at="2026-12-01T10:00:00+00:00", wall_s=1.0, summary={"model_dir": "sft/model"})
    )
    records = await run_loop(config, until="grpo")
    assert records[-1].summary["model_dir"] == "sft/model" and records[-1].summary["steps"] == 0
    assert not (config.out / "rl_data").exists()


def _trained_without_model(config: LoopConfig):
    """Mark the training stages done with no model directory; models that open answer without a call, and record their targets."""
    book = StageBook(config.out)
    for name in ("cold_start", "grpo"):
        book.finish(StageRecord(name=name, finished_at="2026-12-01T10:00:00+00:00", wall_s=1.0, summary={"model_dir": None}))
    opened: list[str] = []

    @asynccontextmanager
    async def policies(target: str, **options: object):
        opened.append(target)
        yield FunctionModel(lambda messages, tools, settings: "No idea.")

    return book, opened, policies


async def test_a_killed_evaluation_keeps_the_base_scores(tmp_path: Path, train_envs: Path, eval_envs: Path) -> None:
    config = LoopConfig(out=tmp_path / "run", extra_train_envs=[train_envs], eval_envs=eval_envs)
    await run_loop(config, until="audit")
    book, opened, policies = _trained_without_model(config)

    with pytest.raises(StageError, match="GRPO left no Hugging Face model directory .*--trained-model"):
        await run_loop(config, models=policies)
    assert (config.out / "eval" / "base.json").is_file() and opened == ["embedded"]
    config = config.model_copy(update={"trained_model": "http://127.0.0.1:9/v1"})
    await run_loop(config, models=policies)
    assert opened == ["embedded", "http://127.0.0.1:9/v1"]


async def test_an_evaluation_of_another_model_or_protocol_is_played_again(tmp_path: Path, train_envs: Path, eval_envs: Path) -> None:
    config = LoopConfig(out=tmp_path / "run", extra_train_envs=[train_envs], eval_envs=eval_envs, trained_model="http://127.0.0.1:9/v1")
    await run_loop(config, until="audit")
    book, opened, policies = _trained_without_model(config)

    await run_loop(config, models=policies)
    stale = EvalResult.model_validate_json((config.out / "eval" / "base.json").read_bytes())
    (config.out / "eval" / "base.json").write_text(stale.model_copy(update={"fingerprint": "weights:an-earlier-attempt"}).model_dump_json())
    book.clear("evaluate")  # as after a kill during the evaluation: its files stay
    await run_loop(config, models=policies)
    assert opened == ["embedded", "http://127.0.0.1:9/v1", "embedded"], "only the stale result is played again"
    greedy = config.model_copy(update={"preset": preset("cpu-small").with_overrides({"eval_temperature": 0.0})})
    book.clear("evaluate")
    await run_loop(greedy, models=policies)
    assert opened[3:] == ["embedded", "http://127.0.0.1:9/v1"]
    assert len(EvalResult.model_validate_json((config.out / "eval" / "base.json").read_bytes()).scores) == 2


async def test_redo_removes_the_stage_outputs_so_nothing_stale_resumes(tmp_path: Path, train_envs: Path, eval_envs: Path) -> None:
    config = LoopConfig(out=tmp_path / "run", extra_train_envs=[train_envs], eval_envs=eval_envs)
    await run_loop(config, until="audit")
    for path in (config.out / "grpo" / "state.json", config.out / "eval" / "base.json", config.out / "cold_start" / "model" / "w.bin"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}")
    await run_loop(config, redo="grpo", until="audit")
    assert not (config.out / "grpo").exists() and not (config.out / "eval").exists(), "GRPO state and evaluations of the old run are gone"
    assert (config.out / "cold_start" / "model" / "w.bin").is_file(), "stages before the redone one keep their outputs"
    assert (config.out / "synth_env").is_dir() or not config.knowledge


async def test_a_domain_list_is_proposed_into_a_world_the_synth_stage_builds_from(tmp_path: Path, eval_envs: Path) -> None:

    @asynccontextmanager
    async def scripted(target: str, **options: object):
        yield FunctionModel.from_replies(json.dumps(clinic_proposal(), ensure_ascii=False))

    domains = tmp_path / "domains.jsonl"
    domains.write_text(json.dumps({"domain": "在线医疗（挂号、问诊）"}, ensure_ascii=False) + "\n", encoding="utf-8")
    config = LoopConfig(out=tmp_path / "run", worlds=[domains], eval_envs=eval_envs, generator="http://127.0.0.1:9/v1",
                        preset=preset("cpu-small").with_overrides({"world_envs": 8}))  # fmt: skip
    records = await run_loop(config, until="verify", models=scripted)
    assert (tmp_path / "run" / "synth_worlds" / "proposed" / "clinic_visits.json").is_file()
    assert records[0].summary["world_environments"] >= 6
    assert records[1].summary["sources"]["world"] == records[1].summary["passed"] == records[0].summary["world_environments"]
