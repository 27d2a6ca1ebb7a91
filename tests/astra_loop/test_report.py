"""`report.md` from a finished (and from a partial) run directory written here, with real PNGs."""

from __future__ import annotations

import json
from pathlib import Path

from astra_loop import (
    STAGE_NAMES,
    EpisodeScore,
    EvalResult,
    Layout,
    StageBook,
    StageRecord,
    render_report,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _eval(label: str, rewards: dict[str, float]) -> EvalResult:
    scores = [
        EpisodeScore(env=env, env_id=f"env-{i:08x}", reward=r, n=2, n_hat=round(r * 2), recall=round(r * 2) / 2, c=2, turns=3)
        for i, (env, r) in enumerate(rewards.items())
    ]
    return EvalResult(label=label, model="embedded" if label == "base" else "runs/x/grpo/model", envs_dir="examples/envs", scores=scores)


def _finished_run(out: Path) -> Layout:
    layout = Layout(out)
    book = StageBook(out)
    for i, name in enumerate(STAGE_NAMES):
        summary = {"passed": 3, "checked": 5} if name == "verify" else {}
        book.finish(StageRecord(name=name, finished_at="2026-12-01T10:00:00+00:00", wall_s=10.0 * (i + 1), summary=summary))
    layout.synth_env.mkdir(parents=True)
    funnel = [{"stage": "decompose", "seen": 8, "accepted": 6, "rejected": 2}, {"stage": "assemble", "seen": 4, "accepted": 3, "rejected": 1}]
    (layout.synth_env / "stats.json").write_text(json.dumps({"pipeline": "env", "funnel": funnel}))
    layout.synth_sft.mkdir(parents=True)
    (layout.synth_sft / "stats.json").write_text(json.dumps({"pipeline": "sft", "extra": {"funnel": {"servers_ingested": 2, "trajectories_kept": 5}}}))
    layout.grpo.mkdir(parents=True)
    metrics = [{"step": s, "reward": 0.1 * s, "loss": 0.0} for s in range(1, 5)] + [{"step": 4, "train_runtime": 99.0}]
    (layout.grpo / "metrics.jsonl").write_text("".join(json.dumps(m) + "\n" for m in metrics) + "not json\n")
    layout.eval.mkdir(parents=True)
    (layout.eval / "base.json").write_text(_eval("base", {"flight_gate": 0.0, "weather_forecast": 0.5}).model_dump_json())
    (layout.eval / "trained.json").write_text(_eval("trained", {"flight_gate": 0.8, "weather_forecast": 0.25}).model_dump_json())
    return layout


def test_a_finished_run_renders_the_funnel_curve_and_before_after_table(tmp_path: Path) -> None:
    layout = _finished_run(tmp_path / "run")
    report = render_report(layout.out, list(STAGE_NAMES))
    text = report.read_text()
    for png in ("funnel.png", "reward_curve.png", "before_after.png"):
        assert (layout.plots / png).read_bytes()[:8] == PNG_MAGIC
        assert f"](plots/{png})" in text
    assert "| flight_gate | 0.00 → 0.80 | 0.00 → 1.00 | 0.00 → 0.00 | 2.0 → 2.0 |" in text
    assert "| weather_forecast | 0.50 → 0.25 | 0.50 → 0.00 | 0.00 → 0.00 | 2.0 → 2.0 |" in text
    assert "Protocol: one greedy episode per environment" in text
    assert "| base | 0.250 [" in text and "| trained | 0.525 [" in text
    assert "| trained − base | 0.275 [" in text
    assert "**Warning:**" not in text, "F1 rose with recall"
    assert "| decompose | 8 | 6 |" in text and "| trajectories_kept | 5 |" in text
    assert "4 logged steps; reward 0.100 at step 1 → 0.400 at step 4." in text
    assert "| 4 | 0.400 |" in text and "No validation curve" in text
    assert "| grpo | done | 50.0 | 1 |" in text
    assert "Total wall time of finished stages: 210.0 s" in text
    assert "verify: passed = 3, checked = 5" in text


def test_the_validation_curve_is_tabled_beside_the_per_step_log(tmp_path: Path) -> None:
    layout = _finished_run(tmp_path / "run")
    steps = [{"step": 1, "reward": 0.3, "batch_reward": 0.35, "episodes": 8, "tool_calls": 12, "unfinished": 3, "logprob_gap": 0.012, "kl": 0.0004,
              "clip_fraction": 0.01, "rollout_s": 80.0, "update_s": 40.0, "serve_s": 5.0, "save_s": 2.0, "batch_filling": {"kept": 2}}]
    (layout.grpo / "metrics.jsonl").write_text("".join(json.dumps(m) + "\n" for m in steps))
    points = [{"step": s, "tasks": 3, "episodes": 6, "reward": 0.2, "recall": 0.5 - 0.1 * s, "answer_correct": 0.25, "tool_calls": 9,
               "wall_s": 30.0} for s in (0, 1)]
    (layout.grpo / "validation.jsonl").write_text("".join(json.dumps(p) + "\n" for p in points))
    text = render_report(layout.out, list(STAGE_NAMES)).read_text()
    assert "| 1 | 0.300 | 0.350 | 2 | 8 | 12 | 3 | 0.012 | 0.0004 | 0.010 | 80 | 40 | 7 |" in text
    assert "### Validation (the split GRPO does not train on)" in text
    assert "Rollouts served by" not in text, "older metrics carry no backend"
    assert "| 0 | 6 | 0.200 | 0.500 | 0.250 | 9 |" in text and "| 1 | 6 | 0.200 | 0.400 | 0.250 | 9 |" in text
    assert (layout.plots / "reward_curve.png").read_bytes()[:8] == PNG_MAGIC


def test_the_report_says_when_rollouts_ran_on_the_transformers_fallback(tmp_path: Path) -> None:
    layout = _finished_run(tmp_path / "run")
    steps = [{"step": s, "reward": 0.2, "backend": "local", "rollout_s": 900.0, "update_s": 20.0, "serve_s": 3.0, "save_s": 2.0} for s in (1, 2)]
    (layout.grpo / "metrics.jsonl").write_text("".join(json.dumps(m) + "\n" for m in steps))
    text = render_report(layout.out, list(STAGE_NAMES)).read_text()
    assert "Rollouts served by: local (the transformers fallback" in text


def test_a_partial_run_says_what_is_missing(tmp_path: Path) -> None:
    out = tmp_path / "partial"
    StageBook(out).finish(StageRecord(name="synth", finished_at="2026-12-01T10:00:00+00:00", wall_s=1.5))
    text = render_report(out, list(STAGE_NAMES)).read_text()
    assert "| synth | done | 1.5 | 1 |" in text and "| evaluate | not run | - | - |" in text
    assert "No synthesis statistics yet." in text and "No GRPO metrics yet." in text and "Not evaluated yet." in text
    assert not list((out / "plots").glob("*.png"))


def test_an_f1_gain_from_fewer_calls_is_flagged(tmp_path: Path) -> None:
    layout = _finished_run(tmp_path / "run")
    base = [EpisodeScore(env=e, env_id=f"env-{i}", seed=s, reward=0.4, n=2, n_hat=2, recall=1.0, answer_correct=1.0, c=8, turns=5)
            for i, e in enumerate(("a", "b")) for s in (1000, 1001)]  # fmt: skip
    lazy = [x.model_copy(update={"reward": 0.67, "n_hat": 1, "recall": 0.5, "answer_correct": 0.5, "c": 1}) for x in base]
    from astra_loop.evaluate import EvalProtocol

    for label, scores in (("base", base), ("trained", lazy)):
        result = EvalResult(label=label, model=label, envs_dir="e", protocol=EvalProtocol(), scores=scores)
        (layout.eval / f"{label}.json").write_text(result.model_dump_json())
    text = render_report(layout.out, list(STAGE_NAMES)).read_text()
    assert "Protocol: 4 episodes per environment, seeds 1000..1003, temperature 0.6, top-p 0.95" in text
    assert "**Warning:** trained gains F1 over base (+0.270) with lower subtask recall and answer correctness" in text
    assert "| trained − base | 0.270 [0.270, 0.270] * | -0.500 [-0.500, -0.500] * |" in text


def test_a_world_run_tables_its_funnel_and_says_when_the_cold_start_left_rows_out(tmp_path: Path) -> None:
    out = tmp_path / "worlds"
    layout = Layout(out)
    book = StageBook(out)
    book.finish(StageRecord(name="synth", finished_at="2026-12-01T10:00:00+00:00", wall_s=1.0))
    summary = {"sft_rows": 0, "env_rows": 268, "trained_rows": 137}
    book.finish(StageRecord(name="cold_start", finished_at="2026-12-01T10:00:00+00:00", wall_s=9.0, summary=summary))
    layout.synth_worlds.mkdir(parents=True)
    stats = {"worlds": 15, "walks": 773, "built": 268, "written": 268, "verified": 268, "scenarios": {"single_hop": 75},
             "languages": {"zh": 187, "en": 81}, "hops": {"1": 148}, "rejected": {"ambiguous_question": 101, "repeated_shape": 182}}
    (layout.synth_worlds / "stats.json").write_text(json.dumps(stats))
    text = render_report(out, list(STAGE_NAMES)).read_text()
    assert "From 15 worlds: 773 walks, 268 built, 268 written, 268 verified over MCP" in text
    assert text.index("| repeated_shape | 182 |") < text.index("| ambiguous_question | 101 |")
    assert "No synthesis statistics yet." not in text
    assert "the cold start trained on 137 of 268 conversations" in text
