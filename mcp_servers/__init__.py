"""Environments as sandboxed MCP servers: spec, runtime, stdio / HTTP / arena serving, verify."""

from mcp_servers._spec import (
    EnvSpec,
    Environment,
    GoldenCall,
    Limits,
    Source,
    Subtask,
    Task,
    ToolSpec,
    compute_env_id,
    find_envs,
    load_env,
)
from mcp_servers.exceptions import EnvLoadError, McpServersError, SandboxError, SandboxUnavailable

__all__ = [
    "EnvLoadError",
    "EnvSpec",
    "Environment",
    "GoldenCall",
    "Limits",
    "McpServersError",
    "SandboxError",
    "SandboxUnavailable",
    "Source",
    "Subtask",
    "Task",
    "ToolSpec",
    "compute_env_id",
    "find_envs",
    "load_env",
]
