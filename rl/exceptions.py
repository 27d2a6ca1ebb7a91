"""Errors of the rl package.

    RlError
    ├── DatasetError          bad input to `astra rl prepare` or a malformed dataset row
    ├── TrainingSetupError    a missing extra, model, GPU or file before training starts
    └── BatchFillingError     adaptive batch filling hit its cap on generation rounds (no learning signal)
"""

from __future__ import annotations


class RlError(Exception):
    """Base class of rl errors."""


class DatasetError(RlError):
    """An environments directory or a dataset row that cannot be turned into training data."""


class TrainingSetupError(RlError):
    """Training cannot start: a missing dependency, model file or accelerator."""


class BatchFillingError(RlError):
    """Adaptive batch filling reached its cap on generation rounds before the batch held n valid groups.

    Raised instead of generating forever when rollouts keep getting identical rewards within each
    group (typically all zero: the policy makes no parsed tool call), so GRPO has nothing to learn.
    """

    def __init__(self, *, max_rounds: int, rounds: int, kept: int, needed: int, streak: int, delta: float) -> None:
        self.max_rounds = max_rounds
        self.rounds = rounds
        self.kept = kept
        self.needed = needed
        self.streak = streak
        self.delta = delta
        super().__init__(
            f"adaptive batch filling stopped at its cap of {max_rounds} generation rounds (max_fill_rounds) "
            f"with {kept}/{needed} valid groups; the last {streak} groups in a row had reward std <= delta={delta} "
            "(every rollout of a group scored the same, e.g. all 0: the policy makes no rewarded tool call). "
            "Start from a cold-started (SFT) policy, lower delta, or raise max_fill_rounds."
        )
