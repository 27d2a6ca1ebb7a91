"""Training side: F1 reward, distractor mixing, adaptive batch filling, datasets, veRL and TRL integration.

Heavy stacks (torch, transformers, veRL, TRL, sentence-transformers) are imported lazily by the
modules that need them, so `import rl` stays cheap.
"""

from rl.batch_filling import BatchFiller, StepStats, reward_std
from rl.distractors import (
    Distractor,
    DistractorConfig,
    DistractorMode,
    DistractorSampler,
    PoolTool,
    ToolPool,
    sample_distractors,
)
from rl.exceptions import DatasetError, RlError, TrainingSetupError

__all__ = [
    "BatchFiller",
    "DatasetError",
    "Distractor",
    "DistractorConfig",
    "DistractorMode",
    "DistractorSampler",
    "PoolTool",
    "RlError",
    "StepStats",
    "ToolPool",
    "TrainingSetupError",
    "reward_std",
    "sample_distractors",
]
