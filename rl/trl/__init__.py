"""TRL integration (extra `train`): GRPO in environment mode over arena MCP sessions, and SFT."""

from rl.trl._env import McpToolEnv, env_class, environment_factories, f1_reward_func, tool_method
from rl.trl._grpo import TrainReport, TrlRecipe, plot_rewards, train_grpo
from rl.trl._sft import SftRecipe, SftReport, train_sft

__all__ = [
    "McpToolEnv",
    "SftRecipe",
    "SftReport",
    "TrainReport",
    "TrlRecipe",
    "env_class",
    "environment_factories",
    "f1_reward_func",
    "plot_rewards",
    "tool_method",
    "train_grpo",
    "train_sft",
]
