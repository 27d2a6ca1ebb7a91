"""ASTRA's GRPO recipe as veRL 0.9.1 overrides, and the launcher behind `astra rl train --engine verl`.

The recipe comes from a preset (`rl.presets`, default `astra`): GRPO advantages, no KL
(neither in the reward nor as a loss), no entropy bonus, token-mean loss aggregation,
lr 2e-6, one update per batch (PPO mini-batch = train batch), up to 32 assistant turns, and
adaptive batch filling.

Batch sizes: veRL's `validate_config` (run by `main_ppo` before Ray starts) needs either
micro-batch sizes or dynamic batch sizing. Multi-turn trajectories vary from a few hundred
tokens to prompt + response, so the recipe uses dynamic batch sizing (veRL's choice for its
multi-turn examples): micro-batches are packed up to `max_token_len_per_gpu` tokens, by
default prompt + response, the longest trajectory (veRL refuses a budget below it). The
rollout's and the reference model's log-prob passes follow the actor's settings.

Tool calls: `multi_turn.format` selects `AstraToolParser` (the agent's own parser: tags,
fences and bare JSON) and `multi_turn.max_parallel_calls` is set explicitly; the agent loop
runs every call, at most that many at once (see `rl.verl._agent_loop`).

Batch filling in veRL: veRL's own `algorithm.filter_groups` (DAPO) has no δ and discards the
surplus in sync mode, so the V1 trainer's replay buffer is replaced through its extension
point (`trainer.v1.sampler.custom_sampler`) by `rl.verl._batch_filling.AstraReplayBuffer`:
groups with reward std > δ fill the batch round by round, the surplus is carried to the next
step, and a cap on rounds ends an all-zero streak with `BatchFillingError`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from agent_sdk import STUDENT
from rl._models import resolve_model
from rl.datasets import AGENT_NAME
from rl.exceptions import TrainingSetupError
from rl.presets import ASTRA, Preset
from rl.verl._tool_parser import ASTRA_TOOL_PARSER

_ASTRA = ASTRA.grpo

SAMPLER_PATH = "pkg://rl.verl._batch_filling"
"""`trainer.v1.sampler.custom_sampler.path`: the module of ASTRA's batch-filling replay buffer."""
SAMPLER_NAME = "AstraReplayBuffer"
"""`trainer.v1.sampler.custom_sampler.name`: its class."""


class VerlRecipe(BaseModel):
    """Settings of a veRL GRPO run (defaults: ASTRA's recipe)."""

    model_path: str = Field(description="A local Hugging Face model directory (veRL cannot load a GGUF file).")
    train_files: str
    val_files: str
    arena_url: str = Field(description="Base URL of the arena serving the environments.")
    n_gpus_per_node: int = Field(default=8, ge=1)
    nnodes: int = Field(default=1, ge=1)
    rollout_engine: Literal["vllm", "sglang"] = "vllm"
    tensor_parallel: int = Field(default=1, ge=1)
    group_size: int = Field(default=_ASTRA.group_size, ge=2, description="Rollouts per prompt (GRPO group).")
    prompts_per_step: int = Field(default=_ASTRA.prompts_per_step, ge=1, description="Prompts per step; also the PPO mini-batch (one update per step).")
    lr: float = _ASTRA.lr
    max_turns: int = Field(default=_ASTRA.max_turns, ge=1)
    max_prompt_length: int = _ASTRA.max_prompt_length
    max_response_length: int = _ASTRA.max_response_length
    max_tool_response_length: int = _ASTRA.max_tool_response_length
    tool_parser: str = Field(
        default=ASTRA_TOOL_PARSER,
        description="veRL tool parser: 'astra' (the agent's parser: tags, fences, bare JSON), hermes, qwen3_coder, ...",
    )
    max_parallel_calls: int = Field(
        default=8, ge=1, description="Tool calls of one turn run at most this many at once (all of them run)."
    )
    max_token_len_per_gpu: int | None = Field(
        default=None, ge=1, description="Dynamic batch sizing: tokens per micro-batch per GPU (None: prompt + response)."
    )
    temperature: float = _ASTRA.temperature
    kl_coef: float = Field(default=_ASTRA.kl_coef, ge=0, description="KL loss coefficient (0: no KL loss, no reference model).")
    entropy_coef: float = Field(default=_ASTRA.entropy_coef, ge=0)
    loss_agg_mode: str = _ASTRA.loss_agg_mode
    batch_filling: bool = _ASTRA.batch_filling
    delta: float = Field(default=_ASTRA.delta, ge=0, description="Batch filling keeps groups whose reward std is > delta.")
    max_fill_rounds: int = Field(default=_ASTRA.max_fill_rounds, ge=1, description="Generation rounds per step before giving up.")
    total_epochs: int = 1
    call_timeout_s: float = 30.0
    project_name: str = "astra-mcp"
    experiment_name: str = "grpo"
    output_dir: str = "checkpoints"
    extra_overrides: list[str] = Field(default_factory=list, description="Appended verbatim (hydra syntax).")

    @field_validator("model_path")
    @classmethod
    def _not_gguf(cls, model_path: str) -> str:
        if model_path.lower().endswith(".gguf"):
            raise TrainingSetupError(
                f"{model_path}: veRL cannot load a GGUF file (its FSDP actor and vLLM rollout read a Hugging Face "
                "directory); pass --policy embedded (the embedded model's safetensors directory) or another model "
                "directory, or train the GGUF with --engine trl"
            )
        return model_path

    @property
    def token_budget(self) -> int:
        """Tokens per micro-batch per GPU under dynamic batch sizing."""
        return self.max_token_len_per_gpu or self.max_prompt_length + self.max_response_length

    @classmethod
    def from_preset(cls, preset: Preset, **settings: Any) -> VerlRecipe:
        """A recipe with `preset`'s GRPO hyper-parameters; `settings` (those not None) override them."""
        own = preset.grpo.model_dump(
            include={"max_prompt_length", "max_response_length", "max_tool_response_length", "kl_coef", "entropy_coef", "loss_agg_mode"}
        )
        return cls(**{**preset.grpo.shared_fields(), **own, **{k: v for k, v in settings.items() if v is not None}})


