"""Results tables: per benchmark and category, with trials, intervals and published reference rows."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, Field

__all__ = ["REFERENCE_ROWS", "BenchmarkRow", "ReferenceRow", "RunInfo", "Summary", "wilson_interval"]


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


_OVERALL = {
    ("BFCL-v3 multi-turn", "overall"): tuple(c for b, c in _COLUMNS[:4]),
    ("tau2-bench", "overall (retail, telecom)"): ("retail", "telecom"),
    ("ACEBench", "overall (agent)"): ("agent_multi_turn", "agent_multi_step"),
}
"""The paper's overall columns: unweighted means of these categories (e.g. BFCL 54.00, 39.50, 39.00, 45.50 -> 44.50)."""


class RunInfo(BaseModel):
    """What one label in a summary evaluated."""

    model: str = Field(description="The model option: URL, checkpoint directory, `embedded` or `local`.")
    protocol: str = Field(default="full", description="`full`, `sampled` or a protocol file.")


class Summary(BaseModel):
    """Everything the runs written into one directory scored, as JSON and markdown.

    `model` is the label of the current run (e.g. `base`); runs with other labels written into
    the same directory keep their rows, so a base and a trained model sit side by side.
    """

    model: str
    runs: dict[str, RunInfo] = Field(default_factory=dict, description="Label -> what it evaluated.")
    rows: list[BenchmarkRow] = Field(default_factory=list)
    references: list[ReferenceRow] = Field(default_factory=lambda: list(REFERENCE_ROWS))
    notes: list[str] = Field(default_factory=list)

    def add(self, row: BenchmarkRow, directory: Path) -> None:
        """Add `row` and rewrite the summary files in `directory` (a run's rows add up as tests finish)."""
        self.rows.append(row)
        self.write(directory)

    def comparison(self, benchmark: str) -> list[str]:
        """Markdown lines: one row per category, a column per label (score and n), then the published models."""
        labels = list(dict.fromkeys(r.model for r in self.rows if r.benchmark == benchmark))
        published = list(dict.fromkeys(r.model for r in self.references if r.benchmark == benchmark))
        ours = {(r.model, r.category): r for r in self.rows if r.benchmark == benchmark}
        theirs = {(r.model, r.category): r.score for r in self.references if r.benchmark == benchmark}
        categories = list(dict.fromkeys([c for _, c in ours] + [c for _, c in theirs]))
        lines = ["| category | " + " | ".join([*labels, *(f"{m} (published)" for m in published)]) + " |",
                 "|---|" + "---|" * (len(labels) + len(published))]
        for category in categories:
            cells = [_cell(ours.get((label, category)), self._overall(label, benchmark, category)) for label in labels]
            cells += [f"{theirs[(m, category)]:.3f}" if (m, category) in theirs else "" for m in published]
            lines.append(f"| {category} | " + " | ".join(cells) + " |")
        return lines

    def _overall(self, label: str, benchmark: str, category: str) -> float | None:
        parts = _OVERALL.get((benchmark, category))
        scores = {r.category: r.score for r in self.rows if r.model == label and r.benchmark == benchmark}
        if not parts or not all(p in scores for p in parts):
            return None
        return sum(scores[p] for p in parts) / len(parts)

    def markdown(self) -> str:
        """Per benchmark: the labels side by side with the published rows, then this summary's rows in detail."""
        lines = ["# Evaluation", "", "| label | model | protocol |", "|---|---|---|"]
        lines += [f"| {label} | {run.model} | {run.protocol} |" for label, run in self.runs.items()]
        lines.append("")
        for bench in sorted({r.benchmark for r in self.rows} | {r.benchmark for r in self.references}):
            lines += [f"## {bench}", "", *self.comparison(bench), ""]
            rows = [r for r in self.rows if r.benchmark == bench]
            if not rows:
                continue
            lines += ["| model | category | n | trials | score | 95% CI | other |", "|---|---|---|---|---|---|---|"]
            for r in rows:
                ci = f"[{r.ci95[0]:.3f}, {r.ci95[1]:.3f}]" if r.ci95 else ""
                other = ", ".join(f"{k}={v:.3f}" for k, v in r.extra.items())
                lines.append(f"| {r.model} | {r.category} | {r.n} | {r.trials} | {r.score:.3f} | {ci} | {other} |")
            lines.append("")
        sources = sorted({r.source for r in self.references})
        lines += [f"- Published rows: {', '.join(sources)}." if sources else "", *(f"- {n}" for n in self.notes)]
        return "\n".join(lines).rstrip() + "\n"

    def write(self, directory: Path) -> tuple[Path, Path]:
        """Write `summary.json` and `summary.md` into `directory`.

        Rows already there are kept unless this summary has a row for the same label, benchmark
        and category (the latest wins), so runs into one directory (one benchmark at a time, or
        a base and a trained model under two labels) add up to one summary.
        """
        directory.mkdir(parents=True, exist_ok=True)
        js, md = directory / "summary.json", directory / "summary.md"
        if js.exists():
            previous = Summary.model_validate_json(js.read_text(encoding="utf-8"))
            merged = {(r.model, r.benchmark, r.category): r for r in previous.rows}
            merged.update({(r.model, r.benchmark, r.category): r for r in self.rows})
            self.rows = list(merged.values())
            self.runs = {**previous.runs, **self.runs}
        js.write_text(json.dumps(self.model_dump(mode="json"), indent=2) + "\n", encoding="utf-8")
        md.write_text(self.markdown(), encoding="utf-8")
        return js, md


def _cell(row: BenchmarkRow | None, overall: float | None) -> str:
    if row is not None:
        return f"{row.score:.3f} (n={row.n})"
    return f"{overall:.3f}" if overall is not None else ""
