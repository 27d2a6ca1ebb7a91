"""Training side: F1 reward, distractor mixing, adaptive batch filling, datasets, veRL and TRL integration.

Heavy stacks (torch, transformers, veRL, TRL, sentence-transformers) are imported lazily by the
modules that need them, so `import rl` stays cheap.
"""

from rl._embedding import Embedder, EmbeddingCache
from rl.batch_filling import BatchFiller, StepStats, reward_std
from rl.datasets import AGENT_NAME, PrepareReport, RlTask, build_tasks, load_envs, prepare, read_trl_tasks
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
from rl.exceptions import DatasetError, RlError, TrainingSetupError
from rl.reward import RewardParts, f1_reward

__all__ = [
    "AGENT_NAME",
    "BatchFiller",
    "DatasetError",
    "Distractor",
    "DistractorConfig",
    "DistractorMode",
    "DistractorSampler",
    "Embedder",
    "EmbeddingCache",
    "PoolTool",
    "PrepareReport",
    "RewardParts",
    "RlError",
    "RlTask",
    "StepStats",
    "ToolPool",
    "TrainingSetupError",
    "build_tasks",
    "f1_reward",
    "load_envs",
    "pool_tools_from_docs",
    "prepare",
    "read_trl_tasks",
    "reward_std",
    "sample_distractors",
]
