"""`serve_arena`: environments served as an arena in this process for as long as a block runs.

Every caller that needs the arena (the loop's cold start and evaluation, the GRPO engines, the
demo, `astra arena serve`) opens it here, so the sandbox is chosen in one place: the caller's
own, or `SandboxConfig.from_env()` (which honours `ASTRA_SANDBOX`). The handle knows its URLs,
so nobody formats `/envs/{env_id}/mcp` by hand.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from urllib.parse import quote

import anyio

from mcp_servers._arena import ArenaServer, serve_app
from mcp_servers._config import SandboxConfig
from mcp_servers._sandbox import Sandbox
from mcp_servers._spec import Environment

__all__ = ["RunningArena", "arena_env_url", "serve_arena"]

_ANY_ADDRESS = ("0.0.0.0", "::")


def arena_env_url(base_url: str, env_id: str, *, distractors: Sequence[str] = ()) -> str:
    """The URL of one environment of the arena at `base_url`, with `distractors` (`<env_id>.<tool>`) added to its tools."""
    url = f"{base_url.rstrip('/')}/envs/{env_id}/mcp"
    if distractors:
        url += "?distractors=" + quote(",".join(distractors), safe=",.")
    return url


@dataclass(frozen=True, kw_only=True)
class RunningArena:
    """An arena that is serving: its address, its server and the sandbox running its tool code."""

    base_url: str
    """`http://host:port` the arena answers at (a reachable address when bound to all interfaces)."""
    server: ArenaServer
    """The served `ArenaServer` (its `envs`, `open_sessions`, `index()`)."""
    sandbox: Sandbox
    """The sandbox running the environments' tool code."""

    @property
    def port(self) -> int:
        """The port the arena is bound to."""
        return int(self.base_url.rsplit(":", 1)[1])

    def url(self, env_id: str, *, distractors: Sequence[str] = ()) -> str:
        """The MCP endpoint of environment `env_id`, with `distractors` (`<env_id>.<tool>`) added to its tools."""
        return arena_env_url(self.base_url, env_id, distractors=distractors)


@asynccontextmanager
async def serve_arena(
    envs: Sequence[Environment],
    sandbox: Sandbox | SandboxConfig | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    prestart: bool = False,
) -> AsyncIterator[RunningArena]:
    """Serve `envs` at `/envs/{env_id}/mcp` over Streamable HTTP until the block exits.

    Args:
        envs: the environments (ids must be unique).
        sandbox: an open sandbox to run their tool code on (the caller keeps it open); a
            `SandboxConfig` to build one from; or None: `SandboxConfig.from_env()`. A sandbox
            built here is closed with the arena.
        host: the bind address ("0.0.0.0" for rollout workers on other machines).
        port: the port (0: any free one; the handle says which).
        prestart: start every memory limit's worker pool before the arena answers.

    Raises:
        SandboxUnavailable: the configured sandbox cannot run here (unknown `ASTRA_SANDBOX`, e2b
            without its key, no isolation mechanism without unsafe mode).
        ValueError: two environments share an id.
        OSError: the address cannot be bound.
    """
    async with AsyncExitStack() as stack:
        if not isinstance(sandbox, Sandbox):
            sandbox = await stack.enter_async_context((sandbox or SandboxConfig.from_env()).build())
        if prestart:
            for memory_mb in sorted({env.spec.limits.memory_mb for env in envs}):
                await sandbox.prestart(memory_mb)
        server = ArenaServer(envs, sandbox, host=host)
        async with anyio.create_task_group() as tg:
            bound = await tg.start(serve_app, server.app, host, port)
            reach = "127.0.0.1" if host in _ANY_ADDRESS else host
            try:
                yield RunningArena(base_url=f"http://{reach}:{bound}", server=server, sandbox=sandbox)
            finally:
                tg.cancel_scope.cancel()
