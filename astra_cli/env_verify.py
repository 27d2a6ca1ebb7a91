"""`astra env verify`: replay every golden call over MCP and report, failing closed."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import anyio
import typer
from rich.console import Console

from astra_cli._apps import env_app


@env_app.command("verify")
def verify(
    paths: Annotated[list[Path], typer.Argument(help="Environment directories, or directories of them.")],
    json_out: Annotated[Path | None, typer.Option("--json", help="Also write the JSON report to this file.")] = None,
    concurrency: Annotated[int, typer.Option(help="Environments verified at once.")] = 8,
    workers: Annotated[int | None, typer.Option(help="Sandbox worker processes (default $ASTRA_SANDBOX_WORKERS, else 2).")] = None,
    unsafe: Annotated[bool, typer.Option("--unsafe-no-sandbox", help="Run tool code without isolation (untrusted code!).")] = False,
) -> None:
    """Verify environments (docs/design.md §5); exit status 1 when any fails."""
    from mcp_servers import McpServersError, SandboxConfig, VerifyReport, verify_paths

    async def main() -> VerifyReport:
        async with SandboxConfig.from_env(workers=workers, unsafe=unsafe).build() as sandbox:
            return await verify_paths(paths, sandbox=sandbox, concurrency=concurrency)

    try:
        report = anyio.run(main)
    except McpServersError as exc:
        typer.secho(str(exc), err=True, fg="red")
        raise typer.Exit(2) from exc
    # Piped output has no terminal width; rich would squeeze the table into 80 columns.
    Console(width=None if sys.stdout.isatty() else 160).print(report.table())
    for env in report.envs:
        for f in env.findings:
            where = " ".join(x for x in (f.subtask_id and f"subtask={f.subtask_id}", f.tool and f"tool={f.tool}") if x)
            typer.echo(f"{Path(env.path or '-').name}: {f.code}{' ' + where if where else ''}: {f.message}", err=True)
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(report.to_json() + "\n", encoding="utf-8")
    raise typer.Exit(0 if report.passed else 1)
