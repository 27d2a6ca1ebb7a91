"""veRL integration (extra `verl`): the MCP agent loop, GRPO config with ASTRA's recipe, launcher.

Importing this package registers the agent loop under `rl.datasets.AGENT_NAME`.
"""

from rl.verl._agent_loop import REWARD_KEYS, McpAgentLoop
from rl.verl._schema import sanitize_property, sanitize_tool

__all__ = ["REWARD_KEYS", "McpAgentLoop", "sanitize_property", "sanitize_tool"]
