"""`astra env synth --report`: PNG plots of a run's funnel and distributions, from `stats.json`."""

from __future__ import annotations

from pathlib import Path

from synth.core import PipelineStats, pyplot, save_figure

__all__ = ["render_report"]


def _bar(ax: object, labels: list[str], values: list[int], title: str, color: str = "#4c72b0") -> None:
    from matplotlib.ticker import MaxNLocator

    ax.bar(range(len(values)), values, color=color)  # type: ignore[attr-defined]
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # type: ignore[attr-defined]
    ax.set_xticks(range(len(values)), labels, rotation=30, ha="right", fontsize=8)  # type: ignore[attr-defined]
    ax.set_title(title, fontsize=10)  # type: ignore[attr-defined]
    for i, v in enumerate(values):
        ax.annotate(str(v), (i, v), ha="center", va="bottom", fontsize=8)  # type: ignore[attr-defined]


def render_report(out_dir: str | Path) -> list[Path]:
    """Write `report/funnel.png` and `report/distributions.png` for the run in `out_dir`.

    Raises:
        FileNotFoundError: when `out_dir/stats.json` is missing or unreadable.
    """
    plt = pyplot()
    out_dir = Path(out_dir)
    stats = PipelineStats.load(out_dir / "stats.json")
    if stats is None:
        raise FileNotFoundError(f"{out_dir / 'stats.json'}: missing or not a stats file; run `astra env synth` first")
    report = out_dir / "report"
    report.mkdir(exist_ok=True)

    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.5))
    stages = [f.stage for f in stats.funnel]
    _bar(left, ["input", *stages], [stats.input_records, *[f.accepted for f in stats.funnel]], "Samples surviving each stage")
    ranked = sorted(((f.stage, r, n) for f in stats.funnel for r, n in f.reasons.items()), key=lambda x: -x[2])
    # prompts too long for the model are a sizing problem, not a content one: always shown, however rare
    reasons = ranked[:15] + [x for x in ranked[15:] if x[1].endswith("context_overflow")]
    _bar(right, [f"{s}:{r}" for s, r, _ in reasons], [n for _, _, n in reasons], "Top rejection reasons", color="#c44e52")
    overflow = sum(n for _, r, n in ranked if r.endswith("context_overflow"))
    fig.suptitle(
        f"{stats.pipeline}: {stats.outputs} environments from {stats.input_records} inputs — "
        f"{stats.llm_total.calls} LLM calls, {stats.llm_total.prompt_tokens + stats.llm_total.completion_tokens} tokens, "
        f"{stats.wall_time_s_total:.0f} s\nlongest prompt {stats.max_prompt_tokens} tokens; context_overflow rejections: {overflow}"
    )
    funnel = save_figure(fig, report / "funnel.png", dpi=110)

    keys = [
        ("decomposed_by_hops", "Hops (decomposed)"),
        ("decomposed_by_scenario", "Scenarios (decomposed)"),
        ("envs_by_tools", "Tools per environment"),
        ("envs_by_domain", "Environments per domain"),
    ]
    fig, axes = plt.subplots(1, len(keys), figsize=(16, 4.5))
    for ax, (key, title) in zip(axes, keys, strict=True):
        dist = stats.extra.get(key) or {}
        if dist:
            _bar(ax, [str(k)[:24] for k in dist], list(dist.values()), title, color="#55a868")
        else:
            ax.set_title(f"{title}: none", fontsize=10)
            ax.axis("off")
    return [funnel, save_figure(fig, report / "distributions.png", dpi=110)]
