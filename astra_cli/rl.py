"""`astra rl prepare|train` and `astra sft train`."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from astra_cli._apps import rl_app, sft_app
from astra_cli._model_options import TrainedPolicyOption


class Engine(str, Enum):
    verl = "verl"
    trl = "trl"
    served = "served"


class Mode(str, Enum):
    banded = "banded"
    random = "random"
    none = "none"


def _log_training_progress() -> None:
    """Show the rl package's per-step lines (batch filling: kept / discarded / carried groups) on stderr."""
    import logging

    log = logging.getLogger("rl")
    if not log.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s: %(message)s"))
        log.addHandler(handler)
    log.setLevel(logging.INFO)


def _fail(exc: Exception) -> None:
    typer.echo(f"error: {exc}", err=True)
    raise typer.Exit(2) from exc


@rl_app.command("prepare")
def prepare(
    envs_dir: Path = typer.Argument(..., help="Directory of environments (*/env.json)."),
    out: Path = typer.Option(..., "--out", help="Where to write train/val parquet (veRL) and JSONL (TRL)."),
    val_fraction: float = typer.Option(0.1, help="Share of environments held out for validation."),
    seed: int = typer.Option(0, help="Seed of the split and of distractor sampling."),
    distractors: Mode = typer.Option(Mode.banded, help="Distractor mode: banded (ASTRA), random (5-9), none."),
    per_band: int = typer.Option(2, help="Banded mode: distractors sampled per band for each tool."),
    embedding_model: Optional[str] = typer.Option(None, help="sentence-transformers model (default: packaged all-MiniLM-L6-v2)."),
    embedding_cache: Optional[Path] = typer.Option(None, help="Directory caching embeddings by document hash."),
    device: Optional[str] = typer.Option(None, help="Embedding device (cpu, cuda)."),
    tool_docs: Optional[Path] = typer.Option(None, help="Ingested tool docs (servers JSONL) widening the similarity pool."),
    policy: TrainedPolicyOption = None,
    preset: str = typer.Option("astra", help="Recipe preset whose max_prompt_length rows must fit (astra: 25,600; cpu-small: 4,096)."),
    max_prompt_length: Optional[int] = typer.Option(None, help="Prompt token limit (overrides the preset's)."),
) -> None:
    """Build RL datasets (with distractors) from verified environments; rows whose prompt does not fit are rejected."""
    from agent_sdk import STUDENT
    from rl import Embedder, PromptLimit
    from rl.datasets import prepare as run
    from rl.distractors import DistractorConfig
    from rl.exceptions import RlError
    from rl.presets import get_preset

    try:
        limit = PromptLimit(
            tokenizer=policy or STUDENT.target,
            max_prompt_length=max_prompt_length or get_preset(preset).grpo.max_prompt_length,
        )
        report = run(
            envs_dir, out, val_fraction=val_fraction, seed=seed,
            distractors=DistractorConfig(mode=distractors.value, per_band=per_band, seed=seed),
            embedder=Embedder(embedding_model, cache_dir=embedding_cache, device=device), tool_docs=tool_docs,
            prompt_limit=limit,
        )
    except RlError as exc:
        _fail(exc)
    if report.rejected:
        typer.echo(
            f"rejected {report.rejected.get('prompt_too_long', 0)} rows whose prompt exceeds "
            f"{report.max_prompt_length} tokens with its tools (see {out / 'rejected.jsonl'})",
            err=True,
        )
    typer.echo(report.model_dump_json(indent=2))


_PRESET_HELP = (
    "Recipe preset: astra (ASTRA's recipe) or cpu-small (a 2-core CPU). Default: astra for veRL; for TRL "
    "cpu-small on a CPU, astra on a GPU. Explicit flags override the preset."
)


