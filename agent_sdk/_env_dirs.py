"""Environment directories as MCP servers: each environment served in process on a sandbox."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

from agent_sdk._connections import McpServer
from agent_sdk.exceptions import UserError

__all__ = ["env_servers"]


@asynccontextmanager
async def env_servers(servers: Sequence[McpServer], *, sandbox: Any | None = None) -> AsyncIterator[list[McpServer]]:
    """`servers` with each environment directory replaced by in-process servers, one per environment.

    A directory holding `env.json` is one environment (named by the server's name, else by
    the directory); a directory of environments gives one server per subdirectory, named
    by it. The servers run their tools on `sandbox`, or on the sandbox `mcp_servers.SandboxConfig.from_env()`
    chooses (`ASTRA_SANDBOX`), opened for the duration of the block when none is given (and only when needed).

    Raises:
        UserError: for a directory with no environment in it or under it.
        EnvLoadError: for an environment that does not load (from `mcp_servers`).
        SandboxUnavailable: the configured sandbox cannot run here (from `mcp_servers`).
    """
    if not any(isinstance(s.target, Path) for s in servers):
        yield list(servers)
        return
    from mcp_servers import SandboxConfig, build_env_server, load_envs

    # Every environment is loaded before a sandbox starts, so a bad directory fails fast.
    plan: list[McpServer | tuple[Any, str]] = []
    for server in servers:
        if not isinstance(server.target, Path):
            plan.append(server)
            continue
        envs = load_envs(server.target)
        if not envs:
            raise UserError(f"{server.target}: no environment (env.json) in it or in its subdirectories")
        for env in envs:
            plan.append((env, server.name if server.name and len(envs) == 1 else Path(env.path or server.target).resolve().name))
    async with AsyncExitStack() as stack:
        if sandbox is None:
            sandbox = await stack.enter_async_context(SandboxConfig.from_env().build())
        yield [
            item if isinstance(item, McpServer) else McpServer(target=build_env_server(item[0], sandbox), name=item[1])
            for item in plan
        ]
