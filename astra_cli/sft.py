"""`astra sft synth`: tool documentation -> judged multi-turn SFT trajectories."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from astra_cli import _model_options as opts
from astra_cli._apps import sft_app
from astra_cli.rl import Mode


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
    base_url: opts.BaseUrlOption = None,
    model: opts.ModelOption = None,
    agent_model: Annotated[
        str | None,
        typer.Option("--agent-model", help="Model playing rollouts: a name at the generator's endpoint or a model to run here (default: the generator)."),
    ] = None,
    judge_base_url: opts.JudgeBaseUrlOption = None,
    judge_model: opts.JudgeModelOption = None,
    api_key: opts.ApiKeyOption = None,
    backend: opts.BackendOption = "auto",
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

    opts.check_backend(backend)
    choice = opts.ModelChoice(base_url=base_url, model=model, api_key=api_key, backend=backend, max_concurrency=cfg.concurrency, timeout_s=timeout)

    async def main() -> dict:  # type: ignore[type-arg]
        async with AsyncExitStack() as stack:
            generator = await stack.enter_async_context(opts.open_model(choice))
            agent = await opts.open_companion(stack, choice, generator, base_url=None, model=agent_model, role="agent")
            judge = await opts.open_companion(stack, choice, generator, base_url=judge_base_url, model=judge_model, role="judge")
            pipeline = SftPipeline(out, generator, config=cfg, agent_model=agent, judge_model=judge, use_cache=not no_cache)
            return await pipeline.run(servers or None, stages)

    try:
        stats = anyio.run(main)
    except (ValueError, AgentSdkError) as exc:
        raise opts.fail(str(exc)) from exc
    typer.echo(json.dumps({"funnel": stats["extra"].get("funnel", {}), "judge": stats["extra"].get("judge", {})}, indent=2))
    typer.echo(f"wrote {out / 'stats.json'}, {out / 'sft.jsonl'}, {out / 'plots'}")


@sft_app.command("cold-start")
def cold_start(
    envs: Annotated[list[Path], typer.Option("--envs", help="Environment directory or directory of them (repeatable), e.g. the envs/ of `astra env synth`.")],
    out: Annotated[Path, typer.Option("--out", help="Output directory (verify.json, trajectories, rejected, stats.json, sft.jsonl/parquet).")],
    agent_samples: Annotated[int, typer.Option("--agent-samples", min=0, help="Agent episodes per environment, kept only at F1 = 1 (0: golden replay only).")] = 0,
    policy: opts.PolicyOption = None,
    golden: Annotated[bool, typer.Option("--golden/--no-golden", help="Replay each environment's golden calls.")] = True,
    temperature: Annotated[float, typer.Option("--temperature", help="Sampling temperature of agent episodes.")] = 0.8,
    max_turns: Annotated[int, typer.Option("--max-turns", help="Model requests per agent episode.")] = 16,
    seed: Annotated[int, typer.Option("--seed", help="Sample k is requested with seed + k.")] = 0,
    check_answer: Annotated[bool, typer.Option("--check-answer", help="Keep an agent episode only if its final answer contains the task's answer.")] = False,
    concurrency: Annotated[int, typer.Option("--concurrency", help="Environments verified and episodes played at once.")] = 4,
    system_prompt: Annotated[str | None, typer.Option("--system-prompt", help="System prompt (default: the agent's DEFAULT_SYSTEM_PROMPT).")] = None,
    distractors: Annotated[
        Mode, typer.Option("--distractors", help="Distractors offered beside each environment's tools: none, banded or random; "
                           "with `astra rl prepare`'s mode, --per-band and --seed (as --distractor-seed), the ones GRPO offers.")
    ] = Mode.none,
    per_band: Annotated[int, typer.Option("--per-band", min=0, help="Banded mode: distractors sampled per band for each tool.")] = 2,
    distractor_seed: Annotated[int, typer.Option("--distractor-seed", help="Seed of distractor sampling.")] = 0,
    workers: Annotated[int | None, typer.Option(help="Sandbox worker processes (default $ASTRA_SANDBOX_WORKERS, else 2).")] = None,
    unsafe: Annotated[bool, typer.Option("--unsafe-no-sandbox", help="Run tool code without isolation (untrusted code!).")] = False,
) -> None:
    """SFT conversations from verified environments: golden calls replayed over MCP, and agent episodes at F1 = 1."""
    import anyio

    from agent_sdk import AgentSdkError
    from mcp_servers import McpServersError, SandboxConfig
    from rl.cold_start import ColdStartConfig, ColdStartStats
    from rl.cold_start import cold_start as run_cold_start
    from rl.distractors import DistractorConfig
    from rl.exceptions import RlError

    fields = {"golden": golden, "agent_samples": agent_samples, "temperature": temperature, "max_turns": max_turns,
              "seed": seed, "check_answer": check_answer, "concurrency": concurrency}
    if system_prompt is not None:
        fields["system_prompt"] = system_prompt
    if distractors is not Mode.none:
        fields["distractors"] = DistractorConfig(mode=distractors.value, per_band=per_band, seed=distractor_seed)
    config = ColdStartConfig.model_validate(fields)
    if policy is not None and not agent_samples:
        typer.echo("note: --policy is used only with --agent-samples > 0", err=True)

    async def main() -> ColdStartStats:
        async with SandboxConfig.from_env(workers=workers, unsafe=unsafe).build() as sandbox:
            if not agent_samples:
                return await run_cold_start(envs, out, config=config, sandbox=sandbox)
            from agent_sdk import model_from_target

            async with model_from_target(policy) as chat_model:
                return await run_cold_start(envs, out, model=chat_model, config=config, sandbox=sandbox)

    try:
        stats = anyio.run(main)
    except (RlError, McpServersError, AgentSdkError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    for skipped in stats.skipped:
        typer.echo(f"skipped {skipped.path}: {skipped.reason} {' '.join(skipped.codes)}".rstrip(), err=True)
    typer.echo(stats.model_dump_json(indent=2, exclude={"files"}))
    typer.echo(f"wrote {out / 'stats.json'}, {out / 'sft.jsonl'}, {out / 'sft.parquet'}")


@sft_app.command("mix")
def mix(
    inputs: Annotated[list[Path], typer.Argument(help="SFT files (sft.jsonl, openai.jsonl, sft.parquet) or directories holding sft.jsonl, in priority order.")],
    out: Annotated[Path, typer.Option("--out", help="Output directory (sft.jsonl, sft.parquet, openai.jsonl, mix.json).")],
) -> None:
    """Concatenate SFT exports (e.g. `astra sft synth` and `astra sft cold-start`), dropping repeated conversations."""
    from rl.exceptions import RlError
    from rl.sft_files import mix_sft

    try:
        report = mix_sft(inputs, out)
    except RlError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    typer.echo(report.model_dump_json(indent=2))
