"""95% bootstrap intervals for per-episode metrics, alone and paired.

An evaluation plays k seeded episodes on each of a few environments, so episodes are not
independent: two episodes of one environment share its difficulty. The bootstrap therefore
resamples environments, then episodes within each drawn environment (a two-stage bootstrap),
and a paired difference resamples (environment, seed) pairs the same way, so two models that
played the same seeds are compared on the same draws.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, Field

__all__ = ["BOOTSTRAP_DRAWS", "Interval", "bootstrap_interval", "paired_interval"]

BOOTSTRAP_DRAWS = 2000
"""Resamples per interval: enough for stable 2.5% / 97.5% quantiles at these sizes."""


class Interval(BaseModel):
    """A mean and its 95% bootstrap interval."""

    mean: float
    low: float
    high: float
    envs: int = Field(description="Environments the mean is over.")
    episodes: int = Field(description="Episodes (or episode pairs) the mean is over.")

    @property
    def excludes_zero(self) -> bool:
        """Whether the whole interval lies on one side of 0 (for a difference: a real one)."""
        return self.low > 0 or self.high < 0

    def text(self, digits: int = 3) -> str:
        """`0.251 [0.180, 0.322]`."""
        return f"{self.mean:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"


def _mean_of_means(groups: Sequence[Sequence[float]]) -> float:
    # every environment weighs the same, however many episodes it has
    return sum(sum(g) / len(g) for g in groups) / len(groups)


def bootstrap_interval(by_env: Mapping[str, Sequence[float]], *, draws: int = BOOTSTRAP_DRAWS, seed: int = 0) -> Interval:
    """The mean over environments of each environment's mean episode value, with its 95% interval.

    Args:
        by_env: environment -> its episodes' values (environments with no episode are left out).
        draws: bootstrap resamples.
        seed: the resampling seed (the interval is deterministic for a seed).

    Raises:
        ValueError: when no environment has an episode.
    """
    groups = [list(v) for v in by_env.values() if len(v)]
    if not groups:
        raise ValueError("no episodes to take an interval over")
    rng = random.Random(seed)
    stats = []
    for _ in range(draws):
        drawn = [groups[rng.randrange(len(groups))] for _ in groups]
        stats.append(_mean_of_means([[g[rng.randrange(len(g))] for _ in g] for g in drawn]))
    stats.sort()
    return Interval(
        mean=_mean_of_means(groups), low=stats[int(0.025 * draws)], high=stats[min(draws - 1, int(0.975 * draws))],
        envs=len(groups), episodes=sum(len(g) for g in groups),
    )  # fmt: skip


def paired_interval(
    before: Mapping[tuple[str, int], float], after: Mapping[tuple[str, int], float], *, draws: int = BOOTSTRAP_DRAWS, seed: int = 0
) -> Interval:
    """The mean of `after - before` over the (environment, seed) episodes both played, with its 95% interval.

    Raises:
        ValueError: when the two share no episode.
    """
    by_env: dict[str, list[float]] = {}
    for key in sorted(set(before) & set(after)):
        by_env.setdefault(key[0], []).append(after[key] - before[key])
    if not by_env:
        raise ValueError("the two evaluations share no (environment, seed) episode")
    return bootstrap_interval(by_env, draws=draws, seed=seed)
