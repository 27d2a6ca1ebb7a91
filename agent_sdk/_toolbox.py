"""`Toolbox`: the tools of one or many MCP servers, presented as OpenAI function schemas.

One toolbox holds one MCP session per server, so one toolbox is one episode's view of its
environments (environment servers give every session a fresh instance). Failures during
calls are data: a timeout, a dropped transport or a tool error comes back as a `ToolResult`
with `ok=False` and the episode continues; a dropped transport reconnects on the next call.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Collection, Mapping, Sequence
from contextlib import AsyncExitStack
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, Literal

import anyio
import httpx
import mcp_types as types
from mcp import StdioServerParameters
from mcp.server import Server
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, Field

from agent_sdk._connections import Connection, McpServer, server_from_target
from agent_sdk.exceptions import ToolboxError, UserError

__all__ = ["ToolInfo", "ToolResult", "Toolbox"]

logger = logging.getLogger(__name__)

ErrorKind = Literal["tool_error", "timeout", "transport", "protocol", "unknown_tool", "bad_arguments"]
ServerTarget = str | Path | StdioServerParameters | Server | McpServer

_TRANSPORT_ERRORS = (
    anyio.ClosedResourceError,
    anyio.BrokenResourceError,
    anyio.EndOfStream,
    httpx.TransportError,
    OSError,
)


class ToolInfo(BaseModel):
    """A tool as the model sees it, and where it lives."""

    name: str = Field(description="Exposed name (prefixed `<server>__<tool>` when names collide across servers).")
    server: str = Field(description="Name of the server providing it.")
    tool: str = Field(description="The tool's name on its server.")
    description: str = ""
    input_schema: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})

    def to_openai(self) -> dict[str, Any]:
        """The OpenAI `tools[]` item for this tool."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.input_schema},
        }


class ToolResult(BaseModel):
    """The outcome of one tool call."""

    ok: bool = Field(description="True when the tool ran and did not report an error.")
    text: str = Field(default="", description="Text of the result (or of the error), as the model will read it.")
    structured: dict[str, Any] | list[Any] | None = Field(default=None, description="Structured content, if any.")
    error: str | None = Field(default=None, description="What went wrong, when not ok.")
    error_kind: ErrorKind | None = Field(default=None, description="Class of failure, when not ok.")
    latency_s: float = Field(default=0.0, description="Wall time of the call, reconnection included.")
    server: str | None = Field(default=None, description="Server that handled the call (None for unknown tools).")
    tool: str = Field(description="Tool name on its server (or the unknown name asked for).")

    def observation(self) -> str:
        """The text to send back to the model as the tool message."""
        if self.ok:
            return self.text
        return f"Error: {self.error or self.text}"


