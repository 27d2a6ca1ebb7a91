"""veRL integration (extra `verl`): the MCP agent loop, its tool parser, GRPO config with ASTRA's recipe, launcher, SFT dataset.

Importing this package registers the agent loop under `rl.datasets.AGENT_NAME` and the tool
parser under `ASTRA_TOOL_PARSER`.
"""

from rl.verl._agent_loop import REWARD_KEYS, McpAgentLoop
from rl.verl._config import VerlRecipe, check_recipe, compose_config, recipe_overrides, require_gpu, resolve_verl_model, verl_command, verl_recipe
from rl.verl._launch import launch_verl, print_command
from rl.verl._schema import sanitize_property, sanitize_tool
from rl.verl._sft_dataset import JsonMultiTurnSFTDataset
from rl.verl._tool_parser import ASTRA_TOOL_PARSER, AstraToolParser

__all__ = [
    "ASTRA_TOOL_PARSER",
    "REWARD_KEYS",
    "AstraToolParser",
    "JsonMultiTurnSFTDataset",
    "McpAgentLoop",
    "VerlRecipe",
    "check_recipe",
    "compose_config",
    "launch_verl",
    "print_command",
    "recipe_overrides",
    "require_gpu",
    "resolve_verl_model",
    "sanitize_property",
    "sanitize_tool",
    "verl_command",
    "verl_recipe",
]
