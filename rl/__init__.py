"""Training side: F1 reward, distractor mixing, adaptive batch filling, datasets, veRL and TRL integration.

Heavy stacks (torch, transformers, veRL, TRL, sentence-transformers) are imported lazily by the
modules that need them, so `import rl` stays cheap.
"""

from rl._embedding import Embedder, EmbeddingCache
from rl.batch_filling import BatchFiller, StepStats, reward_std
from rl.cold_start import (
    ColdStartConfig,
    ColdStartStats,
    RejectedRecord,
    SkippedEnv,
    cold_start,
    golden_waves,
    replay_golden,
)
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
from rl.sft_files import MixReport, mix_sft, read_sft_file, write_sft_files

__all__ = [
    "AGENT_NAME",
    "BatchFiller",
    "ColdStartConfig",
    "ColdStartStats",
    "DatasetError",
    "Distractor",
    "DistractorConfig",
    "DistractorMode",
    "DistractorSampler",
    "Embedder",
    "EmbeddingCache",
    "MixReport",
    "PoolTool",
    "PrepareReport",
    "RejectedRecord",
    "RewardParts",
    "RlError",
    "RlTask",
    "SkippedEnv",
    "StepStats",
    "ToolPool",
    "TrainingSetupError",
    "build_tasks",
    "cold_start",
    "f1_reward",
    "golden_waves",
    "load_envs",
    "mix_sft",
    "pool_tools_from_docs",
    "prepare",
    "read_sft_file",
    "read_trl_tasks",
    "replay_golden",
    "reward_std",
    "sample_distractors",
    "write_sft_files",
]
