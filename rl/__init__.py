"""Training side: F1 reward, distractor mixing, adaptive batch filling, recipe presets, datasets, veRL and TRL integration.

Heavy stacks (torch, transformers, veRL, TRL, sentence-transformers) are imported lazily by the
modules that need them, so `import rl` stays cheap.
"""

from rl._embedding import Embedder, EmbeddingCache
from rl._models import resolve_model
from rl._train import Engine, train_grpo
from rl._train_report import TrainReport, plot_rewards
from rl.batch_filling import BatchFiller, StepStats, reward_std
from rl.cold_start import (
    ColdStartConfig,
    ColdStartStats,
    RejectedRecord,
    SkippedEnv,
    cold_start,
    final_answer_message,
    replay_golden,
)
from rl._models import load_policy
from rl.datasets import AGENT_NAME, PrepareReport, PromptLimit, RlTask, build_tasks, load_envs, prepare, read_trl_tasks
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
from rl.grpo_recipe import GrpoRecipe
from rl.presets import (
    PRESETS,
    GrpoSettings,
    Preset,
    SftSettings,
    default_preset,
    get_preset,
)
from rl.reward import RewardParts, answer_correctness, f1_reward
from rl.sft_files import MixReport, mix_sft, read_sft_file, write_sft_files

__all__ = [
    "AGENT_NAME",
    "PRESETS",
    "BatchFiller",
    "BatchFillingError",
    "ColdStartConfig",
    "ColdStartStats",
    "DatasetError",
    "Distractor",
    "DistractorConfig",
    "DistractorMode",
    "DistractorSampler",
    "Embedder",
    "EmbeddingCache",
    "Engine",
    "GrpoRecipe",
    "GrpoSettings",
    "MixReport",
    "PoolTool",
    "PrepareReport",
    "PromptLimit",
    "Preset",
    "RejectedRecord",
    "RewardParts",
    "RlError",
    "RlTask",
    "SftSettings",
    "SkippedEnv",
    "StepStats",
    "TrainReport",
    "ToolPool",
    "TrainingSetupError",
    "build_tasks",
    "cold_start",
    "default_preset",
    "answer_correctness",
    "f1_reward",
    "get_preset",
    "load_envs",
    "load_policy",
    "mix_sft",
    "pool_tools_from_docs",
    "plot_rewards",
    "prepare",
    "read_sft_file",
    "read_trl_tasks",
    "final_answer_message",
    "replay_golden",
    "resolve_model",
    "reward_std",
    "sample_distractors",
    "train_grpo",
    "write_sft_files",
]
