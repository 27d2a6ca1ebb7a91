"""The frame the model tests (`test_model_on_*`) share: which categories run, playing them, their summary rows.

A model test names its benchmark and category, plays the entries through `CategoryRun.play`,
writes the benchmark's own result files and adds its row with `CategoryRun.add_row`; the
`category_run` fixture (evals/conftest.py) skips it when this run does not evaluate the category.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import pytest
from harness import BenchmarkRow, EvalConfig, EvalModels, Summary

__all__ = ["BENCHMARK_TITLES", "CategoryRun", "OpenCategory", "model_test"]

T = TypeVar("T")
R = TypeVar("R")
F = TypeVar("F", bound=Callable[..., Awaitable[None]])

BENCHMARK_TITLES = {"bfcl": "BFCL-v3 multi-turn", "tau2": "tau2-bench", "acebench": "ACEBench"}
"""Each benchmark's selector name (`--categories bfcl:...`) -> its name in the summary and the published tables."""


def model_test(argname: str, values: Sequence[str]) -> Callable[[F], F]:
    """Mark an async model test, run once per category in `values` (passed as `argname`) and never timed out.

    A benchmark category takes as long as the model takes, so the suite's per-test timeout is off.
    """

    def mark(test: F) -> F:
        return pytest.mark.anyio(pytest.mark.timeout(0)(pytest.mark.parametrize(argname, values)(test)))

    return mark


@dataclass(frozen=True, kw_only=True)
class CategoryRun:
    """One benchmark category a model test evaluates, with the run's options, models and summary."""

    benchmark: str
    """The selector name: `bfcl`, `tau2` or `acebench`."""
    category: str
    """The category (for tau2 the variant, e.g. `telecom-solo`)."""
    config: EvalConfig
    """The run's options (trials, protocol, limit, output directories)."""
    models: EvalModels
    """The evaluated model and the simulated user (`models.chat_model(user=...)`)."""
    summary: Summary
    """The run's summary, which `add_row` adds to."""

    async def play(
        self, items: Sequence[T], id_of: Callable[[T], str], play: Callable[[T], Awaitable[R]]
    ) -> list[tuple[T, int, R]]:
        """Play each item this run selects of the category `trials` times: (item, trial, result), in order.

        Raises:
            UserError: when the protocol names an id the benchmark data does not have.
        """
        return await self.config.play(self.benchmark, self.category, items, id_of, play)

    def add_row(self, scores: Sequence[float], *, extra: dict[str, float]) -> BenchmarkRow:
        """The category's row from per-episode scores (and secondary metrics), added to the summary files."""
        row = BenchmarkRow.from_scores(BENCHMARK_TITLES[self.benchmark], self.category, self.summary.model, scores,
                                       trials=self.config.trials, extra=extra)
        self.summary.add(row, self.config.out_dir)
        return row


OpenCategory = Callable[[str, str], CategoryRun]
"""The `category_run` fixture: `(benchmark, category)` -> that category's `CategoryRun`, or the test skips."""
