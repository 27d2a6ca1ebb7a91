"""`McpTools`: the tools of one MCP server over one supervised session, as a `ToolSource`.

One `McpTools` is one MCP session, so it is one episode's view of an environment server
(environment servers give every session a fresh instance). This is the layer that turns the
MCP world into results: a tool's `isError`, a timeout, an MCP error or a dropped transport
comes back as a `ToolResult` with `ok=False`, and a dropped transport reconnects on the next
call (see `Connection`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, Self

import anyio
import httpx
import mcp_types as types
from mcp import StdioServerParameters
from mcp.server import Server
from mcp.shared.exceptions import MCPError

from agent_sdk._connections import Connection, McpServer, ServerTarget, server_from_target
from agent_sdk._tool_source import ErrorKind, ToolInfo, ToolResult, unknown_tool
from agent_sdk.exceptions import ToolboxError, UserError

__all__ = ["McpTools"]

_TRANSPORT_ERRORS = (
    anyio.ClosedResourceError,
    anyio.BrokenResourceError,
    anyio.EndOfStream,
    httpx.TransportError,
    OSError,
)


class McpTools:
    """The tools of one MCP server, called over one session that reconnects after a drop.

    Use as an async context manager: entering connects and lists the tools, leaving closes
    the session (also on cancellation). Tools keep their server-side names.

    Args:
        server: a URL, a command line, `StdioServerParameters`, an in-process
            `mcp.server.Server` or an `McpServer` (see `server_from_target`); environment
            directories are resolved into servers first (`Toolbox` does that).
        name: the server's name in `ToolInfo.server`, `ToolResult.server` and logs
            (default: derived from the target).
        timeout_s: limit per call, unless the call gives its own.
        connect_timeout_s: limit for connecting and listing the tools.

    Raises:
        UserError: for an environment directory or an unusable target.
    """

    def __init__(
        self, server: ServerTarget, *, name: str | None = None, timeout_s: float = 30.0, connect_timeout_s: float = 30.0
    ) -> None:
        self.server = server_from_target(server)
        if isinstance(self.server.target, Path):
            raise UserError(f"{self.server.target}: an environment directory is served by Toolbox, not by McpTools")
        self.name = name or self.server.display_name()
        self.timeout_s = timeout_s
        self._connection = Connection(self.server, self.name, connect_timeout_s=connect_timeout_s)
        self._tools: dict[str, ToolInfo] = {}
        self._stack: AsyncExitStack | None = None
        self._tg: anyio.abc.TaskGroup | None = None

    @property
    def reconnects(self) -> int:
        """How many times the session was re-established after a transport drop."""
        return self._connection.reconnects

    async def __aenter__(self) -> Self:
        if self._stack is not None:
            raise UserError(f"McpTools for {self.name!r} is already open; use one per concurrent episode")
        stack = AsyncExitStack()
        try:
            self._tg = await stack.enter_async_context(anyio.create_task_group())
            stack.push_async_callback(self._close)
            try:
                await self._connection.start(self._tg)
            except Exception as exc:
                message = f"cannot connect to MCP server {self.name!r} ({_describe(self.server)}): {exc!r}"
                raise ToolboxError(message) from exc
        except BaseException:
            await stack.aclose()
            raise
        self._stack = stack
        self._tools = {tool.name: self._info(tool) for tool in self._connection.tools}
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        stack, self._stack = self._stack, None
        self._tools = {}
        if stack is not None:
            # Not handed the body's exception: the task group would re-raise it inside a group.
            await stack.aclose()

    async def _close(self) -> None:
        with anyio.CancelScope(shield=True):
            await self._connection.aclose()

    def _info(self, tool: types.Tool) -> ToolInfo:
        schema = dict(tool.input_schema or {"type": "object", "properties": {}})
        return ToolInfo(name=tool.name, server=self.name, tool=tool.name, description=tool.description or "", input_schema=schema)

    def list_tools(self) -> list[ToolInfo]:
        """The server's tools, in its listing order.

        Raises:
            UserError: outside `async with`.
        """
        self._require_open()
        return list(self._tools.values())

    async def call_tool(self, name: str, arguments: Mapping[str, Any], *, timeout_s: float | None = None) -> ToolResult:
        """Call the server's tool `name`; every failure of the call is a `ToolResult`.

        Raises:
            UserError: outside `async with`.
        """
        tg = self._require_open()
        started = time.perf_counter()
        if name not in self._tools:
            return unknown_tool(name, self._tools)
        conn = self._connection
        limit = timeout_s if timeout_s is not None else self.timeout_s

        def failed(kind: ErrorKind, message: str) -> ToolResult:
            latency = time.perf_counter() - started
            return ToolResult(ok=False, error=message, error_kind=kind, latency_s=latency, server=self.name, tool=name)

        try:
            client = await conn.client(tg)
        except Exception as exc:
            return failed("transport", f"MCP server {self.name!r} is unavailable: {exc!r}")
        try:
            with anyio.fail_after(limit):
                result = await client.call_tool(name, dict(arguments))
        except TimeoutError:
            return failed("timeout", f"tool {name!r} timed out after {limit:g} s")
        except MCPError as exc:
            if exc.code == types.CONNECTION_CLOSED:
                conn.mark_broken()
                return failed("transport", f"connection to MCP server {self.name!r} was lost: {exc.message}")
            kinds: dict[int, ErrorKind] = {types.INVALID_PARAMS: "bad_arguments", types.REQUEST_TIMEOUT: "timeout"}
            return failed(kinds.get(exc.code, "protocol"), f"MCP error {exc.code}: {exc.message}")
        except _TRANSPORT_ERRORS as exc:
            conn.mark_broken()
            return failed("transport", f"connection to MCP server {self.name!r} was lost: {exc!r}")
        latency = time.perf_counter() - started
        text = _result_text(result)
        if result.is_error:
            return ToolResult(
                ok=False, text=text, error=text or "tool reported an error", error_kind="tool_error",
                latency_s=latency, server=self.name, tool=name,
            )  # fmt: skip
        return ToolResult(ok=True, text=text, structured=result.structured_content, latency_s=latency, server=self.name, tool=name)

    def _require_open(self) -> anyio.abc.TaskGroup:
        if self._stack is None or self._tg is None:
            raise UserError(f"McpTools for {self.name!r} is not open: use `async with`")
        return self._tg


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
