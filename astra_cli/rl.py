"""`astra rl prepare|train` and `astra sft train`."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from astra_cli._apps import rl_app, sft_app


class Engine(str, Enum):
    verl = "verl"
    trl = "trl"


class Mode(str, Enum):
    banded = "banded"
    random = "random"
    none = "none"


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
) -> None:
    """Build RL datasets (with distractors) from verified environments."""
    from rl._embedding import Embedder
    from rl.datasets import prepare as run
    from rl.distractors import DistractorConfig
    from rl.exceptions import RlError

    try:
        report = run(
            envs_dir, out, val_fraction=val_fraction, seed=seed,
            distractors=DistractorConfig(mode=distractors.value, per_band=per_band, seed=seed),
            embedder=Embedder(embedding_model, cache_dir=embedding_cache, device=device), tool_docs=tool_docs,
        )
    except RlError as exc:
        _fail(exc)
    typer.echo(report.model_dump_json(indent=2))


@rl_app.command("train")
def train(
    engine: Engine = typer.Option(Engine.trl, help="verl (distributed, GPUs) or trl (single machine, CPU or one GPU)."),
    data: Path = typer.Option(..., help="Output directory of `astra rl prepare`."),
    envs: Path = typer.Option(..., help="The environments directory the data was prepared from."),
    out: Path = typer.Option(Path("runs/grpo"), help="Output directory (checkpoints, metrics.jsonl, reward_curve.png)."),
    model: Optional[str] = typer.Option(None, help="Model directory or .gguf (TRL default: SmolLM2-135M-Instruct)."),
    max_steps: int = typer.Option(2, help="TRL: optimizer steps."),
    prompts_per_step: int = typer.Option(2, help="TRL: prompts per step (veRL: --batch-size)."),
    group_size: int = typer.Option(8, help="Rollouts per prompt (GRPO group)."),
    batch_size: int = typer.Option(32, help="veRL: prompts per step (= PPO mini-batch)."),
    max_completion_length: int = typer.Option(512, help="TRL: token budget of a multi-turn completion."),
    max_turns: int = typer.Option(32, help="Tool-calling turns per rollout."),
    lr: float = typer.Option(2e-6, help="Learning rate (ASTRA: 2e-6)."),
    n_gpus: Optional[int] = typer.Option(None, help="veRL: GPUs per node (default: all visible)."),
    nnodes: int = typer.Option(1, help="veRL: nodes."),
    rollout_engine: str = typer.Option("vllm", help="veRL: vllm or sglang."),
    arena_host: str = typer.Option("127.0.0.1", help="veRL: address the arena binds."),
    override: list[str] = typer.Option([], help="veRL: extra hydra override (repeatable)."),
    dry_run: bool = typer.Option(False, help="veRL: print the trainer command and exit."),
    torch_threads: Optional[int] = typer.Option(None, help="TRL: CPU threads for torch (1 on a busy machine)."),
) -> None:
    """GRPO over MCP environments: veRL (agent loop + arena) or TRL (environment mode)."""
    from rl.exceptions import RlError

    try:
        if engine is Engine.trl:
            from rl.trl import TrlRecipe, train_grpo

            report = train_grpo(
                TrlRecipe(
                    data_dir=data, envs_dir=envs, output_dir=out, model=model, max_steps=max_steps,
                    prompts_per_step=prompts_per_step, group_size=group_size, lr=lr,
                    max_completion_length=max_completion_length, max_turns=max_turns, torch_threads=torch_threads,
                )
            )
            typer.echo(report.model_dump_json(indent=2))
            return
        import anyio

        from rl.verl._config import VerlRecipe, require_gpu
        from rl.verl._launch import launch_verl, print_command

        gpus = n_gpus or (1 if dry_run else require_gpu())
        recipe = VerlRecipe(
            model_path=model or "", train_files=str(data / "train.parquet"), val_files=str(data / "val.parquet"),
            arena_url="http://127.0.0.1:0", n_gpus_per_node=gpus, nnodes=nnodes, rollout_engine=rollout_engine,
            group_size=group_size, batch_size=batch_size, lr=lr, max_turns=max_turns,
            output_dir=str(out / "checkpoints"), extra_overrides=list(override),
        )
        if dry_run:
            typer.echo(print_command(recipe, out))
            return
        if not model:
            raise typer.BadParameter("veRL needs --model (a local Hugging Face model directory)")
        raise typer.Exit(anyio.run(lambda: launch_verl(recipe, envs, out, host=arena_host)))
    except RlError as exc:
        _fail(exc)


@sft_app.command("train")
def sft_train(
    data: Path = typer.Argument(..., help="SFT export: OpenAI-format JSONL ({messages, tools} per line)."),
    out: Path = typer.Option(Path("runs/sft"), "--out", help="Output directory (model/ is saved there)."),
    model: Optional[str] = typer.Option(None, help="Model directory or .gguf (default: SmolLM2-135M-Instruct)."),
    epochs: float = typer.Option(1.0, help="Epochs."),
    max_steps: int = typer.Option(-1, help="Stop after this many steps (-1: by epochs)."),
    lr: float = typer.Option(1e-5, help="Learning rate."),
    batch_size: int = typer.Option(2, help="Per-device batch size."),
    max_length: int = typer.Option(2048, help="Longer conversations are skipped."),
    torch_threads: Optional[int] = typer.Option(None, help="CPU threads for torch."),
) -> None:
    """Supervised fine-tuning with TRL's SFTTrainer (loss on assistant tokens only)."""
    from rl.exceptions import RlError
    from rl.trl import SftRecipe, train_sft

    try:
        report = train_sft(
            SftRecipe(data=data, output_dir=out, model=model, epochs=epochs, max_steps=max_steps, lr=lr,
                      batch_size=batch_size, max_length=max_length, torch_threads=torch_threads)
        )
    except RlError as exc:
        _fail(exc)
    typer.echo(json.dumps(report.model_dump(), indent=2))
