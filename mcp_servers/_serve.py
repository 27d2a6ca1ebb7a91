"""Serving one environment: stdio (what IDEs launch) and Streamable HTTP."""

from __future__ import annotations

from pathlib import Path

import anyio
from mcp.server.stdio import stdio_server

from mcp_servers._arena import serve_app
from mcp_servers._config import SandboxConfig
from mcp_servers._server import build_env_server
from mcp_servers._spec import load_env


async def serve_stdio(env_dir: str | Path, *, config: SandboxConfig | None = None) -> None:
    """Serve the environment in `env_dir` over stdin/stdout until the client disconnects.

    Raises:
        EnvLoadError: the directory is not a valid environment.
        SandboxUnavailable: the configured sandbox cannot run here.
    """
    env = load_env(env_dir)
    config = config or SandboxConfig.from_env(workers=1)
    async with config.build() as sandbox:
        server = build_env_server(env, sandbox, single_session=True)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())


async def serve_http(env_dir: str | Path, port: int, *, host: str = "127.0.0.1", config: SandboxConfig | None = None) -> None:
    """Serve the environment in `env_dir` over Streamable HTTP at `http://HOST:PORT/mcp`."""
    env = load_env(env_dir)
    async with (config or SandboxConfig.from_env()).build() as sandbox:
        server = build_env_server(env, sandbox)
        app = server.streamable_http_app(host=host)
        async with anyio.create_task_group() as tg:
            await tg.start(serve_app, app, host, port)
