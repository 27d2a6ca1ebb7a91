"""TRL integration (extra `train`): GRPO in environment mode over arena MCP sessions, and SFT."""

from rl.trl._env import EnvStats, McpToolEnv, env_class, env_stats, environment_factories, f1_reward_func, tool_method
from rl.trl._grpo import TrainReport, TrlRecipe, plot_rewards, train_grpo
from rl.trl._parsing import ResponseParser, agent_response_parser
from rl.trl._sft import SftRecipe, SftReport, train_sft

__all__ = [
    "EnvStats",
    "McpToolEnv",
    "ResponseParser",
    "SftRecipe",
    "SftReport",
    "TrainReport",
    "TrlRecipe",
    "agent_response_parser",
    "env_class",
    "env_stats",
    "environment_factories",
    "f1_reward_func",
    "plot_rewards",
    "tool_method",
    "train_grpo",
    "train_sft",
]
