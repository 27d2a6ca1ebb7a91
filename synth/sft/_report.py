"""`stats.json` and PNG plots of an SFT run, computed from the stage stores (so resume-safe).

The funnel (servers, chains sampled/verified, tasks generated/kept, trajectories rolled
out/judged/kept), mean tool calls per trajectory, the per-dimension judge exclusion rates,
and plots of the funnel and of the calls-per-trajectory and turns distributions.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from synth.core import LLMCounts, PipelineStats, Stage, StageTokens, pyplot, save_figure
from synth.sft._judge import DIMENSIONS


@dataclass(frozen=True, kw_only=True)
class RunNotes:
    """What one run saw beside its stores, reported as this run's (`*_last_run`)."""

    deferred_model_errors: dict[str, int]
    """Per stage: records left undecided because the model endpoint failed (retried next run)."""
    emulator: dict[str, Any]
    """The tool emulator's counters."""
    ingest_tool_issues: list[dict[str, Any]]
    """Tools that ingest repaired or dropped, with why."""


def _trajectory_shape(records: list[dict[str, Any]]) -> tuple[list[int], list[int]]:
    calls = [sum(len(s.get("calls", [])) for s in r["trajectory"]["steps"]) for r in records]
    turns = [len(r["trajectory"]["steps"]) for r in records]
    return calls, turns


def judge_exclusions(verdicts: list[dict[str, Any]], bar: float = 0.6) -> dict[str, Any]:
    """Per dimension: how many verdicts lacked it (unjudged: excluded), and how many judged ones scored it below
    `bar` (the export threshold), each also as a rate of all verdicts: which dimension keeps rows out."""
    n = len(verdicts)
    missing = Counter(d for v in verdicts for d in v.get("missing", []))
    low = Counter(d for v in verdicts if v.get("judged") for d, score in (v.get("dimensions") or {}).items() if score < bar)

    def rate(count: int) -> float:
        return round(count / n, 4) if n else 0.0

    return {
        "verdicts": n,
        "unjudged": sum(1 for v in verdicts if not v.get("judged")),
        "unjudged_rate": rate(sum(1 for v in verdicts if not v.get("judged"))),
        "per_dimension": {
            d: {"missing": missing.get(d, 0), "exclusion_rate": rate(missing.get(d, 0)), "below_bar": low.get(d, 0), "below_bar_rate": rate(low.get(d, 0))}
            for d in DIMENSIONS
        },
    }


def _mean(values: list[int | float]) -> float:
    return round(sum(values) / len(values), 3) if values else 0.0


def write_report(
    out: Path,
    st: Mapping[str, Stage],
    *,
    verdicts: list[dict[str, Any]],
    notes: RunNotes,
    llm: LLMCounts,
    wall_time_s: float,
    tokens: dict[str, StageTokens],
    judge_bar: float = 0.6,
) -> dict[str, Any]:
    """Write `out/stats.json` and the plots from the stage stores `st` and the judge's `verdicts`; returns the stats."""
    rollouts = st["rollout"].out.records()
    exported_ids = {r["id"] for r in st["export"].out.records()}
    calls, turns = _trajectory_shape(rollouts)
    kept_calls, _ = _trajectory_shape([r for r in rollouts if r["id"] in exported_ids])
    judged = st["judge"].out.records()
    funnel = {
        "servers_ingested": len(st["ingest"].out),
        "servers_dropped": len(st["ingest"].rejections()),
        "servers_graphed": len(st["graph"].out),
        "chains_sampled": len(st["chains"].out) + len(st["chains"].rejections()),
        "chains_verified": len(st["chains"].out),
        "tasks_generated": len(st["tasks"].out),
        "tasks_kept": len(st["score"].out),
        "trajectories_rolled_out": len(st["rollout"].out) + len(st["rollout"].rejections()),
        "trajectories_complete": len(rollouts),
        "trajectories_judged": len(judged),
        "trajectories_kept": len(exported_ids),
        # prompts that cannot fit the model: terminal, and shown in the funnel plot however few
        "rejected_context_overflow": sum(
            1 for name in st for r in st[name].rejections() if r.reason.endswith("context_overflow")
        ),
    }
    tasks = st["tasks"].out.records()
    extra = {
        "funnel": funnel,
        "mean_calls_per_trajectory": _mean(calls),
        "mean_calls_per_kept_trajectory": _mean(kept_calls),
        "calls_per_trajectory": dict(sorted(Counter(calls).items())),
        "turns_per_trajectory": dict(sorted(Counter(turns).items())),
        "mean_judge_score": _mean([r["score"] for r in judged]),
        "judge": judge_exclusions(verdicts, judge_bar),
        "tasks_by_kind": dict(Counter(f"{t['kind']}/{t['augmentation']}" for t in tasks)),
        "rollout_backends": dict(Counter(r["backend"] for r in rollouts)),
        "rollouts_by_attempt": dict(sorted(Counter(r.get("attempt", 1) for r in rollouts).items())),
        "deferred_model_errors_last_run": notes.deferred_model_errors,
        "emulator_last_run": notes.emulator,
        "ingest_tool_issues_last_run": notes.ingest_tool_issues,
    }
    stats = PipelineStats.finish(
        out / "stats.json",
        pipeline="sft",
        stages=[st[name] for name in st],
        llm=llm,
        wall_time_s=wall_time_s,
        input_records=funnel["servers_ingested"] + funnel["servers_dropped"],
        outputs=len(exported_ids),
        tokens_by_stage=tokens,
        extra=extra,
    )
    plot(out, funnel, calls, turns)
    return stats.model_dump(mode="json")


def plot(out: Path, funnel: dict[str, int], calls: list[int], turns: list[int]) -> list[Path]:
    """`plots/funnel.png` and `plots/distributions.png` (calls and turns per trajectory)."""
    plt = pyplot()
    directory = out / "plots"
    directory.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    names = list(funnel)
    ax.barh(names[::-1], [funnel[n] for n in names][::-1], color="#4C72B0")
    for i, n in enumerate(names[::-1]):
        ax.text(funnel[n], i, f" {funnel[n]}", va="center")
    ax.set_title("SFT synthesis funnel")
    funnel_path = save_figure(fig, directory / "funnel.png")

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.5))
    for ax, values, title in ((axes[0], calls, "tool calls per trajectory"), (axes[1], turns, "turns per trajectory")):
        if values:
            ax.hist(values, bins=range(0, max(values) + 2), color="#55A868", edgecolor="white", align="left")
        ax.set_title(title)
        ax.set_ylabel("trajectories")
    return [funnel_path, save_figure(fig, directory / "distributions.png")]
