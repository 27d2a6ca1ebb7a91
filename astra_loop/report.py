"""`report.md`: the loop's outcome on one page — funnel, reward curve, before/after per environment, wall times.

Everything is read back from the output directory (stage markers, the pipelines' `stats.json`,
the GRPO `metrics.jsonl`, `eval/base.json` and `eval/trained.json`), so the report renders for
a finished run, a partial one (missing parts say so) or a copy of either.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_sdk import read_jsonl
from astra_loop.config import Layout
from astra_loop.evaluate import METRICS, EvalResult, paired_difference
from astra_loop.stages import StageBook
from rl import plot_rewards
from synth.core import pyplot, save_figure

_METRIC_NAMES = {"reward": "F1", "recall": "subtask recall", "answer_correct": "answer correctness", "c": "tool calls"}


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def env_funnel(layout: Layout) -> list[tuple[str, int, int]]:
    """(stage, seen, accepted) rows of environment synthesis."""
    stats = _json(layout.synth_env / "stats.json") or {}
    return [(r["stage"], int(r["seen"]), int(r["accepted"])) for r in stats.get("funnel", [])]


def world_funnel_lines(stats: dict[str, Any]) -> list[str]:
    """Synthesis from worlds (`synth.world`'s `stats.json`): the funnel, the spreads and the rejections by code."""
    spread = "; ".join(f"{name} {json.dumps(stats.get(name, {}), ensure_ascii=False)}" for name in ("scenarios", "languages", "hops"))
    lines = [f"From {stats.get('worlds', 0)} worlds: {stats.get('walks', 0)} walks, {stats.get('built', 0)} built, "
             f"{stats.get('written', 0)} written, {stats.get('verified', 0)} verified over MCP; {spread}.", ""]  # fmt: skip
    rejected = stats.get("rejected") or {}
    if rejected:
        lines += _table(["rejected walks", "count"], [[code, str(n)] for code, n in sorted(rejected.items(), key=lambda kv: -kv[1])]) + [""]
    return lines


def sft_funnel(layout: Layout) -> dict[str, int]:
    """The SFT synthesis funnel (servers → chains → tasks → trajectories kept)."""
    stats = _json(layout.synth_sft / "stats.json") or {}
    return {k: int(v) for k, v in stats.get("extra", {}).get("funnel", {}).items()}


def grpo_records(layout: Layout, name: str = "metrics.jsonl") -> list[dict[str, Any]]:
    """The GRPO run's per-step log (`metrics.jsonl`) or its validation curve (`validation.jsonl`)."""
    path = layout.grpo / name
    if not path.is_file():
        return []
    # A training run may be writing the log while the report is drawn: a line it has not finished is left out.
    # TRL's last line (train_runtime) is not a step.
    return [r for r in read_jsonl(path, on_problem="collect").values if "step" in r and "reward" in r]


def step_lines(records: list[dict[str, Any]]) -> list[str]:
    """The per-step table: reward, groups trained on, sampler-trainer gap, where the time went."""
    rows = []
    for r in records:
        fill = r.get("batch_filling") or {}
        rows.append([
            str(r["step"]), f"{r.get('reward', 0.0):.3f}", f"{r.get('batch_reward', 0.0):.3f}", str(fill.get("kept", "-")),
            str(r.get("episodes", "-")), str(r.get("tool_calls", "-")), str(r.get("unfinished", "-")), f"{r.get('logprob_gap', 0.0):.3f}", f"{r.get('kl', 0.0):.4f}",
            f"{r.get('clip_fraction', 0.0):.3f}", f"{r.get('rollout_s', 0.0):.0f}", f"{r.get('update_s', 0.0):.0f}",
            f"{r.get('serve_s', 0.0) + r.get('save_s', 0.0):.0f}",
        ])  # fmt: skip
    headers = ["step", "reward", "trained reward", "valid groups", "episodes", "tool calls", "unanswered", "logprob gap", "KL", "clipped",
               "rollout s", "update s", "serve+save s"]  # fmt: skip
    return _table(headers, rows) + [""]


def validation_lines(points: list[dict[str, Any]]) -> list[str]:
    """The validation curve as a table (held-out training-distribution environments, seeded sampled episodes)."""
    rows = [[str(p["step"]), str(p["episodes"]), f"{p['reward']:.3f}", f"{p['recall']:.3f}", f"{p['answer_correct']:.3f}",
             str(p["tool_calls"])] for p in sorted(points, key=lambda p: p["step"])]  # fmt: skip
    lines = ["### Validation (the split GRPO does not train on)", ""]
    return lines + _table(["step", "episodes", "F1", "recall", "answer correctness", "tool calls"], rows) + [""]


def load_eval(layout: Layout, label: str) -> EvalResult | None:
    """`eval/<label>.json`, or None before the evaluation ran."""
    path = layout.eval / f"{label}.json"
    return EvalResult.model_validate_json(path.read_bytes()) if path.is_file() else None


def before_after(base: EvalResult, trained: EvalResult) -> list[tuple[str, float, float]]:
    """(env, base mean F1, trained mean F1) for every environment either result scored, by name."""
    b = {env: v for env, v in base.env_means("reward").items() if env != "mean"}
    t = {env: v for env, v in trained.env_means("reward").items() if env != "mean"}
    return [(env, b.get(env, 0.0), t.get(env, 0.0)) for env in sorted(set(b) | set(t))]


def plot_funnel(env_rows: list[tuple[str, int, int]], sft: dict[str, int], path: Path) -> Path:
    """Two horizontal bar charts side by side: environment synthesis and SFT synthesis."""
    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    names = [r[0] for r in env_rows]
    left.barh(names[::-1], [r[1] for r in env_rows][::-1], color="#c7d4e8", label="seen")
    left.barh(names[::-1], [r[2] for r in env_rows][::-1], color="#4C72B0", label="accepted")
    left.set_title("environment synthesis")
    left.legend(loc="lower right")
    right.barh(list(sft)[::-1], list(sft.values())[::-1], color="#55A868")
    right.set_title("SFT synthesis")
    for ax in (left, right):
        ax.grid(axis="x", alpha=0.3)
    return save_figure(fig, path)


def plot_before_after(rows: list[tuple[str, float, float]], path: Path, cold_start: dict[str, float] | None = None) -> Path:
    """Grouped bars: base, (cold-start,) and trained F1 per evaluation environment."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(max(6, 0.7 * len(rows) + 2), 4))
    xs = range(len(rows))
    series = [("base", [r[1] for r in rows], "#8c8c8c")]
    if cold_start is not None:
        series.append(("cold start", [cold_start.get(r[0], 0.0) for r in rows], "#a6c8e0"))
    series.append(("trained", [r[2] for r in rows], "#4C72B0"))
    width = 0.8 / len(series)
    for i, (label, values, color) in enumerate(series):
        ax.bar([x + (i - (len(series) - 1) / 2) * width for x in xs], values, width=width, label=label, color=color)
    ax.set_xticks(list(xs), [r[0] for r in rows], rotation=45, ha="right")
    ax.set_ylabel("F1 reward")
    ax.set_ylim(0, 1)
    ax.legend()
    ax.grid(axis="y", alpha=0.3)
    return save_figure(fig, path)


def training_warnings(records: dict[str, Any], loop: dict[str, Any]) -> list[str]:
    """The report's first lines: what the training set is made of, and a warning when synthesis supplied little of it."""
    verify = records.get("verify")
    if verify is None or "sources" not in verify.summary:
        return []
    sources, synth = verify.summary["sources"], records.get("synth")
    minimum = int((loop.get("preset") or {}).get("min_synth_envs", 0))
    lines = ["Training environments by source: " + ", ".join(f"{k} {v}" for k, v in sources.items()) + ".", ""]
    synthesized = sources.get("synthesized", 0) + sources.get("world", 0)
    if synthesized < minimum:
        lines += [f"**Warning:** synthesis supplied {synthesized} training environments, fewer than the preset's "
                  f"minimum of {minimum}: what training learned comes mostly from other sources.", ""]  # fmt: skip
    if synth is not None and "sft_trajectories" in synth.summary and not synth.summary["sft_trajectories"] and not loop.get("extra_sft"):
        lines += ["**Warning:** SFT synthesis kept no row: the cold start learns from environment replays alone.", ""]
    return lines


def interval_lines(results: dict[str, EvalResult]) -> list[str]:
    """Each model's means with 95% intervals, the paired differences, and a flag on an F1 gain that is not more solving."""
    protocol = next(iter(results.values())).protocol
    how = (f"{protocol.episodes} episodes per environment, seeds {protocol.seeds[0]}..{protocol.seeds[-1]}, temperature "
           f"{protocol.temperature}, top-p {protocol.top_p}") if protocol.temperature > 0 else "one greedy episode per environment"
    lines = [f"Protocol: {how}; intervals are 95% bootstrap (environments, then episodes).", ""]
    rows = [[label, *(results[label].interval(m).text(2 if m == "c" else 3) for m in METRICS)] for label in results]
    lines += _table(["model", *(_METRIC_NAMES[m] for m in METRICS)], rows) + [""]
    pairs = [("base", "trained"), ("base", "cold_start"), ("cold_start", "trained")]
    diffs = {(a, b): {m: paired_difference(results[a], results[b], m) for m in METRICS} for a, b in pairs if a in results and b in results}
    rows = [[f"{b} − {a}", *(f"{d[m].text(2 if m == 'c' else 3)}{' *' if d[m].excludes_zero else ''}" for m in METRICS)] for (a, b), d in diffs.items()]
    lines += _table(["paired difference", *(_METRIC_NAMES[m] for m in METRICS)], rows)
    lines += ["", "`*`: the interval excludes 0.", ""]
    for (a, b), d in diffs.items():
        if d["reward"].mean > 0 and (d["recall"].mean < 0 or d["answer_correct"].mean < 0):
            lower = " and ".join(_METRIC_NAMES[m] for m in ("recall", "answer_correct") if d[m].mean < 0)
            lines += [f"**Warning:** {b} gains F1 over {a} ({d['reward'].mean:+.3f}) with lower {lower}: the gain is fewer calls, not more solved.", ""]
    return lines


def per_env_lines(results: dict[str, EvalResult]) -> list[str]:
    """Per environment: each model's mean F1, recall and answer correctness, and its tool calls."""
    means = {label: {m: r.env_means(m) for m in METRICS} for label, r in results.items()}
    envs = sorted({env for r in results.values() for env in r.by_env("reward")})
    header = ["environment", *(f"{_METRIC_NAMES[m]} ({' → '.join(results)})" for m in METRICS)]

    def cell(env: str, metric: str) -> str:
        return " → ".join(f"{means[label][metric].get(env, 0.0):.{1 if metric == 'c' else 2}f}" for label in results)

    return _table(header, [[env, *(cell(env, m) for m in METRICS)] for env in envs]) + [""]


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header), *("| " + " | ".join(r) + " |" for r in rows)]


