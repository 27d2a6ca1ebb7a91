"""Served GRPO: rollouts from the policy served by vLLM over the arena, updates in this process.

The GRPO engine for machines where TRL's in-process generation is too slow (a CPU): see
`rl.served._trainer`.
"""

from rl.served._rollouts import Rollout, RolloutGroup, RolloutSettings, play_episode, play_group, play_round
from rl.served._trainer import ServedRecipe, StepRecord, train_served_grpo
from rl.served._update import PolicyUpdate, UpdateStats
from rl.served._validation import ValidationRecord, play_validation

__all__ = [
    "PolicyUpdate",
    "Rollout",
    "RolloutGroup",
    "RolloutSettings",
    "ServedRecipe",
    "StepRecord",
    "UpdateStats",
    "ValidationRecord",
    "play_episode",
    "play_group",
    "play_round",
    "play_validation",
    "train_served_grpo",
]
