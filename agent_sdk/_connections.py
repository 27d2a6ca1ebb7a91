"""One supervised MCP client connection per server: connect, list tools, reconnect after a drop.

A connection lives in its own task of its `McpTools`'s task group (an MCP `Client` opens task
groups of its own, which must be entered and exited by the same task); callers in any task
use the client it publishes. When the transport drops, the call that saw it fails and the
next call replaces the connection with a fresh one.
"""

from __future__ import annotations

import functools
import logging
import math
import re
import shlex
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx2
import mcp_types as types
from anyio.abc import TaskGroup, TaskStatus
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.server import Server
from pydantic import BaseModel, ConfigDict, Field

from agent_sdk.exceptions import UserError

__all__ = ["McpServer", "ServerTarget", "server_from_target"]

logger = logging.getLogger(__name__)

# "legacy" = the initialize handshake: every connection is one MCP session, which is what
# environment servers isolate on (a fresh tool instance per session).
_MODE = "legacy"
_CLOSE_TIMEOUT_S = 5.0
_LIST_PAGE_CAP = 100


class McpServer(BaseModel):
    """One MCP server a `Toolbox` (or `McpTools`) connects to.

    `target` is a Streamable HTTP URL (an arena environment URL included), a
    `StdioServerParameters` (a command launched as a subprocess), an in-process
    `mcp.server.Server`, or a `Path` to an environment directory (or a directory of
    environments) served in-process on the sandbox `ASTRA_SANDBOX` chooses.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)

    target: str | Path | StdioServerParameters | Server = Field(description="What to connect to.")
    name: str | None = Field(default=None, description="Name used for prefixes and logs (derived from target if None).")

    def display_name(self) -> str:
        """The given name, or one derived from the target."""
        return _sanitize(self.name or _derive_name(self.target))


ServerTarget = str | Path | StdioServerParameters | Server | McpServer
"""Anything `server_from_target` accepts."""


def server_from_target(target: ServerTarget) -> McpServer:
    """Interpret a target as the CLI and `Toolbox` accept it.

    A string is a URL (`http://`, `https://`), an existing directory (an environment or a
    directory of environments), or else a command line launched over stdio.

    Raises:
        UserError: for an empty string, or a path that does not exist.
    """
    if isinstance(target, McpServer):
        return target
    if isinstance(target, str):
        text = target.strip()
        if not text:
            raise UserError("empty MCP server target: give a URL, an environment directory or a command")
        if text.startswith(("http://", "https://")):
            return McpServer(target=text)
        if Path(text).is_dir():
            return McpServer(target=Path(text))
        parts = shlex.split(text)
        if len(parts) == 1 and "/" in text and not Path(text).exists():
            raise UserError(f"{text}: no such environment directory or server executable")
        return McpServer(target=StdioServerParameters(command=parts[0], args=parts[1:]))
    return McpServer(target=target)


def _derive_name(target: Any) -> str:
    if isinstance(target, Server):
        return target.name
    if isinstance(target, Path):
        return target.resolve().name
    if isinstance(target, StdioServerParameters):
        scripts = [a for a in target.args if a.endswith(".py") or "/" in a]
        return Path(scripts[0] if scripts else target.command).stem
    parts = urlsplit(str(target))
    segments = [s for s in parts.path.split("/") if s and s != "mcp"]
    return segments[-1] if segments else (parts.hostname or "http")


def _sanitize(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", name).strip("_") or "server"


class Connection:
    """A supervised client connection to one server (internal to `McpTools`)."""

    def __init__(self, server: McpServer, name: str, *, connect_timeout_s: float) -> None:
        self.server = server
        self.name = name
        self.connect_timeout_s = connect_timeout_s
        self.tools: list[types.Tool] = []
        self.reconnects = 0
        self._client: Client | None = None
        self._closing: anyio.Event | None = None
        self._stopped: anyio.Event | None = None
        self._lock = anyio.Lock()

    async def start(self, tg: TaskGroup) -> None:
        """Connect and list the server's tools, in a new task of `tg`.

        Raises:
            Exception: whatever connecting or listing raised (the caller translates it).
        """
        self._client = await tg.start(self._run)

    async def client(self, tg: TaskGroup) -> Client:
        """The live client, reconnecting first if the previous transport dropped."""
        async with self._lock:
            if self._client is None:
                await self._stop()
                self.reconnects += 1
                logger.info("reconnecting to MCP server %s (reconnect #%d)", self.name, self.reconnects)
                self._client = await tg.start(self._run)
            return self._client

    def mark_broken(self) -> None:
        """Record that the transport dropped; the next `client()` reconnects."""
        self._client = None

    async def aclose(self) -> None:
        """Close the session and wait until its task has exited."""
        self._client = None
        await self._stop()

    async def _stop(self) -> None:
        if self._closing is not None and self._stopped is not None:
            self._closing.set()
            with anyio.move_on_after(_CLOSE_TIMEOUT_S, shield=True):
                await self._stopped.wait()
        self._closing = self._stopped = None

    async def _run(self, *, task_status: TaskStatus[Client]) -> None:
        closing, stopped = anyio.Event(), anyio.Event()
        self._closing, self._stopped = closing, stopped
        target = self.server.target
        started = False
        try:
            # The client's own task groups open inside this scope, so the connect deadline is
            # a scope around the whole session, lifted once the tools are listed.
            with anyio.CancelScope(deadline=anyio.current_time() + self.connect_timeout_s) as scope:
                async with _transport(target) as transport, Client(transport, mode=_MODE, cache=None) as client:
                    self.tools = await _list_tools(client)
                    scope.deadline = math.inf
                    started = True
                    task_status.started(client)
                    await closing.wait()
            if scope.cancelled_caught and not started:
                raise TimeoutError(f"no MCP handshake within {self.connect_timeout_s:g} s")
        except Exception as exc:
            if not started:
                raise
            # The session died after it was in use; calls already saw the failure and the
            # next one reconnects, so this only needs a trace.
            logger.info("MCP server %s connection ended with an error: %r", self.name, exc)
        finally:
            if self._client is not None and self._stopped is stopped:
                self._client = None
            stopped.set()


@functools.cache
def _tls_context() -> ssl.SSLContext:
    # Loading the CA bundle costs ~30 ms; the SDK would do it for every connection, and a
    # rollout opens one connection per episode.
    return ssl.create_default_context()


@asynccontextmanager
async def _transport(target: Any) -> AsyncIterator[Any]:
    """What `Client` should connect to: URLs get an HTTP client sharing one TLS context."""
    if not isinstance(target, str):
        yield target
        return
    async with httpx2.AsyncClient(verify=_tls_context(), timeout=httpx2.Timeout(30.0, read=300.0)) as http:
        yield streamable_http_client(target, http_client=http)


async def _list_tools(client: Client) -> list[types.Tool]:
    tools: list[types.Tool] = []
    cursor: str | None = None
    for _ in range(_LIST_PAGE_CAP):
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return tools
