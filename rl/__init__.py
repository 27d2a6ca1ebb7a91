"""Training side: F1 reward, distractor mixing, adaptive batch filling, recipe presets, datasets, veRL and TRL integration.

Heavy stacks (torch, transformers, veRL, TRL, sentence-transformers) are imported lazily by the
modules that need them, so `import rl` stays cheap.
"""

from rl._embedding import Embedder, EmbeddingCache
from rl.batch_filling import BatchFiller, StepStats, reward_std
from rl.datasets import (
    AGENT_NAME,
    PrepareReport,
    RlTask,
    build_tasks,
    load_envs,
    prepare,
    read_trl_tasks,
)
from rl.distractors import (
    Distractor,
    DistractorConfig,
    DistractorMode,
    DistractorSampler,
    PoolTool,
    ToolPool,
    pool_tools_from_docs,
    sample_distractors,
)
from rl.exceptions import BatchFillingError, DatasetError, RlError, TrainingSetupError
from rl.presets import (
    PRESETS,
    GrpoSettings,
    Preset,
    SftSettings,
    default_preset,
    get_preset,
)
from rl.reward import RewardParts, f1_reward

__all__ = [
    "AGENT_NAME",
    "PRESETS",
    "BatchFiller",
    "BatchFillingError",
    "DatasetError",
    "Distractor",
    "DistractorConfig",
    "DistractorMode",
    "DistractorSampler",
    "Embedder",
    "EmbeddingCache",
    "GrpoSettings",
    "PoolTool",
    "PrepareReport",
    "Preset",
    "RewardParts",
    "RlError",
    "RlTask",
    "SftSettings",
    "StepStats",
    "ToolPool",
    "TrainingSetupError",
    "build_tasks",
    "default_preset",
    "f1_reward",
    "get_preset",
    "load_envs",
    "pool_tools_from_docs",
    "prepare",
    "read_trl_tasks",
    "reward_std",
    "sample_distractors",
]
