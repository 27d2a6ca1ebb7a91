"""`Toolbox`: the tools of one or many MCP servers, composed from the tool-source pieces.

A toolbox is a convenience over the pieces that each do one job: environment directories
become in-process servers (`env_servers`), each server is one `McpTools` session
(connection, reconnect, error mapping), several are merged by `CombinedTools` (collision
prefixes), then `FilteredTools` (allow/deny) and `TimeLimitedTools` (per-tool timeouts)
wrap the result. One toolbox is one episode's view of its environments.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from mcp import StdioServerParameters
from mcp.server import Server

from agent_sdk._combined import CombinedTools
from agent_sdk._connections import McpServer, ServerTarget, server_from_target
from agent_sdk._env_dirs import env_servers
from agent_sdk._mcp_tools import McpTools
from agent_sdk._tool_source import ToolInfo, ToolResult, ToolSource
from agent_sdk._wrappers import FilteredTools, TimeLimitedTools
from agent_sdk.exceptions import UserError

__all__ = ["Toolbox"]


class Toolbox:
    """Connect to MCP servers and call their tools (a `ToolSource`).

    Use as an async context manager; entering connects to every server concurrently and
    lists its tools, leaving closes every session (also on cancellation). Failures during
    calls are data: a timeout, a dropped transport or a tool error comes back as a
    `ToolResult` with `ok=False` and the episode continues; a dropped transport reconnects
    on the next call.

    Args:
        servers: what to connect to: URLs, environment directories, command lines (see
            `server_from_target`), `StdioServerParameters`, in-process `mcp.server.Server`s
            or `McpServer`s.
        timeout_s: default per-call timeout.
        tool_timeouts: per-tool timeouts, keyed by exposed or server-side tool name.
        allow: if given, only tools matching one of these glob patterns are exposed
            (matched against the exposed name, the server-side name and `server__tool`).
        deny: tools matching any of these patterns are hidden (deny wins over allow).
        connect_timeout_s: limit for connecting and listing tools, per server.
        sandbox: an open sandbox for environment directories (shared across toolboxes);
            by default the toolbox opens the one `ASTRA_SANDBOX` chooses when needed.
    """

    def __init__(
        self,
        servers: ServerTarget | Sequence[ServerTarget],
        *,
        timeout_s: float = 30.0,
        tool_timeouts: Mapping[str, float] | None = None,
        allow: Collection[str] | None = None,
        deny: Collection[str] | None = None,
        connect_timeout_s: float = 30.0,
        sandbox: Any | None = None,
    ) -> None:
        if isinstance(servers, (str, Path, StdioServerParameters, Server, McpServer)):
            servers = [servers]
        if not servers:
            raise UserError("Toolbox needs at least one MCP server")
        self.servers = [server_from_target(s) for s in servers]
        self.timeout_s = timeout_s
        self.tool_timeouts = dict(tool_timeouts or {})
        self.allow = list(allow) if allow is not None else None
        self.deny = list(deny or [])
        self.connect_timeout_s = connect_timeout_s
        self._sandbox = sandbox
        self._sessions: list[McpTools] = []
        self._source: ToolSource | None = None
        self._stack: AsyncExitStack | None = None

    @property
    def tools(self) -> list[ToolInfo]:
        """The exposed tools, in server order then server listing order (empty when closed)."""
        return self._source.list_tools() if self._source is not None else []

    def openai_tools(self) -> list[dict[str, Any]]:
        """The exposed tools as OpenAI function schemas."""
        return [info.to_openai() for info in self.tools]

    @property
    def is_open(self) -> bool:
        """Whether the toolbox is connected (inside `async with`)."""
        return self._stack is not None

    @property
    def reconnects(self) -> int:
        """How many times any connection was re-established after a transport drop."""
        return sum(session.reconnects for session in self._sessions)

    async def __aenter__(self) -> Toolbox:
        if self._stack is not None:
            raise UserError("this Toolbox is already open; use one Toolbox per concurrent episode")
        stack = AsyncExitStack()
        try:
            servers = await stack.enter_async_context(env_servers(self.servers, sandbox=self._sandbox))
            self._sessions = [
                McpTools(server, name=name, timeout_s=self.timeout_s, connect_timeout_s=self.connect_timeout_s)
                for server, name in zip(servers, _unique_names(servers), strict=True)
            ]
            source = self._compose(self._sessions)
            await stack.enter_async_context(source)
        except BaseException:
            await stack.aclose()
            raise
        self._stack, self._source = stack, source
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        stack, self._stack, self._source = self._stack, None, None
        if stack is not None:
            # Not handed the body's exception: a task group would re-raise it inside a group.
            await stack.aclose()

    def _compose(self, sessions: list[McpTools]) -> ToolSource:
        source: ToolSource = sessions[0] if len(sessions) == 1 else CombinedTools(sessions)
        if self.allow is not None or self.deny:
            source = FilteredTools(source, allow=self.allow, deny=self.deny)
        if self.tool_timeouts:
            source = TimeLimitedTools(source, self.tool_timeouts)
        return source

    def list_tools(self) -> list[ToolInfo]:
        """The exposed tools (the `ToolSource` method).

        Raises:
            UserError: when the toolbox is not open.
        """
        return self._open().list_tools()

    async def call_tool(self, name: str, arguments: Mapping[str, Any], *, timeout_s: float | None = None) -> ToolResult:
        """Call the exposed tool `name`; never raises for failures of the call itself.

        Raises:
            UserError: when the toolbox is not open.
        """
        return await self._open().call_tool(name, arguments, timeout_s=timeout_s)

    def _open(self) -> ToolSource:
        if self._source is None:
            raise UserError("Toolbox is not open: use `async with toolbox:` (or Agent.run, which opens it)")
        return self._source


def _unique_names(servers: list[McpServer]) -> list[str]:
    """Each server's display name, with a numeric suffix on repeats (in order), so prefixes differ."""
    seen: dict[str, int] = {}
    names = []
    for server in servers:
        base = server.display_name()
        seen[base] = seen.get(base, 0) + 1
        names.append(base if seen[base] == 1 else f"{base}_{seen[base]}")
    return names
