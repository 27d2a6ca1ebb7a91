"""ASTRA's adaptive batch filling.

GRPO learns nothing from a group whose rollouts all got the same reward (every advantage is
zero). ASTRA keeps generating rollout groups, keeps only groups whose reward standard
deviation exceeds δ, fills the step's batch with the first n valid groups, and carries the
surplus valid groups over to the next step in a buffer (which always holds fewer than n).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

G = TypeVar("G")


def reward_std(rewards: Sequence[float]) -> float:
    """Population standard deviation of a group's rewards (0 for fewer than two)."""
    if len(rewards) < 2:
        return 0.0
    mean = sum(rewards) / len(rewards)
    return math.sqrt(sum((r - mean) ** 2 for r in rewards) / len(rewards))


@dataclass(kw_only=True)
class StepStats:
    """What one `fill` saw."""

    valid: int = 0
    """Valid groups generated during this step (not counting those taken from the buffer)."""
    invalid: int = 0
    """Groups generated during this step and dropped (reward std <= δ)."""
    from_buffer: int = 0
    """Groups of the batch that came from the previous step's surplus."""
    carried: int = 0
    """Valid groups left in the buffer for the next step."""
    generation_rounds: int = 0
    """How many times the generator was asked for more groups."""
    filled: bool = False
    """Whether the batch reached n groups (False: the generator ran dry first)."""


@dataclass(kw_only=True)
class BatchFiller(Generic[G]):
    """Fills batches of n valid rollout groups, buffering the surplus.

    Args:
        n: groups per batch (the train batch size in prompts).
        delta: a group is valid when its reward std is strictly greater than this.
        rewards: how to read the rewards of a group.
        max_rounds: generation rounds per step before giving up with a partial batch.
    """

    n: int
    rewards: Callable[[G], Sequence[float]]
    delta: float = 0.0
    max_rounds: int = 64
    buffer: list[G] = field(default_factory=list)
    history: list[StepStats] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.n < 1:
            raise ValueError(f"n must be >= 1, got {self.n}")
        if self.delta < 0:
            raise ValueError(f"delta must be >= 0, got {self.delta}")

    def is_valid(self, group: G) -> bool:
        """Whether a group carries a learning signal (reward std > δ)."""
        return reward_std(self.rewards(group)) > self.delta

    def fill(self, generate: Callable[[], Iterable[G]]) -> tuple[list[G], StepStats]:
        """One step's batch: buffered groups first, then freshly generated valid ones.

        `generate()` is called for one round of groups (e.g. one dataloader batch rolled out)
        until the batch holds n groups; an empty round ends the step early.
        """
        stats = StepStats()
        batch = self.buffer[: self.n]
        stats.from_buffer = len(batch)
        self.buffer = self.buffer[self.n :]
        while len(batch) < self.n and stats.generation_rounds < self.max_rounds:
            stats.generation_rounds += 1
            produced = False
            for group in generate():
                produced = True
                if not self.is_valid(group):
                    stats.invalid += 1
                    continue
                stats.valid += 1
                if len(batch) < self.n:
                    batch.append(group)
                else:
                    self.buffer.append(group)
            if not produced:
                break
        # The buffer must hold fewer than n groups: older surplus beyond that is dropped,
        # keeping the freshest (closest to the current policy).
        if len(self.buffer) >= self.n:
            self.buffer = self.buffer[-(self.n - 1) :] if self.n > 1 else []
        stats.carried = len(self.buffer)
        stats.filled = len(batch) == self.n
        self.history.append(stats)
        return batch, stats
