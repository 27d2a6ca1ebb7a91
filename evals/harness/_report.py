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


REFERENCE_ROWS: list[ReferenceRow] = []
"""Published ASTRA / Qwen3 numbers found in the searchable corpora (see evals/README.md); empty
when none could be found — numbers are never filled in from memory."""


class Summary(BaseModel):
    """Everything one `pytest evals/` run scored, written as JSON and markdown."""

    model: str
    rows: list[BenchmarkRow] = Field(default_factory=list)
    references: list[ReferenceRow] = Field(default_factory=lambda: list(REFERENCE_ROWS))
    notes: list[str] = Field(default_factory=list)

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
        if not self.references:
            lines += ["No published reference numbers were found in the searchable corpora; none are shown.", ""]
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
                mine = {(r.benchmark, r.category) for r in self.rows}
                self.rows[:0] = [r for r in previous.rows if (r.benchmark, r.category) not in mine]
        js.write_text(json.dumps(self.model_dump(mode="json"), indent=2) + "\n", encoding="utf-8")
        md.write_text(self.markdown(), encoding="utf-8")
        return js, md
