"""ASTRA's GRPO recipe as veRL 0.9.1 overrides, and the launcher behind `astra rl train --engine verl`.

The recipe: GRPO advantages, no KL (neither in the reward nor as a loss), no entropy bonus,
token-mean loss aggregation, lr 2e-6, one update per batch (PPO mini-batch = train batch),
up to 32 assistant turns, and adaptive batch filling.

Batch filling in veRL: the V1 trainer's sync mode can filter groups (`algorithm.filter_groups`,
the DAPO mechanism): a finished group whose metric has zero std is evicted and a fresh prompt
is dispatched in its place until the train batch is full; groups that finish beyond the
batch stay in the replay buffer for the next step. That is ASTRA's rule with δ = 0 (ASTRA's
default). Differences: veRL compares std == 0 exactly, so δ > 0 is not expressible (use the
TRL engine or `rl.batch_filling.BatchFiller` for that); refill is per prompt rather than per
generation round; veRL does not cap the carried surplus below n.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from rl.datasets import AGENT_NAME
from rl.exceptions import TrainingSetupError


class VerlRecipe(BaseModel):
    """Settings of a veRL GRPO run (defaults: ASTRA's recipe)."""

    model_path: str = Field(description="A local Hugging Face model directory.")
    train_files: str
    val_files: str
    arena_url: str = Field(description="Base URL of the arena serving the environments.")
    n_gpus_per_node: int = Field(default=8, ge=1)
    nnodes: int = Field(default=1, ge=1)
    rollout_engine: Literal["vllm", "sglang"] = "vllm"
    tensor_parallel: int = Field(default=1, ge=1)
    group_size: int = Field(default=8, ge=2, description="Rollouts per prompt (GRPO group).")
    batch_size: int = Field(default=32, ge=1, description="Prompts per step; also the PPO mini-batch (one update per step).")
    lr: float = 2e-6
    max_turns: int = Field(default=32, ge=1)
    max_prompt_length: int = 4096
    max_response_length: int = 12288
    max_tool_response_length: int = 4096
    tool_parser: str = Field(default="hermes", description="veRL tool parser (hermes, qwen3_coder, ...).")
    temperature: float = 1.0
    batch_filling: bool = True
    total_epochs: int = 1
    call_timeout_s: float = 30.0
    project_name: str = "astra-mcp"
    experiment_name: str = "grpo"
    output_dir: str = "checkpoints"
    extra_overrides: list[str] = Field(default_factory=list, description="Appended verbatim (hydra syntax).")


def write_agent_loop_config(path: Path) -> Path:
    """The YAML that makes veRL's workers import and register `McpAgentLoop`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"- name: {AGENT_NAME}\n  _target_: rl.verl._agent_loop.McpAgentLoop\n")
    return path


def recipe_overrides(recipe: VerlRecipe, agent_loop_config: Path) -> list[str]:
    """Hydra overrides for `python -m verl.trainer.main_ppo`."""
    actor = "actor_rollout_ref.actor"
    rollout = "actor_rollout_ref.rollout"
    overrides = [
        "algorithm.adv_estimator=grpo",
        "algorithm.use_kl_in_reward=False",
        f"{actor}.use_kl_loss=False",
        f"{actor}.kl_loss_coef=0",
        f"{actor}.entropy_coeff=0",
        f"{actor}.loss_agg_mode=token-mean",
        f"{actor}.optim.lr={recipe.lr}",
        f"{actor}.ppo_mini_batch_size={recipe.batch_size}",
        f"{actor}.ppo_epochs=1",
        f"actor_rollout_ref.model.path={recipe.model_path}",
        f"data.train_files={recipe.train_files}",
        f"data.val_files={recipe.val_files}",
        f"data.train_batch_size={recipe.batch_size}",
        f"data.max_prompt_length={recipe.max_prompt_length}",
        f"data.max_response_length={recipe.max_response_length}",
        "data.return_raw_chat=True",
        f"{rollout}.name={recipe.rollout_engine}",
        f"{rollout}.mode=async",
        f"{rollout}.n={recipe.group_size}",
        f"{rollout}.temperature={recipe.temperature}",
        f"{rollout}.tensor_model_parallel_size={recipe.tensor_parallel}",
        f"{rollout}.multi_turn.enable=True",
        f"{rollout}.multi_turn.max_assistant_turns={recipe.max_turns}",
        f"{rollout}.multi_turn.max_tool_response_length={recipe.max_tool_response_length}",
        f"{rollout}.multi_turn.format={recipe.tool_parser}",
        f"{rollout}.agent.default_agent_loop={AGENT_NAME}",
        f"{rollout}.agent.agent_loop_config_path={agent_loop_config}",
        "trainer.use_v1=True",
        "trainer.v1.trainer_mode=sync",
        f"trainer.n_gpus_per_node={recipe.n_gpus_per_node}",
        f"trainer.nnodes={recipe.nnodes}",
        f"trainer.total_epochs={recipe.total_epochs}",
        f"trainer.project_name={recipe.project_name}",
        f"trainer.experiment_name={recipe.experiment_name}",
        f"trainer.default_local_dir={recipe.output_dir}",
        "trainer.logger=[console]",
        f"+astra.arena_url={recipe.arena_url}",
        f"+astra.call_timeout_s={recipe.call_timeout_s}",
    ]
    if recipe.batch_filling:
        overrides += ["algorithm.filter_groups.enable=True", "algorithm.filter_groups.metric=f1_reward"]
    return overrides + list(recipe.extra_overrides)


def verl_command(recipe: VerlRecipe, workdir: Path) -> list[str]:
    """The full command line that launches veRL's trainer with the recipe."""
    config = write_agent_loop_config(workdir / "agent_loops.yaml")
    return [sys.executable, "-m", "verl.trainer.main_ppo", *recipe_overrides(recipe, config)]


def require_gpu() -> int:
    """The number of CUDA devices.

    Raises:
        TrainingSetupError: when there is none (veRL's trainer needs GPUs; use `--engine trl` on CPU).
    """
    try:
        import torch
    except ImportError as exc:
        raise TrainingSetupError("torch is not installed (extra `verl`)") from exc
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if count == 0:
        raise TrainingSetupError(
            "veRL training needs at least one CUDA GPU and none is visible; "
            "use `astra rl train --engine trl` for CPU or single-GPU runs"
        )
    return count
