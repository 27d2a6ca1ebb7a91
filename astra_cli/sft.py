"""`astra sft synth`: tool documentation -> judged multi-turn SFT trajectories."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from astra_cli._apps import sft_app
from astra_cli._model_options import (
    ApiKeyOption,
    BackendOption,
    BaseUrlOption,
    JudgeBaseUrlOption,
    JudgeModelOption,
    ModelChoice,
    ModelOption,
    check_backend,
    fail,
    open_companion,
    open_model,
)


@sft_app.command("synth")
def synth(
    out: Annotated[Path, typer.Option("--out", help="Output directory (stores, cache, stats.json, plots, sft.jsonl/parquet).")],
    servers: Annotated[
        list[str] | None,
        typer.Option(
            "--servers",
            help="Tool-doc source (repeatable): http(s):// MCP URL, 'stdio:COMMAND ARGS', an environment "
            "directory (or a directory of them), or a .json/.jsonl file of OpenAI tool schemas / ASTRA server rows.",
        ),
    ] = None,
    stage: Annotated[
        list[str] | None,
        typer.Option("--stage", help="Run only these stages (repeatable): ingest graph chains tasks score rollout judge export."),
    ] = None,
    config: Annotated[Path | None, typer.Option("--config", help="JSON file of SftConfig fields.")] = None,
    base_url: BaseUrlOption = None,
    model: ModelOption = None,
    agent_model: Annotated[
        str | None,
        typer.Option("--agent-model", help="Model playing rollouts: a name at the generator's endpoint or a model to run here (default: the generator)."),
    ] = None,
    judge_base_url: JudgeBaseUrlOption = None,
    judge_model: JudgeModelOption = None,
    api_key: ApiKeyOption = None,
    backend: BackendOption = "auto",
    concurrency: Annotated[int | None, typer.Option("--concurrency", help="Records and LLM requests in flight.")] = None,
    max_rollouts_per_server: Annotated[int | None, typer.Option("--max-rollouts-per-server", help="Cap on rollouts per server.")] = None,
    min_tools: Annotated[int | None, typer.Option("--min-tools", help="Drop servers with fewer usable tools (default 3).")] = None,
    failure_rate: Annotated[float | None, typer.Option("--failure-rate", help="Emulator failure-injection rate (default 0.2).")] = None,
    seed: Annotated[int | None, typer.Option("--seed")] = None,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds one model request may take (slow local servers need long).")] = 600.0,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not cache LLM responses.")] = False,
) -> None:
    """Synthesize SFT trajectories from tool docs; each stage resumes from the stores in --out."""
    from contextlib import AsyncExitStack

    import anyio

    from agent_sdk import AgentSdkError
    from synth.sft import STAGES, SftConfig, SftPipeline

    try:
        fields = json.loads(config.read_text()) if config else {}
    except (OSError, ValueError) as exc:
        raise typer.BadParameter(f"{config}: {exc}", param_hint="--config") from exc
    overrides = {"concurrency": concurrency, "max_rollouts_per_server": max_rollouts_per_server, "min_tools": min_tools, "seed": seed}
    fields.update({k: v for k, v in overrides.items() if v is not None})
    if failure_rate is not None:
        fields.setdefault("rollout", {}).setdefault("emulator", {})["failure_rate"] = failure_rate
    cfg = SftConfig.model_validate(fields)
    stages = stage or list(STAGES)
    bad = [s for s in stages if s not in STAGES]
    if bad:
        raise typer.BadParameter(f"unknown stage(s) {bad}; choose from {list(STAGES)}", param_hint="--stage")

    check_backend(backend)
    choice = ModelChoice(base_url=base_url, model=model, api_key=api_key, backend=backend, max_concurrency=cfg.concurrency, timeout_s=timeout)

    async def main() -> dict:  # type: ignore[type-arg]
        async with AsyncExitStack() as stack:
            generator = await stack.enter_async_context(open_model(choice))
            agent = await open_companion(stack, choice, generator, base_url=None, model=agent_model, role="agent")
            judge = await open_companion(stack, choice, generator, base_url=judge_base_url, model=judge_model, role="judge")
            pipeline = SftPipeline(out, generator, config=cfg, agent_model=agent, judge_model=judge, use_cache=not no_cache)
            return await pipeline.run(servers or None, stages)

    try:
        stats = anyio.run(main)
    except (ValueError, AgentSdkError) as exc:
        raise fail(str(exc)) from exc
    typer.echo(json.dumps({"funnel": stats["extra"].get("funnel", {}), "judge": stats["extra"].get("judge", {})}, indent=2))
    typer.echo(f"wrote {out / 'stats.json'}, {out / 'sft.jsonl'}, {out / 'plots'}")
