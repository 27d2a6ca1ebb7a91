"""The arena: many environments behind one Streamable HTTP endpoint tree.

`/envs/{env_id}/mcp` serves one environment; each MCP session there is an isolated
instance. `?distractors=<env_id>.<tool>,...` adds tools of other environments to that
session (their implementations run from their source environments), which is how RL
samples get callable distractors. `/index.json` lists what the arena serves. One SDK
session manager serves every path; the connection is bound to the environment of the
URL it was opened on.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import asynccontextmanager
from typing import Any

import anyio
import uvicorn
from anyio.abc import TaskStatus
from mcp.server.context import ServerRequestContext
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from mcp_servers._sandbox import Sandbox
from mcp_servers._server import Binding, EnvServer, unknown_env_error
from mcp_servers._spec import Environment

_LOCAL_SECURITY = TransportSecuritySettings(
    enable_dns_rebinding_protection=True,
    allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
    allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
)


class ArenaServer:
    """Serves many environments over Streamable HTTP, one isolated instance per MCP session.

    Args:
        envs: the environments (ids must be unique).
        sandbox: the sandbox running their tool code.
        session_idle_timeout: seconds after which an idle session is dropped.
        max_sessions: sessions held at once (None: unbounded).
        host: the bind host, for DNS-rebinding protection on loopback.
    """

    def __init__(
        self,
        envs: Sequence[Environment],
        sandbox: Sandbox,
        *,
        session_idle_timeout: float | None = 1800,
        max_sessions: int | None = None,
        host: str = "127.0.0.1",
    ) -> None:
        self.envs: dict[str, Environment] = {}
        for env in envs:
            if env.spec.id in self.envs:
                raise ValueError(f"environment id {env.spec.id} is served twice ({self.envs[env.spec.id].path} and {env.path})")
            self.envs[env.spec.id] = env
        self._env_server = EnvServer(sandbox, self._resolve, name="astra-arena")
        self._manager = StreamableHTTPSessionManager(
            app=self._env_server.server,
            security_settings=_LOCAL_SECURITY if host in ("127.0.0.1", "localhost", "::1") else None,
            session_idle_timeout=session_idle_timeout,
            max_sessions=max_sessions,
            json_response=True,
        )
        self._mcp = StreamableHTTPASGIApp(self._manager)
        self.app = Starlette(
            routes=[
                Route("/index.json", self._index, methods=["GET"]),
                Route("/envs/{env_id}/mcp", _AsgiEndpoint(self), methods=["GET", "POST", "DELETE"]),
            ],
            lifespan=self._lifespan,
        )

    @property
    def open_sessions(self) -> int:
        """MCP sessions currently holding an environment instance."""
        return self._env_server.open_sessions

    @asynccontextmanager
    async def _lifespan(self, _app: Starlette) -> Any:
        async with self._manager.run():
            yield

    def index(self) -> dict[str, Any]:
        """The JSON index: every environment with its URL path, domain, language, tools and task."""
        return {
            "environments": [
                {
                    "id": env.spec.id,
                    "path": f"/envs/{env.spec.id}/mcp",
                    "domain": env.spec.domain,
                    "language": env.spec.language,
                    "scenario": env.spec.task.scenario,
                    "question": env.spec.task.question,
                    "tools": [t.name for t in env.spec.tools],
                }
                for env in self.envs.values()
            ]
        }

    async def _index(self, _request: Request) -> Response:
        return JSONResponse(self.index())

    def _parse_distractors(self, raw: str) -> tuple[tuple[Environment, Any], ...]:
        extra = []
        for item in filter(None, (part.strip() for part in raw.split(","))):
            env_id, _, tool_name = item.partition(".")
            source = self.envs.get(env_id)
            tool = source.spec.tool(tool_name) if source else None
            if tool is None:
                raise unknown_env_error(item)
            extra.append((source, tool))
        return tuple(extra)

    def _resolve(self, ctx: ServerRequestContext[Any]) -> Binding:
        request = ctx.request
        env_id = request.path_params.get("env_id") if request is not None else None
        env = self.envs.get(env_id or "")
        if env is None:
            raise unknown_env_error(str(env_id))
        return Binding(env, self._parse_distractors(request.query_params.get("distractors", "")))


class _AsgiEndpoint:
    """Lets a starlette Route hand the raw ASGI call to the MCP app after a 404 check."""

    def __init__(self, arena: ArenaServer) -> None:
        self._arena = arena

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        env_id = scope.get("path_params", {}).get("env_id", "")
        if env_id not in self._arena.envs:
            response = JSONResponse({"error": f"unknown environment {env_id!r}", "index": "/index.json"}, status_code=404)
            await response(scope, receive, send)
            return
        await self._arena._mcp(scope, receive, send)  # noqa: SLF001


async def serve_app(app: Any, host: str = "127.0.0.1", port: int = 0, *, task_status: TaskStatus[int] = anyio.TASK_STATUS_IGNORED) -> None:
    """Run an ASGI app with uvicorn until cancelled; reports the bound port through `task_status`.

    Use with `port = await task_group.start(serve_app, app)` to wait until it accepts.
    """
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on", timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)

    async def run() -> None:
        # Shielded so that cancelling the caller shuts uvicorn down gracefully (should_exit)
        # instead of tearing through its lifespan with a CancelledError.
        with anyio.CancelScope(shield=True):
            await server.serve()

    async with anyio.create_task_group() as tg:
        tg.start_soon(run)
        try:
            while not server.started:
                if server.should_exit:
                    raise OSError(f"could not serve on {host}:{port}")
                await anyio.sleep(0.01)
            task_status.started(server.servers[0].sockets[0].getsockname()[1])
            await anyio.sleep_forever()
        finally:
            server.should_exit = True