def render_report(out: Path, stage_names: list[str]) -> Path:
    """Render `report.md` and its PNGs (under `plots/`) from a run directory; returns the report path."""
    layout = Layout(out)
    layout.plots.mkdir(parents=True, exist_ok=True)
    lines = [f"# astra loop: {out.name}", ""]
    records = {r.name: r for r in StageBook(out).records(stage_names)}
    lines += training_warnings(records, _json(out / "loop.json") or {})
    lines += ["## Stages", ""]
    rows = [[n, "done" if n in records else "not run", f"{records[n].wall_s:.1f}" if n in records else "-",
             str(records[n].attempts) if n in records else "-"] for n in stage_names]
    lines += _table(["stage", "status", "wall s", "attempts"], rows)
    lines += ["", f"Total wall time of finished stages: {sum(r.wall_s for r in records.values()):.1f} s", ""]

    env_rows, sft = env_funnel(layout), sft_funnel(layout)
    lines += ["## Funnel", ""]
    if env_rows or sft:
        lines += [f"![funnel]({plot_funnel(env_rows, sft, layout.plots / 'funnel.png').relative_to(out)})", ""]
        lines += _table(["environment stage", "seen", "accepted"], [[n, str(s), str(a)] for n, s, a in env_rows]) + [""]
        lines += _table(["SFT step", "count"], [[k, str(v)] for k, v in sft.items()]) + [""]
    worlds = _json(layout.synth_worlds / "stats.json")
    if worlds:
        lines += world_funnel_lines(worlds)
    if not (env_rows or sft or worlds):
        lines += ["No synthesis statistics yet.", ""]
    for name in ("verify", "cold_start"):
        if name in records and records[name].summary:
            lines += [f"{name}: " + ", ".join(f"{k} = {v}" for k, v in records[name].summary.items() if not isinstance(v, (list, dict))), ""]
    cold = records["cold_start"].summary if "cold_start" in records else {}
    offered = int(cold.get("sft_rows", 0)) + int(cold.get("env_rows", 0))
    if cold.get("trained_rows") is not None and int(cold["trained_rows"]) < offered:
        lines += [f"**Warning:** the cold start trained on {cold['trained_rows']} of {offered} conversations; "
                  "the others exceed the preset's SFT `max_length`.", ""]  # fmt: skip

    steps, validation = grpo_records(layout), grpo_records(layout, "validation.jsonl")
    lines += ["## GRPO reward", ""]
    if steps:
        plot = plot_rewards(steps, layout.plots / "reward_curve.png", "GRPO", validation)
        lines += [f"![reward curve]({plot.relative_to(out)})", ""] if plot else []
        first, last = steps[0], steps[-1]
        lines += [f"{len(steps)} logged steps; reward {first['reward']:.3f} at step {first['step']} → {last['reward']:.3f} at step {last['step']}.", ""]
        backends = sorted({str(s["backend"]) for s in steps if s.get("backend")})
        if backends:
            fallback = " (the transformers fallback: no vLLM interpreter was found, so rollouts ran far slower)" if "local" in backends else ""
            lines += [f"Rollouts served by: {', '.join(backends)}{fallback}.", ""]
        lines += step_lines(steps)
        lines += validation_lines(validation) if validation else ["No validation curve (the preset's `val_every` is 0, or no val split).", ""]
    else:
        lines += ["No GRPO metrics yet.", ""]

    base, trained = load_eval(layout, "base"), load_eval(layout, "trained")
    lines += ["## Before / after on environments training never saw", ""]
    if base and trained:
        pairs = before_after(base, trained)
        lines += [f"Evaluation set: `{base.envs_dir}`; base `{base.model}`, trained `{trained.model}`.", ""]
        cold = load_eval(layout, "cold_start")
        middle = cold.env_means("reward") if cold else None
        lines += [f"![before/after]({plot_before_after(pairs, layout.plots / 'before_after.png', middle).relative_to(out)})", ""]
        results = {"base": base, **({"cold_start": cold} if cold else {}), "trained": trained}
        lines += interval_lines(results)
        lines += per_env_lines(results)
        offered = {label: r for label in results if (r := load_eval(layout, f"{label}_distractors")) is not None}
        if "base" in offered and "trained" in offered:
            lines += [f"### With {offered['base'].distractors} banded distractor(s) per band offered, as in training", ""]
            lines += interval_lines(offered) + per_env_lines(offered)
    else:
        lines += ["Not evaluated yet.", ""]
    layout.report.write_text("\n".join(lines), encoding="utf-8")
    return layout.report
