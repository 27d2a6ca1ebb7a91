"""Results tables: per benchmark and category, with trials, intervals and published reference rows."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, Field

__all__ = ["REFERENCE_ROWS", "BenchmarkRow", "ReferenceRow", "Summary", "wilson_interval"]


def wilson_interval(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval (95% by default) for a success rate over `n` trials."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


class BenchmarkRow(BaseModel):
    """One model's score on one benchmark category."""

    benchmark: str
    category: str
    model: str
    n: int = Field(description="Episodes scored (entries x trials).")
    trials: int = 1
    score: float = Field(description="Mean score in [0, 1].")
    ci95: tuple[float, float] | None = Field(default=None, description="Wilson interval, set when the sample is small.")
    extra: dict[str, float] = Field(default_factory=dict, description="Secondary metrics (e.g. process accuracy).")

    @classmethod
    def from_scores(cls, benchmark: str, category: str, model: str, scores: Sequence[float], *, trials: int = 1,
                    small: int = 200, extra: dict[str, float] | None = None) -> BenchmarkRow:
        """A row from per-episode scores; an interval is attached when fewer than `small` episodes."""
        n = len(scores)
        mean = sum(scores) / n if n else 0.0
        ci = wilson_interval(sum(scores), n) if n < small else None
        return cls(benchmark=benchmark, category=category, model=model, n=n, trials=trials, score=mean, ci95=ci,
                   extra=dict(extra or {}))


class ReferenceRow(BaseModel):
    """A published number, with where it was published."""

    benchmark: str
    category: str
    model: str
    score: float
    source: str


_SOURCE = "arXiv 2601.21558 Table 1"
# Table 1 of the ASTRA paper (percentages there, fractions here). BFCL-MT at temperature 0.6;
# tau2 pass^1 over 4 trials at temperature 0 with GPT-5.1 as the user, airline excluded;
# ACEBench agent the mean of 4 runs at temperature 0.6 with GPT-4.1 as the user.
_PUBLISHED = {
    "Qwen3-14B": (54.00, 39.50, 39.00, 45.50, 44.50, 55.00, 37.10, 46.05, 45.83, 57.50, 51.67),
    "Qwen3-32B": (59.00, 47.50, 40.50, 51.50, 49.63, 64.70, 34.70, 49.70, 55.83, 63.75, 59.79),
    "ASTRA-14B-Thinking-v1": (67.00, 56.00, 48.50, 61.00, 58.13, 68.00, 47.37, 57.69, 54.17, 83.75, 68.96),
    "ASTRA-32B-Thinking-v1": (76.50, 65.50, 48.50, 66.50, 64.25, 75.20, 52.19, 63.70, 60.00, 83.75, 71.88),
}
_COLUMNS = (
    ("BFCL-v3 multi-turn", "multi_turn_base"), ("BFCL-v3 multi-turn", "multi_turn_miss_func"),
    ("BFCL-v3 multi-turn", "multi_turn_miss_param"), ("BFCL-v3 multi-turn", "multi_turn_long_context"),
    ("BFCL-v3 multi-turn", "overall"), ("tau2-bench", "retail"), ("tau2-bench", "telecom"),
    ("tau2-bench", "overall (retail, telecom)"), ("ACEBench", "agent_multi_turn"), ("ACEBench", "agent_multi_step"),
    ("ACEBench", "overall (agent)"),
)

REFERENCE_ROWS: list[ReferenceRow] = [
    ReferenceRow(benchmark=bench, category=category, model=model, score=round(value / 100, 4), source=_SOURCE)
    for model, values in _PUBLISHED.items()
    for (bench, category), value in zip(_COLUMNS, values, strict=True)
]
"""Published ASTRA models and their Qwen3 bases, as the ASTRA paper reports them."""


class Summary(BaseModel):
    """Everything one `pytest evals/` run scored, written as JSON and markdown."""

    model: str
    rows: list[BenchmarkRow] = Field(default_factory=list)
    references: list[ReferenceRow] = Field(default_factory=lambda: list(REFERENCE_ROWS))
    notes: list[str] = Field(default_factory=list)

    def add(self, row: BenchmarkRow, directory: Path) -> None:
        """Add `row` and rewrite the summary files in `directory` (a run's rows add up as tests finish)."""
        self.rows.append(row)
        self.write(directory)

    def markdown(self) -> str:
        """A markdown table per benchmark: this model's rows, then the reference rows."""
        lines = [f"# Evaluation of `{self.model}`", ""]
        for bench in sorted({r.benchmark for r in self.rows} | {r.benchmark for r in self.references}):
            lines += [f"## {bench}", "", "| model | category | n | trials | score | 95% CI | other |",
                      "|---|---|---|---|---|---|---|"]
            for r in (r for r in self.rows if r.benchmark == bench):
                ci = f"[{r.ci95[0]:.3f}, {r.ci95[1]:.3f}]" if r.ci95 else ""
                other = ", ".join(f"{k}={v:.3f}" for k, v in r.extra.items())
                lines.append(f"| {r.model} | {r.category} | {r.n} | {r.trials} | {r.score:.3f} | {ci} | {other} |")
            for ref in (r for r in self.references if r.benchmark == bench):
                lines.append(f"| {ref.model} (published) | {ref.category} | | | {ref.score:.3f} | | {ref.source} |")
            lines.append("")
        lines += [f"- {n}" for n in self.notes]
        return "\n".join(lines) + "\n"

    def write(self, directory: Path) -> tuple[Path, Path]:
        """Write `summary.json` and `summary.md` into `directory`.

        Rows already there for the same model and other categories are kept, so several
        runs into one directory (one benchmark at a time) add up to one summary.
        """
        directory.mkdir(parents=True, exist_ok=True)
        js, md = directory / "summary.json", directory / "summary.md"
        if js.exists():
            previous = Summary.model_validate_json(js.read_text(encoding="utf-8"))
            if previous.model == self.model:
                # The latest row of each benchmark category wins, in first-seen order.
                merged = {(r.benchmark, r.category): r for r in previous.rows}
                merged.update({(r.benchmark, r.category): r for r in self.rows})
                self.rows = list(merged.values())
        js.write_text(json.dumps(self.model_dump(mode="json"), indent=2) + "\n", encoding="utf-8")
        md.write_text(self.markdown(), encoding="utf-8")
        return js, md
