"""ASTRA's adaptive batch filling.

GRPO learns nothing from a group whose rollouts all got the same reward (every advantage is
zero). ASTRA keeps generating rollout groups, keeps only groups whose reward standard
deviation exceeds δ, fills the step's batch with the first n valid groups, and carries the
surplus valid groups over to the next step in a buffer (which always holds fewer than n).

`BatchFiller` is that rule over any group type; the TRL engine drives it round by round
(`rl.trl` GRPO trainer hook) and the veRL engine applies the same rule in its replay buffer
(`rl.verl` sampler). Both report a `StepStats` per step and stop with `BatchFillingError`
when `max_rounds` generation rounds in one step do not fill the batch.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from pydantic import BaseModel

from rl.exceptions import BatchFillingError

G = TypeVar("G")


def reward_std(rewards: Sequence[float]) -> float:
    """Population standard deviation of a group's rewards (0 for fewer than two; NaNs are ignored)."""
    values = [r for r in rewards if not math.isnan(r)]
    if len(values) < 2:
        return 0.0
    mean = sum(values) / len(values)
    return math.sqrt(sum((r - mean) ** 2 for r in values) / len(values))


class StepStats(BaseModel):
    """What batch filling did in one training step."""

    kept: int = 0
    """Groups in the step's batch (from the buffer plus fresh valid ones)."""
    valid: int = 0
    """Valid groups generated during this step (not counting those taken from the buffer)."""
    invalid: int = 0
    """Groups generated during this step and discarded (reward std <= δ)."""
    from_buffer: int = 0
    """Groups of the batch that came from the previous step's surplus."""
    carried: int = 0
    """Valid groups left in the buffer for the next step."""
    dropped: int = 0
    """Surplus valid groups dropped because the buffer must hold fewer than n (the oldest go)."""
    generation_rounds: float = 0
    """Generation rounds this step (a round is one batch of prompts; veRL refills per prompt, so fractional)."""
    streak: int = 0
    """Consecutive discarded groups at the end of the step, across steps (0 right after a valid group)."""
    filled: bool = False
    """Whether the batch reached n groups (False: the generator ran dry first)."""

    def metrics(self, prefix: str = "batch_filling") -> dict[str, float]:
        """The numbers as a flat metrics dict (`prefix/kept`, `prefix/discarded`, ...) for the training log."""
        return {
            f"{prefix}/kept": float(self.kept),
            f"{prefix}/discarded": float(self.invalid),
            f"{prefix}/carried": float(self.carried),
            f"{prefix}/from_buffer": float(self.from_buffer),
            f"{prefix}/dropped": float(self.dropped),
            f"{prefix}/rounds": float(self.generation_rounds),
            f"{prefix}/valid_share": self.valid / (self.valid + self.invalid) if self.valid + self.invalid else 0.0,
        }

    def summary(self) -> str:
        """One log line."""
        return (
            f"kept {self.kept} groups ({self.from_buffer} from the buffer), discarded {self.invalid}, "
            f"carried {self.carried}, dropped {self.dropped}, rounds {self.generation_rounds:g}"
        )


@dataclass(kw_only=True)
class BatchFiller(Generic[G]):
    """Fills batches of n valid rollout groups, buffering the surplus.

    Args:
        n: groups per batch (the train batch size in prompts).
        delta: a group is valid when its reward std is strictly greater than this.
        rewards: how to read the rewards of a group.
        max_rounds: generation rounds per step; reaching it with a partial batch raises `BatchFillingError`.
    """

    n: int
    rewards: Callable[[G], Sequence[float]]
    delta: float = 0.0
    max_rounds: int = 64
    buffer: list[G] = field(default_factory=list)
    history: list[StepStats] = field(default_factory=list)
    streak: int = 0
    """Consecutive invalid groups seen (across steps) since the last valid one."""

    def __post_init__(self) -> None:
        if self.n < 1:
            raise ValueError(f"n must be >= 1, got {self.n}")
        if self.delta < 0:
            raise ValueError(f"delta must be >= 0, got {self.delta}")
        if self.max_rounds < 1:
            raise ValueError(f"max_rounds must be >= 1, got {self.max_rounds}")

    def is_valid(self, group: G) -> bool:
        """Whether a group carries a learning signal (reward std > δ)."""
        return reward_std(self.rewards(group)) > self.delta

    def fill(self, generate: Callable[[], Iterable[G]]) -> tuple[list[G], StepStats]:
        """One step's batch: buffered groups first, then freshly generated valid ones.

        `generate()` is called for one round of groups (e.g. one dataloader batch rolled out)
        until the batch holds n groups; an empty round ends the step early with a partial batch.

        Raises:
            BatchFillingError: when `max_rounds` rounds did not fill the batch.
        """
        batch, stats = self._begin()
        while self._wants_round(batch, stats):
            if not self._take(generate(), batch, stats):
                break
        return self._finish(batch, stats)

    async def afill(self, generate: Callable[[], Awaitable[Iterable[G]]]) -> tuple[list[G], StepStats]:
        """`fill` for an async round generator (rollouts played over MCP)."""
        batch, stats = self._begin()
        while self._wants_round(batch, stats):
            if not self._take(await generate(), batch, stats):
                break
        return self._finish(batch, stats)

    def _begin(self) -> tuple[list[G], StepStats]:
        stats = StepStats()
        batch = self.buffer[: self.n]
        stats.from_buffer = len(batch)
        self.buffer = self.buffer[self.n :]
        return batch, stats

    def _wants_round(self, batch: list[G], stats: StepStats) -> bool:
        if len(batch) >= self.n:
            return False
        if stats.generation_rounds >= self.max_rounds:
            raise BatchFillingError(
                max_rounds=self.max_rounds, rounds=int(stats.generation_rounds), kept=len(batch), needed=self.n,
                streak=self.streak, delta=self.delta,
            )
        stats.generation_rounds += 1
        return True

    def _take(self, groups: Iterable[G], batch: list[G], stats: StepStats) -> bool:
        """Sort one round's groups into the batch, the buffer or the discards; False when the round was empty."""
        produced = False
        for group in groups:
            produced = True
            if not self.is_valid(group):
                stats.invalid += 1
                self.streak += 1
                continue
            stats.valid += 1
            self.streak = 0
            if len(batch) < self.n:
                batch.append(group)
            else:
                self.buffer.append(group)
        return produced

    def _finish(self, batch: list[G], stats: StepStats) -> tuple[list[G], StepStats]:
        # The buffer must hold fewer than n groups: older surplus beyond that is dropped,
        # keeping the freshest (closest to the current policy).
        if len(self.buffer) >= self.n:
            keep = self.n - 1
            stats.dropped = len(self.buffer) - keep
            self.buffer = self.buffer[len(self.buffer) - keep :] if keep else []
        stats.kept = len(batch)
        stats.carried = len(self.buffer)
        stats.streak = self.streak
        stats.filled = len(batch) == self.n
        self.history.append(stats)
        return batch, stats
