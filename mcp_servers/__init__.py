"""Environments as sandboxed MCP servers: spec, runtime, stdio / HTTP / arena serving, verify."""

from mcp_servers._arena import ArenaServer, serve_app
from mcp_servers._arena_run import RunningArena, arena_env_url, serve_arena
from mcp_servers._check_code import CheckCode
from mcp_servers._config import SandboxConfig
from mcp_servers._emit import emit_env
from mcp_servers._emulator import (
    CompletionModel,
    EmulatedTool,
    EmulatorConfig,
    EmulatorMessage,
    EmulatorStats,
    ToolEmulator,
    injected_failure_kind,
)
from mcp_servers._isolation import Isolation
from mcp_servers._order import (
    Dependent,
    dependency_depths,
    dependency_levels,
    dependency_order,
    dependency_scenario,
    golden_levels,
    golden_order,
)
from mcp_servers._sandbox import LocalSandbox, Sandbox, SandboxSession, ToolOutcome
from mcp_servers._serve import serve_http, serve_stdio
from mcp_servers._server import Binding, EnvServer, build_env_server, outcome_to_result
from mcp_servers._spec import (
    Environment,
    EnvSpec,
    GoldenCall,
    Limits,
    Source,
    Subtask,
    Task,
    ToolSpec,
    canonical_json,
    compute_env_id,
    find_envs,
    load_env,
    load_envs,
)
from mcp_servers._verify import EnvReport, VerifyReport, expand_env_paths, verify_env, verify_paths
from mcp_servers._verify_checks import CHECK_CODES, FINDING_CODES, Finding, FindingCode, answer_in_output, generic_answer_reason, normalize_answer, perturbations
from mcp_servers.exceptions import EnvLoadError, McpServersError, SandboxError, SandboxUnavailable

__all__ = [
    "ArenaServer",
    "RunningArena",
    "Binding",
    "CHECK_CODES",
    "CheckCode",
    "CompletionModel",
    "EmulatedTool",
    "EmulatorConfig",
    "EmulatorMessage",
    "EmulatorStats",
    "EnvLoadError",
    "EnvReport",
    "EnvServer",
    "EnvSpec",
    "Environment",
    "FINDING_CODES",
    "Finding",
    "FindingCode",
    "GoldenCall",
    "Isolation",
    "Limits",
    "LocalSandbox",
    "McpServersError",
    "Sandbox",
    "SandboxConfig",
    "SandboxError",
    "SandboxSession",
    "SandboxUnavailable",
    "Source",
    "Subtask",
    "Task",
    "ToolEmulator",
    "ToolOutcome",
    "ToolSpec",
    "VerifyReport",
    "answer_in_output",
    "generic_answer_reason",
    "build_env_server",
    "canonical_json",
    "compute_env_id",
    "emit_env",
    "expand_env_paths",
    "arena_env_url",
    "dependency_depths",
    "dependency_order",
    "dependency_scenario",
    "find_envs",
    "golden_levels",
    "golden_order",
    "injected_failure_kind",
    "load_env",
    "load_envs",
    "normalize_answer",
    "perturbations",
    "outcome_to_result",
    "serve_app",
    "serve_arena",
    "serve_http",
    "serve_stdio",
    "verify_env",
    "verify_paths",
]
