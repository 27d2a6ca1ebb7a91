"""`astra model serve` and `astra model path`."""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Annotated

import anyio
import typer

from astra_cli._apps import model_app


@model_app.command("serve")
def serve(
    model: Annotated[str, typer.Option("--model", help="'embedded' (the student, default), 'student-trained' (the student after the shipped cold start), 'teacher' (the 1.5B that synthesis uses), a Hugging Face model directory or an adapter directory.")] = "embedded",
    port: Annotated[int, typer.Option("--port", help="TCP port.")] = 8000,
    host: Annotated[str, typer.Option("--host")] = "127.0.0.1",
    name: Annotated[str | None, typer.Option("--name", help="Served model name (default: from the model).")] = None,
    python: Annotated[
        Path | None, typer.Option("--python", help="Interpreter with vLLM (default: $ASTRA_VLLM_PYTHON, <repo>/.venv-vllm).")
    ] = None,
    backend: Annotated[str, typer.Option("--backend", help="auto (vLLM if installed), vllm, or local.")] = "auto",
    enforce_eager: Annotated[bool, typer.Option("--enforce-eager", help="vLLM: skip compilation (faster start).")] = False,
    max_model_len: Annotated[
        int, typer.Option("--max-model-len", help="Context in tokens; the benchmarks in evals/ need 16384.")
    ] = 4096,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds to wait for the server to answer.")] = 900.0,
    log: Annotated[Path | None, typer.Option("--log", help="vLLM log file (default: a temporary file).")] = None,
) -> None:
    """Serve a model behind an OpenAI-compatible endpoint (vLLM; the local backend as fallback) until Ctrl-C."""
    from agent_sdk import VllmOptions, serve_model
    from agent_sdk.exceptions import AgentSdkError

    if backend not in ("auto", "vllm", "local"):
        raise typer.BadParameter(f"--backend must be auto, vllm or local, not {backend!r}")
    options = VllmOptions(enforce_eager=enforce_eager, max_model_len=max_model_len)

    async def main() -> None:
        started = time.monotonic()
        async with serve_model(
            model, port=port, host=host, served_name=name, backend=backend,  # type: ignore[arg-type]
            python=python, options=options, startup_timeout_s=timeout, log_path=log,
        ) as served:  # fmt: skip
            where = f" (log: {served.log_path})" if served.log_path else ""
            typer.echo(
                f"serving {served.model_name} with {served.backend} after {time.monotonic() - started:.0f}s{where}",
                err=True,
            )
            typer.echo(served.base_url)
            with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
                async for _ in signals:
                    return

    try:
        anyio.run(main)
    except KeyboardInterrupt:
        pass
    except AgentSdkError as exc:
        typer.secho(str(exc), err=True, fg="red")
        raise typer.Exit(2) from exc


@model_app.command("path")
def path(
    model: Annotated[str, typer.Option("--model", help="Which embedded model: 'embedded' (the student) or 'teacher'.")] = "embedded",
) -> None:
    """Print an embedded model's cached directory (assembling and converting it on first use)."""
    from agent_sdk import embedded_model_dir
    from agent_sdk.exceptions import AgentSdkError

    try:
        typer.echo(str(embedded_model_dir(model=model)))
    except AgentSdkError as exc:
        typer.secho(str(exc), err=True, fg="red")
        raise typer.Exit(2) from exc
