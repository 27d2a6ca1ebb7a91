"""veRL integration (extra `verl`): the MCP agent loop, GRPO config with ASTRA's recipe, launcher, SFT dataset.

Importing this package registers the agent loop under `rl.datasets.AGENT_NAME`.
"""

from rl.verl._agent_loop import REWARD_KEYS, McpAgentLoop
from rl.verl._config import VerlRecipe, require_gpu
from rl.verl._launch import launch_verl, print_command
from rl.verl._schema import sanitize_property, sanitize_tool
from rl.verl._sft_dataset import JsonMultiTurnSFTDataset

__all__ = [
    "REWARD_KEYS",
    "JsonMultiTurnSFTDataset",
    "McpAgentLoop",
    "VerlRecipe",
    "launch_verl",
    "print_command",
    "require_gpu",
    "sanitize_property",
    "sanitize_tool",
]
