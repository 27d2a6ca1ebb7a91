"""`train_grpo`: one GRPO run on any engine, from a preset plus explicit settings.

`astra rl train` and `astra loop` both train through here, so the engine switch is written once:
`served` (rollouts from the policy served by vLLM, updates here: a CPU), `trl` (TRL's GRPOTrainer
in process) or `verl` (distributed, GPUs). The preset gives every hyper-parameter; `overrides`
(those not None) replace single fields of the engine's recipe (`ServedRecipe`, `TrlRecipe`,
`VerlRecipe`), so a CLI flag left unset keeps the preset's value.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import anyio

from rl._train_report import TrainReport
from rl.presets import Preset

__all__ = ["Engine", "train_grpo"]

Engine = Literal["served", "trl", "verl"]
"""The GRPO engines."""


async def train_grpo(
    engine: Engine,
    preset: Preset,
    data: Path,
    envs: Path,
    out: Path,
    model: str | None = None,
    *,
    host: str = "127.0.0.1",
    **overrides: Any,
) -> TrainReport | int:
    """Run GRPO with `engine` on the data `astra rl prepare` wrote to `data`, over the environments in `envs`.

    Args:
        engine: "served", "trl" or "verl".
        preset: the recipe (`rl.get_preset`).
        data: the prepared data directory (train.jsonl; veRL: train/val parquet).
        envs: the environments the data was prepared from (served by an arena here).
        out: the output directory (metrics.jsonl, reward_curve.png, model/; veRL: checkpoints/).
        model: the policy (a local model target; None: the embedded student).
        host: veRL: the address the arena binds (one rollout workers on other nodes reach).
        **overrides: recipe fields that replace the preset's (None: keep the preset's).

    Returns:
        The run's `TrainReport` (served, trl); veRL's exit code (it writes sharded checkpoints).

    Raises:
        TrainingSetupError: the data, environments, model or engine stack is missing, or veRL
            rejects the recipe / finds no GPU.
        BatchFillingError: batch filling found too few groups with a learning signal.
    """
    paths = {"data_dir": data, "envs_dir": envs, "output_dir": out, "model": model}
    if engine == "served":
        from rl.served import ServedRecipe, train_served_grpo

        return await train_served_grpo(ServedRecipe.from_preset(preset, **paths, **overrides))
    if engine == "trl":
        from rl.trl import TrlRecipe
        from rl.trl import train_grpo as train_trl

        recipe = TrlRecipe.from_preset(preset, **paths, **overrides)
        return await anyio.to_thread.run_sync(lambda: train_trl(recipe))
    from rl.verl import launch_verl, require_gpu, resolve_verl_model, verl_recipe

    # In order: a model veRL cannot load, then a missing GPU, then building the embedded model.
    recipe = verl_recipe(preset, data, out, model, **overrides)
    if overrides.get("n_gpus_per_node") is None:
        recipe = recipe.model_copy(update={"n_gpus_per_node": require_gpu()})
    return await launch_verl(resolve_verl_model(recipe), envs, out, host=host)