def verl_recipe(preset: Preset, data: Path, out: Path, model: str | None = None, **overrides: Any) -> VerlRecipe:
    """The `VerlRecipe` `rl.train_grpo` runs for these arguments (its model as given; see `resolve_verl_model`).

    Raises:
        TrainingSetupError: the model is a `.gguf` file (veRL loads a directory).
    """
    return VerlRecipe.from_preset(
        preset, model_path=model or STUDENT.target, train_files=str(data / "train.parquet"), val_files=str(data / "val.parquet"),
        arena_url="http://127.0.0.1:0", output_dir=str(out / "checkpoints"), **overrides,
    )  # fmt: skip


def resolve_verl_model(recipe: VerlRecipe) -> VerlRecipe:
    """`recipe` with its model as the path veRL loads (an embedded name becomes its directory, built on first use).

    Raises:
        TrainingSetupError: the embedded model cannot be built.
    """
    return recipe.model_copy(update={"model_path": resolve_model(recipe.model_path)})


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
        f"{actor}.use_kl_loss={recipe.kl_coef > 0}",
        f"{actor}.kl_loss_coef={recipe.kl_coef}",
        f"{actor}.entropy_coeff={recipe.entropy_coef}",
        f"{actor}.loss_agg_mode={recipe.loss_agg_mode}",
        f"{actor}.optim.lr={recipe.lr}",
        f"{actor}.ppo_mini_batch_size={recipe.prompts_per_step}",
        f"{actor}.ppo_epochs=1",
        f"{actor}.use_dynamic_bsz=True",
        f"{actor}.ppo_max_token_len_per_gpu={recipe.token_budget}",
        f"actor_rollout_ref.model.path={recipe.model_path}",
        f"data.train_files={recipe.train_files}",
        f"data.val_files={recipe.val_files}",
        f"data.train_batch_size={recipe.prompts_per_step}",
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
        f"{rollout}.multi_turn.max_parallel_calls={recipe.max_parallel_calls}",
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
        sampler = "trainer.v1.sampler"
        overrides += [
            f"{sampler}.custom_sampler.path={SAMPLER_PATH}",
            f"{sampler}.custom_sampler.name={SAMPLER_NAME}",
            f"+{sampler}.sampler_kwargs.delta={recipe.delta}",
            f"+{sampler}.sampler_kwargs.max_rounds={recipe.max_fill_rounds}",
            f"+{sampler}.sampler_kwargs.metric=f1_reward",
        ]
    return overrides + list(recipe.extra_overrides)


def compose_config(recipe: VerlRecipe, agent_loop_config: Path) -> Any:
    """veRL's trainer config (`ppo_trainer`) composed with the recipe's overrides, as `main_ppo` composes it.

    Raises:
        TrainingSetupError: when an override does not compose (a bad key or value, e.g. in `extra_overrides`).
    """
    import importlib.util

    from hydra import compose, initialize_config_dir
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    spec = importlib.util.find_spec("verl")
    if spec is None or not spec.submodule_search_locations:
        raise TrainingSetupError("veRL is not installed (extra `verl`)")
    config_dir = Path(spec.submodule_search_locations[0]) / "trainer" / "config"
    try:
        with initialize_config_dir(config_dir=str(config_dir), version_base=None):
            return compose(config_name="ppo_trainer", overrides=recipe_overrides(recipe, agent_loop_config))
    except (HydraException, OmegaConfBaseException) as exc:
        raise TrainingSetupError(f"the veRL config does not compose: {exc}") from exc


def check_recipe(recipe: VerlRecipe, agent_loop_config: Path) -> Any:
    """The composed config, checked by veRL's own `validate_config` (what `main_ppo` runs before Ray starts).

    Raises:
        TrainingSetupError: with veRL's message, when the config does not compose or veRL rejects it.
    """
    from verl.trainer.ppo.utils import need_critic, need_reference_policy
    from verl.utils.config import validate_config

    config = compose_config(recipe, agent_loop_config)
    try:
        validate_config(config, use_reference_policy=need_reference_policy(config), use_critic=need_critic(config))
    except Exception as exc:  # veRL signals with assertions, ValueErrors and hydra instantiation errors alike
        raise TrainingSetupError(f"veRL rejects the config: {exc}") from exc
    return config


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