@rl_app.command("train")
def train(
    engine: Engine = typer.Option(
        Engine.trl, help="verl (distributed, GPUs), trl (single machine, CPU or one GPU) or served (rollouts from vLLM, updates here: a CPU)."
    ),
    data: Path = typer.Option(..., help="Output directory of `astra rl prepare`."),
    envs: Path = typer.Option(..., help="The environments directory the data was prepared from."),
    out: Path = typer.Option(Path("runs/grpo"), help="Output directory (checkpoints, metrics.jsonl, reward_curve.png)."),
    preset: Optional[str] = typer.Option(None, help=_PRESET_HELP),
    policy: TrainedPolicyOption = None,
    max_steps: Optional[int] = typer.Option(None, help="TRL/served: optimizer steps (preset; cpu-small: 20, astra: 200)."),
    prompts_per_step: Optional[int] = typer.Option(None, help="Prompts per step (= PPO mini-batch; astra: 256)."),
    group_size: Optional[int] = typer.Option(None, help="Rollouts per prompt (GRPO group)."),
    max_completion_length: Optional[int] = typer.Option(None, help="Token budget of a multi-turn response (astra: 49,152)."),
    max_turns: Optional[int] = typer.Option(None, help="Tool-calling turns per rollout (astra: 32)."),
    lr: Optional[float] = typer.Option(None, help="Learning rate (astra: 2e-6)."),
    batch_filling: Optional[bool] = typer.Option(None, "--batch-filling/--no-batch-filling", help="Adaptive batch filling (preset: on)."),
    delta: Optional[float] = typer.Option(None, help="Batch filling keeps groups whose reward std is > delta."),
    max_fill_rounds: Optional[int] = typer.Option(None, help="Generation rounds per step before batch filling gives up."),
    n_gpus: Optional[int] = typer.Option(None, help="veRL: GPUs per node (default: all visible)."),
    nnodes: int = typer.Option(1, help="veRL: nodes."),
    rollout_engine: str = typer.Option("vllm", help="veRL: vllm or sglang."),
    arena_host: str = typer.Option("127.0.0.1", help="veRL: address the arena binds."),
    override: list[str] = typer.Option([], help="veRL: extra hydra override (repeatable)."),
    dry_run: bool = typer.Option(False, help="veRL: print the trainer command and exit."),
    torch_threads: Optional[int] = typer.Option(None, help="TRL/served: CPU threads for torch (1 on a busy machine)."),
    train_top_layers: Optional[int] = typer.Option(None, help="TRL/served: train only the last N decoder layers (a CPU sizing)."),
    max_reply_tokens: Optional[int] = typer.Option(None, help="served: reply budget of one model request (preset; cpu-small: 256)."),
) -> None:
    """GRPO over MCP environments: served (rollouts from vLLM, updates here), TRL (environment mode) or veRL (agent loop + arena)."""
    import anyio

    from rl import train_grpo
    from rl.exceptions import RlError
    from rl.presets import default_preset, get_preset

    _log_training_progress()
    overrides = {
        "prompts_per_step": prompts_per_step, "group_size": group_size, "lr": lr, "max_turns": max_turns,
        "batch_filling": batch_filling, "delta": delta, "max_fill_rounds": max_fill_rounds,
    }
    if engine is Engine.verl:
        overrides |= {
            "n_gpus_per_node": n_gpus, "nnodes": nnodes, "rollout_engine": rollout_engine, "max_response_length": max_completion_length,
            "extra_overrides": list(override),
        }
    else:
        overrides |= {"max_steps": max_steps, "torch_threads": torch_threads, "train_top_layers": train_top_layers}
        overrides |= {"max_reply_tokens": max_reply_tokens} if engine is Engine.served else {"max_completion_length": max_completion_length}
    try:
        recipe_preset = get_preset(preset) if preset else default_preset(engine.value)
        if engine is Engine.verl and dry_run:
            from rl.verl import print_command, resolve_verl_model, verl_recipe

            recipe = resolve_verl_model(verl_recipe(recipe_preset, data, out, policy, **overrides))
            typer.echo(print_command(recipe if n_gpus else recipe.model_copy(update={"n_gpus_per_node": 1}), out))
            return
        result = anyio.run(lambda: train_grpo(engine.value, recipe_preset, data, envs, out, policy, host=arena_host, **overrides))
    except RlError as exc:
        _fail(exc)
    if isinstance(result, int):
        raise typer.Exit(result)
    typer.echo(result.model_dump_json(indent=2))


@sft_app.command("train")
def sft_train(
    data: Path = typer.Argument(..., help="SFT export: OpenAI-format JSONL ({messages, tools} per line)."),
    out: Path = typer.Option(Path("runs/sft"), "--out", help="Output directory (model/ is saved there)."),
    preset: Optional[str] = typer.Option(
        None, help="Recipe preset: astra (2 epochs at 5e-6) or cpu-small. Default: cpu-small on a CPU, astra on a GPU."
    ),
    policy: TrainedPolicyOption = None,
    epochs: Optional[float] = typer.Option(None, help="Epochs (preset: 2)."),
    max_steps: int = typer.Option(-1, help="Stop after this many steps (-1: by epochs)."),
    lr: Optional[float] = typer.Option(None, help="Learning rate (astra: 5e-6; ASTRA also used 2e-6)."),
    batch_size: Optional[int] = typer.Option(None, help="Per-device batch size."),
    max_length: Optional[int] = typer.Option(None, help="Longer conversations are skipped."),
    torch_threads: Optional[int] = typer.Option(None, help="CPU threads for torch."),
) -> None:
    """Supervised fine-tuning with TRL's SFTTrainer (loss on assistant tokens only)."""
    from rl.exceptions import RlError
    from rl.presets import default_preset, get_preset
    from rl.trl import SftRecipe, train_sft

    try:
        recipe = SftRecipe.from_preset(
            get_preset(preset) if preset else default_preset("trl"), data=data, output_dir=out, model=policy,
            epochs=epochs, max_steps=max_steps, lr=lr, batch_size=batch_size, max_length=max_length,
            torch_threads=torch_threads,
        )
        report = train_sft(recipe)
    except RlError as exc:
        _fail(exc)
    typer.echo(json.dumps(report.model_dump(), indent=2))
