"""`astra loop`: the whole recipe, end to end, in one resumable output directory."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from astra_cli._apps import app
from astra_cli._model_options import TrainedPolicyOption


class LoopEngine(str, Enum):
    served = "served"
    trl = "trl"
    verl = "verl"


@app.command("loop")
def loop(
    out: Annotated[Path, typer.Option("--out", help="Output directory of the run (re-running resumes it).")] = Path("runs/loop"),
    knowledge: Annotated[list[Path] | None, typer.Option("--knowledge", help="Knowledge-row JSONL for environment synthesis (repeatable).")] = None,
    worlds: Annotated[list[Path] | None, typer.Option("--world", help="World source for environment synthesis by code: SQLite, world file, domain list or a folder (repeatable).")] = None,
    tool_docs: Annotated[list[str] | None, typer.Option("--tool-docs", help="Tool-doc source for SFT synthesis, as `astra sft synth --servers` (repeatable).")] = None,
    train_envs: Annotated[list[Path] | None, typer.Option("--train-envs", help="Extra environments to train on (verified with the synthesized ones; repeatable).")] = None,
    train_sft: Annotated[list[Path] | None, typer.Option("--train-sft", help="Judged SFT rows to add to the cold start, e.g. a corpus' sft.jsonl (repeatable).")] = None,
    eval_envs: Annotated[Path | None, typer.Option("--eval-envs", help="Environments training never sees (default: examples/envs).")] = None,
    preset: Annotated[str, typer.Option("--preset", help="cpu-small (2 cores, embedded model) or astra (the paper's scale).")] = "cpu-small",
    preset_config: Annotated[Path | None, typer.Option("--preset-config", help='JSON file of preset fields overriding the preset\'s, nested ones field by field (e.g. {"recipe": {"grpo": {"max_steps": 12}}}).')] = None,
    engine: Annotated[LoopEngine, typer.Option("--engine", help="GRPO engine: served (rollouts from vLLM, updates here), trl (TRL generation) or verl (GPUs).")] = LoopEngine.served,
    policy: TrainedPolicyOption = None,
    base_endpoint: Annotated[str | None, typer.Option("--base-endpoint", help="Evaluate the base policy at this OpenAI-compatible URL instead of serving --policy.")] = None,
    synth_config: Annotated[Path | None, typer.Option("--synth-config", help="JSON file of SynthConfig fields for environment synthesis.")] = None,
    sft_config: Annotated[Path | None, typer.Option("--sft-config", help="JSON file of SftConfig fields for SFT synthesis.")] = None,
    trained_model: Annotated[str | None, typer.Option("--trained-model", help="Evaluate this model instead of the GRPO output.")] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="Synthesis model endpoint (default $ASTRA_LLM_BASE_URL, else the embedded teacher).")] = None,
    llm_model: Annotated[str | None, typer.Option("--llm-model", help="Model name at --base-url.")] = None,
    overlap_threshold: Annotated[float, typer.Option(help="Cosine at which a training question near-duplicates an eval question.")] = 0.9,
    redo: Annotated[str | None, typer.Option("--redo", help="Rerun this stage and every later one.")] = None,
    until: Annotated[str | None, typer.Option("--until", help="Stop after this stage.")] = None,
    seed: Annotated[int, typer.Option("--seed")] = 0,
) -> None:
    """Synthesize, verify, cold-start SFT, GRPO, then evaluate base vs trained on unseen environments; writes report.md."""
    import anyio
    from pydantic import ValidationError

    from agent_sdk import STUDENT, format_validation_error
    from astra_loop import EXAMPLE_ENVS, LoopConfig, RecipeError, run_loop
    from astra_loop import preset as find_preset

    def fields(path: Path | None, option: str) -> dict:
        try:
            return json.loads(path.read_text()) if path else {}
        except (OSError, ValueError) as exc:
            raise typer.BadParameter(f"{path}: {exc}", param_hint=option) from exc

    try:
        base = find_preset(preset)
        try:
            sized = base.with_overrides(fields(preset_config, "--preset-config"))
        except ValidationError as exc:
            raise typer.BadParameter(format_validation_error(exc), param_hint="--preset-config") from exc
        config = LoopConfig(
            out=out, knowledge=knowledge or [], worlds=worlds or [], tool_docs=tool_docs or [], extra_train_envs=train_envs or [], extra_sft=train_sft or [],
            eval_envs=eval_envs or EXAMPLE_ENVS, preset=sized, engine=engine.value, policy=policy or STUDENT.target,
            base_endpoint=base_endpoint, synth_config=fields(synth_config, "--synth-config"), sft_config=fields(sft_config, "--sft-config"),
            trained_model=trained_model, generator=base_url, generator_model=llm_model, overlap_threshold=overlap_threshold, seed=seed,
        )

        def show(stage: str, event: str) -> None:
            typer.echo(f"[loop] {stage}: {'already done, skipped' if event == 'skip' else event}", err=True)

        records = anyio.run(lambda: run_loop(config, redo=redo, until=until, on_event=show))
    except RecipeError as exc:
        typer.echo(f"error: {exc}", err=True)
        typer.echo(f"partial report: {out / 'report.md'}", err=True)
        raise typer.Exit(2) from exc
    for r in records:
        typer.echo(f"{r.name:<12}{r.wall_s:>9.1f} s  {r.summary}")
    typer.echo(f"report: {out / 'report.md'}")
