"""Served GRPO: rollouts from the policy served by vLLM over the arena, updates in this process.

The GRPO engine for machines where TRL's in-process generation is too slow (a CPU): see
`rl.served._trainer`.
"""

from rl.served._rollouts import Rollout, RolloutGroup, RolloutSettings, play_group, play_round
from rl.served._trainer import ServedRecipe, StepRecord, train_served_grpo
from rl.served._update import PolicyUpdate, UpdateStats

__all__ = [
    "PolicyUpdate",
    "Rollout",
    "RolloutGroup",
    "RolloutSettings",
    "ServedRecipe",
    "StepRecord",
    "UpdateStats",
    "play_group",
    "play_round",
    "train_served_grpo",
]
