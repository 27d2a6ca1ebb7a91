"""An MCP server (the SDK's low-level `Server`) over sandboxed environments.

Every MCP connection gets its own `SandboxSession`, so state never leaks between sessions.
Over HTTP and in process the server is legacy-handshake only on purpose: the 2026-07-28
protocol era is stateless per request, and an environment instance is exactly the
per-connection state that era lacks. Without a `server/discover` handler,
`mcp.Client(mode="auto")` and other clients fall back to the `initialize` handshake and get
a session. A stdio process serves exactly one client, so it is one session whatever era
the client speaks (`single_session=True`).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from mcp_servers._sandbox import Sandbox, SandboxSession, ToolOutcome
from mcp_servers._spec import Environment, ToolSpec

Resolver = Callable[[ServerRequestContext[Any]], "Binding"]
"""Maps a request to the environment (and extra tools) its connection serves."""


@dataclass(frozen=True)
class Binding:
    """What one connection serves: an environment plus extra tools (distractors)."""

    env: Environment
    extra: tuple[tuple[Environment, ToolSpec], ...] = ()

    def tools(self) -> list[ToolSpec]:
        own = list(self.env.spec.tools)
        names = {t.name for t in own}
        return own + [t for _, t in self.extra if t.name not in names]


class _SingleSession:
    """The one session of a server that serves a single client (stdio)."""


class _ConnectionState:
    def __init__(self, binding: Binding, session: SandboxSession) -> None:
        self.binding = binding
        self.session = session


def _connection(ctx: ServerRequestContext[Any]) -> object:
    # The SDK hands handlers a per-request ServerSession; the per-connection object behind
    # it is the only identity that lives exactly as long as one MCP session.
    return ctx.session._connection  # noqa: SLF001


def _to_mcp_tool(tool: ToolSpec) -> types.Tool:
    return types.Tool(
        name=tool.name, description=tool.description, input_schema=tool.input_schema, output_schema=tool.output_schema
    )


def outcome_to_result(outcome: ToolOutcome) -> types.CallToolResult:
    """The MCP result for a sandbox outcome; failures are `isError` results with the reason in `_meta`."""
    meta = {"astra/error_kind": outcome.error_kind} if outcome.error_kind else None
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=outcome.text)],
        structured_content=outcome.structured if outcome.ok else None,
        is_error=not outcome.ok,
        _meta=meta,
    )


class EnvServer:
    """Serves environments chosen per connection by a `Resolver`, each connection isolated."""

    def __init__(self, sandbox: Sandbox, resolver: Resolver, *, name: str = "astra-env", single_session: bool = False) -> None:
        self._sandbox = sandbox
        self._resolver = resolver
        self._states: weakref.WeakKeyDictionary[object, _ConnectionState] = weakref.WeakKeyDictionary()
        self._single_key: object | None = _SingleSession() if single_session else None
        server: Server[Any] = Server(name, version="1", on_list_tools=self._list_tools, on_call_tool=self._call_tool)
        if not single_session:
            server._request_handlers.pop("server/discover", None)  # noqa: SLF001 — see the module docstring
        self.server = server

    @property
    def open_sessions(self) -> int:
        """Connections currently holding an environment instance."""
        return len(self._states)

    async def _state(self, ctx: ServerRequestContext[Any]) -> _ConnectionState:
        key = self._single_key if self._single_key is not None else _connection(ctx)
        state = self._states.get(key)
        if state is None:
            binding = self._resolver(ctx)
            session = await self._sandbox.open_session(binding.env, [(e, t.name) for e, t in binding.extra])
            state = _ConnectionState(binding, session)
            self._states[key] = state
            weakref.finalize(key, session.release)
        return state

    async def _list_tools(self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        state = await self._state(ctx)
        return types.ListToolsResult(tools=[_to_mcp_tool(t) for t in state.binding.tools()])

    async def _call_tool(self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        state = await self._state(ctx)
        outcome = await state.session.call(params.name, dict(params.arguments or {}))
        return outcome_to_result(outcome)


def build_env_server(
    envs: Environment | Sequence[Environment], sandbox: Sandbox, *, single_session: bool = False
) -> Server[Any]:
    """A low-level MCP server for one environment (or the first of `envs`), one instance per connection.

    Connect in process with `mcp.Client(server, mode="legacy")`, or over HTTP with
    `server.streamable_http_app()`. `single_session=True` is for a server that only ever
    has one client (stdio): it then accepts either protocol era.
    """
    if isinstance(envs, Environment):
        envs = [envs]
    if len(envs) != 1:
        raise ValueError(f"build_env_server serves exactly one environment, got {len(envs)}; use ArenaServer for many")
    binding = Binding(envs[0])
    return EnvServer(sandbox, lambda _ctx: binding, name=envs[0].spec.id, single_session=single_session).server


def unknown_env_error(env_id: str) -> MCPError:
    """The protocol error for a request naming an environment the server does not hold."""
    return MCPError(code=types.INVALID_PARAMS, message=f"unknown environment {env_id!r}")