class Toolbox:
    """Connect to MCP servers and call their tools.

    Use as an async context manager; entering connects to every server concurrently and
    lists its tools, leaving closes every session (also on cancellation).

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
            by default the toolbox opens its own `mcp_servers.LocalSandbox` when needed.
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
        self._connections: list[Connection] = []
        self._tools: dict[str, tuple[ToolInfo, Connection]] = {}
        self._stack: AsyncExitStack | None = None
        self._tg: anyio.abc.TaskGroup | None = None

    @property
    def tools(self) -> list[ToolInfo]:
        """The exposed tools, in server order then server listing order."""
        return [info for info, _ in self._tools.values()]

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
        return sum(c.reconnects for c in self._connections)

    async def __aenter__(self) -> Toolbox:
        if self._stack is not None:
            raise UserError("this Toolbox is already open; use one Toolbox per concurrent episode")
        stack = AsyncExitStack()
        await stack.__aenter__()
        try:
            servers = await self._resolve_env_dirs(stack)
            self._tg = await stack.enter_async_context(anyio.create_task_group())
            stack.push_async_callback(self._close_connections)
            self._connections = _named_connections(servers, self.connect_timeout_s)
            await self._start_all()
        except BaseException:
            await stack.aclose()
            raise
        self._stack = stack
        self._tools = self._expose()
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        stack, self._stack = self._stack, None
        self._tools = {}
        if stack is not None:
            # Not handed the body's exception: the task group would re-raise it inside a group.
            await stack.aclose()

    async def _start_all(self) -> None:
        try:
            async with anyio.create_task_group() as starters:
                for conn in self._connections:
                    starters.start_soon(self._start, conn)
        except BaseExceptionGroup as group:
            errors = [e for e in group.exceptions if isinstance(e, ToolboxError)]
            if len(errors) != len(group.exceptions):
                raise
            raise ToolboxError("; ".join(str(e) for e in errors)) from errors[0]

    async def _start(self, conn: Connection) -> None:
        assert self._tg is not None
        try:
            await conn.start(self._tg)
        except Exception as exc:
            raise ToolboxError(f"cannot connect to MCP server {conn.name!r} ({_describe(conn.server)}): {exc!r}") from exc

    async def _close_connections(self) -> None:
        with anyio.CancelScope(shield=True):
            async with anyio.create_task_group() as tg:
                for conn in self._connections:
                    tg.start_soon(conn.aclose)

    async def _resolve_env_dirs(self, stack: AsyncExitStack) -> list[McpServer]:
        """Replace each environment directory by in-process servers, one per environment in it."""
        if not any(isinstance(s.target, Path) for s in self.servers):
            return list(self.servers)
        from mcp_servers import LocalSandbox, build_env_server, find_envs, load_env

        sandbox = self._sandbox
        if sandbox is None:
            sandbox = await stack.enter_async_context(LocalSandbox())
        resolved: list[McpServer] = []
        for server in self.servers:
            if not isinstance(server.target, Path):
                resolved.append(server)
                continue
            dirs = find_envs(server.target)
            if not dirs:
                raise UserError(f"{server.target}: no environment (env.json) in it or in its subdirectories")
            for directory in dirs:
                name = server.name if server.name and len(dirs) == 1 else directory.resolve().name
                resolved.append(McpServer(target=build_env_server(load_env(directory), sandbox), name=name))
        return resolved

    def _expose(self) -> dict[str, tuple[ToolInfo, Connection]]:
        counts: dict[str, int] = {}
        for conn in self._connections:
            for tool in conn.tools:
                counts[tool.name] = counts.get(tool.name, 0) + 1
        exposed: dict[str, tuple[ToolInfo, Connection]] = {}
        for conn in self._connections:
            for tool in conn.tools:
                name = f"{conn.name}__{tool.name}" if counts[tool.name] > 1 else tool.name
                if not self._wanted(name, conn.name, tool.name):
                    continue
                info = ToolInfo(
                    name=name,
                    server=conn.name,
                    tool=tool.name,
                    description=tool.description or "",
                    input_schema=dict(tool.input_schema or {"type": "object", "properties": {}}),
                )
                exposed[name] = (info, conn)
        return exposed

    def _wanted(self, name: str, server: str, tool: str) -> bool:
        keys = (name, tool, f"{server}__{tool}")
        if any(fnmatchcase(k, p) for p in self.deny for k in keys):
            return False
        return self.allow is None or any(fnmatchcase(k, p) for p in self.allow for k in keys)

    def timeout_for(self, name: str) -> float:
        """The per-call timeout that applies to the exposed tool `name`."""
        if name in self.tool_timeouts:
            return self.tool_timeouts[name]
        entry = self._tools.get(name)
        if entry is not None and entry[0].tool in self.tool_timeouts:
            return self.tool_timeouts[entry[0].tool]
        return self.timeout_s

    async def call_tool(self, name: str, arguments: Mapping[str, Any], *, timeout_s: float | None = None) -> ToolResult:
        """Call the exposed tool `name`; never raises for failures of the call itself.

        Raises:
            UserError: when the toolbox is not open.
        """
        if self._stack is None or self._tg is None:
            raise UserError("Toolbox is not open: use `async with toolbox:` (or Agent.run, which opens it)")
        started = time.perf_counter()
        entry = self._tools.get(name)
        if entry is None:
            available = ", ".join(sorted(self._tools)) or "(none)"
            message = f"unknown tool {name!r}; available tools: {available}"
            return ToolResult(ok=False, error=message, error_kind="unknown_tool", tool=name)
        info, conn = entry
        limit = timeout_s if timeout_s is not None else self.timeout_for(name)

        def failed(kind: ErrorKind, message: str) -> ToolResult:
            latency = time.perf_counter() - started
            return ToolResult(ok=False, error=message, error_kind=kind, latency_s=latency, server=conn.name, tool=info.tool)

        try:
            client = await conn.client(self._tg)
        except Exception as exc:
            return failed("transport", f"MCP server {conn.name!r} is unavailable: {exc!r}")
        try:
            with anyio.fail_after(limit):
                result = await client.call_tool(info.tool, dict(arguments))
        except TimeoutError:
            return failed("timeout", f"tool {name!r} timed out after {limit:g} s")
        except MCPError as exc:
            if exc.code == types.CONNECTION_CLOSED:
                conn.mark_broken()
                return failed("transport", f"connection to MCP server {conn.name!r} was lost: {exc.message}")
            kinds: dict[int, ErrorKind] = {types.INVALID_PARAMS: "bad_arguments", types.REQUEST_TIMEOUT: "timeout"}
            kind = kinds.get(exc.code, "protocol")
            return failed(kind, f"MCP error {exc.code}: {exc.message}")
        except _TRANSPORT_ERRORS as exc:
            conn.mark_broken()
            return failed("transport", f"connection to MCP server {conn.name!r} was lost: {exc!r}")
        latency = time.perf_counter() - started
        text = _result_text(result)
        if result.is_error:
            return ToolResult(
                ok=False, text=text, error=text or "tool reported an error", error_kind="tool_error",
                latency_s=latency, server=conn.name, tool=info.tool,
            )  # fmt: skip
        return ToolResult(
            ok=True, text=text, structured=result.structured_content, latency_s=latency, server=conn.name, tool=info.tool
        )


def _named_connections(servers: list[McpServer], connect_timeout_s: float) -> list[Connection]:
    """One connection per server, with unique names (a numeric suffix on repeats, in order)."""
    seen: dict[str, int] = {}
    connections = []
    for server in servers:
        base = server.display_name()
        seen[base] = seen.get(base, 0) + 1
        name = base if seen[base] == 1 else f"{base}_{seen[base]}"
        connections.append(Connection(server, name, connect_timeout_s=connect_timeout_s))
    return connections


def _result_text(result: types.CallToolResult) -> str:
    parts: list[str] = []
    for block in result.content:
        if isinstance(block, types.TextContent):
            parts.append(block.text)
        else:
            parts.append(f"[{block.type} content]")
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, sort_keys=True, ensure_ascii=False))
    return "\n".join(parts)


def _describe(server: McpServer) -> str:
    target = server.target
    if isinstance(target, StdioServerParameters):
        return "stdio: " + " ".join([target.command, *target.args])
    if isinstance(target, Server):
        return f"in-process server {target.name!r}"
    return str(target)
