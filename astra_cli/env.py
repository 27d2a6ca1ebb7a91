"""`astra env schema|serve|emit` and `astra arena serve`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import anyio
import typer

from astra_cli._apps import arena_app, env_app

Unsafe = Annotated[bool, typer.Option("--unsafe-no-sandbox", help="Run tool code without isolation (untrusted code!).")]
Backend = Annotated[str | None, typer.Option("--sandbox", help="Sandbox backend: local (default) or e2b; env ASTRA_SANDBOX.")]


_FAST_LOOP = {"use_uvloop": True}
"""HTTP servers run on uvloop: the SDK's transport is event-loop bound."""


def fail(message: str) -> typer.Exit:
    """Print `message` to stderr and return the exit to raise."""
    typer.secho(message, err=True, fg="red")
    return typer.Exit(2)


@env_app.command("schema")
def schema() -> None:
    """Print the JSON Schema of env.json (EnvSpec)."""
    from mcp_servers import EnvSpec

    typer.echo(json.dumps(EnvSpec.model_json_schema(), indent=2))


@env_app.command("serve")
def serve(
    env_dir: Annotated[Path, typer.Argument(help="Environment directory (env.json + tools.py).")],
    http: Annotated[int | None, typer.Option("--http", help="Serve Streamable HTTP on this port instead of stdio.")] = None,
    host: str = "127.0.0.1",
    unsafe: Unsafe = False,
    sandbox: Backend = None,
) -> None:
    """Serve one environment over stdio (default) or Streamable HTTP at /mcp."""
    from mcp_servers import McpServersError, SandboxConfig, serve_http, serve_stdio

    try:
        if http is None:
            config = SandboxConfig.from_env(backend=sandbox, unsafe=unsafe, workers=1)
            anyio.run(lambda: serve_stdio(env_dir, config=config))
        else:
            typer.echo(f"serving {env_dir} at http://{host}:{http}/mcp", err=True)
            config = SandboxConfig.from_env(backend=sandbox, unsafe=unsafe)
            anyio.run(lambda: serve_http(env_dir, http, host=host, config=config), backend_options=_FAST_LOOP)
    except McpServersError as exc:
        raise fail(str(exc)) from exc


@env_app.command("emit")
def emit(
    src: Annotated[Path, typer.Argument(help="Environment directory to emit.")],
    out: Annotated[Path, typer.Argument(help="Output directory.")],
    python: Annotated[str | None, typer.Option(help="Interpreter the client should launch (default: this one).")] = None,
) -> None:
    """Write a directory an MCP client launches directly, and print its mcpServers config."""
    from mcp_servers import McpServersError, emit_env

    try:
        config = emit_env(src, out, python=python)
    except McpServersError as exc:
        raise fail(str(exc)) from exc
    typer.echo(json.dumps(config, indent=2))


@arena_app.command("serve")
def arena_serve(
    envs_dir: Annotated[Path, typer.Argument(help="Directory of environment directories.")],
    http: Annotated[int, typer.Option("--http", help="Port to listen on.")] = 8700,
    host: str = "127.0.0.1",
    workers: Annotated[int | None, typer.Option(help="Sandbox worker processes (default $ASTRA_SANDBOX_WORKERS, else 2).")] = None,
    unsafe: Unsafe = False,
    sandbox: Backend = None,
) -> None:
    """Serve every environment under ENVS_DIR at /envs/{env_id}/mcp (index at /index.json)."""
    from mcp_servers import McpServersError, SandboxConfig, load_envs, serve_arena

    async def main() -> None:
        config = SandboxConfig.from_env(backend=sandbox, unsafe=unsafe, workers=workers)
        envs = load_envs(envs_dir)
        if not envs:
            raise fail(f"{envs_dir}: no environment directories (*/env.json) found")
        async with serve_arena(envs, config, host=host, port=http, prestart=True) as arena:
            typer.echo(f"arena: {len(envs)} environments at http://{host}:{arena.port}/envs/<env_id>/mcp (index: /index.json)", err=True)
            await anyio.sleep_forever()

    try:
        anyio.run(main, backend_options=_FAST_LOOP)
    except McpServersError as exc:
        raise fail(str(exc)) from exc
