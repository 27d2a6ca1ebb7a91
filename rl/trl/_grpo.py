"""`astra rl train --engine trl`: TRL's GRPOTrainer in environment mode over an in-process arena.

The arena (`mcp_servers.serve_arena`) and every rollout's MCP session run on one
anyio blocking portal; TRL trains in the calling thread. Rows come from `prepare`'s
`train.jsonl`; each selects its environment class (its tools plus its distractors) by
`environment`. Tool calls are read from the policy's text by `agent_sdk.parse_tool_calls` (TRL's
response parser for the run; see `rl.trl._parsing`) under the model's own chat template, so
training sees the calls an evaluator sees. The reward is the F1 reward read from each rollout's
session. The recipe comes from a preset (`rl.presets`; default `cpu-small`): GRPO, no KL (beta
0, no reference model), no entropy bonus, token-mean loss (`loss_type="dapo"`), one update per
generation batch, and adaptive batch filling through `BatchFillingGRPOTrainer` (groups with reward std
<= δ are replaced by further generation, the surplus is carried to the next step).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from pydantic import Field

from rl._train_report import TrainReport, plot_rewards
from rl.datasets import RlTask, load_envs, read_trl_tasks
from rl.exceptions import TrainingSetupError
from rl.grpo_recipe import GrpoRecipe
from rl.presets import CPU_SMALL, Preset

_CPU = CPU_SMALL.grpo


class TrlRecipe(GrpoRecipe):
    """Settings of a TRL GRPO run (defaults: the `cpu-small` preset; `from_preset` for another)."""

    max_steps: int | None = Field(default=_CPU.max_steps, ge=1, description="Optimizer steps (None: one epoch).")
    max_completion_length: int = Field(default=_CPU.max_response_length, ge=8, description="Token budget of a whole multi-turn completion.")
    logging_steps: int = 1
    save: bool = Field(default=True, description="Save the trained policy to `output_dir/model` (what `astra loop` evaluates).")

    @classmethod
    def preset_fields(cls, preset: Preset) -> dict[str, Any]:
        """The shared fields plus the step count and the completion budget."""
        grpo = preset.grpo
        return {**super().preset_fields(preset), "max_steps": grpo.max_steps, "max_completion_length": grpo.max_response_length}


def _metrics_callback(path: Path, records: list[dict[str, Any]]) -> Any:
    from transformers import TrainerCallback

    class MetricsToJsonl(TrainerCallback):
        def on_log(self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None, **kwargs: Any) -> None:
            if not logs:
                return
            record = {"step": state.global_step, "time": time.time(), **{k: v for k, v in logs.items() if isinstance(v, (int, float))}}
            records.append(record)
            with path.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(record) + "\n")

    return MetricsToJsonl()


def train_grpo(recipe: TrlRecipe) -> TrainReport:
    """Run GRPO with TRL against an in-process arena serving `recipe.envs_dir`.

    Raises:
        TrainingSetupError: when TRL, the data or the model is missing.
    """
    try:
        from anyio.from_thread import start_blocking_portal
        from datasets import Dataset
        from trl import GRPOConfig, GRPOTrainer
    except ImportError as exc:
        raise TrainingSetupError(f"TRL training needs the `train` extra: {exc}") from exc
    from mcp_servers import serve_arena
    from rl._models import load_policy
    from rl.trl._env import environment_factories, f1_reward_func
    from rl.trl._parsing import agent_response_parser

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    train_file = recipe.data_dir / "train.jsonl"
    if not train_file.is_file():
        raise TrainingSetupError(f"{train_file}: not found (run `astra rl prepare` first)")
    tasks: list[RlTask] = read_trl_tasks(train_file)
    envs = {e.spec.id: e for e in load_envs(recipe.envs_dir)}
    missing = sorted({t.env_id for t in tasks} - set(envs))
    if missing:
        raise TrainingSetupError(f"{train_file}: environments not found under {recipe.envs_dir}: {missing[:5]}")
    model, tokenizer = load_policy(recipe.model, torch_threads=recipe.torch_threads, top_layers=recipe.train_top_layers)
    recipe.output_dir.mkdir(parents=True, exist_ok=True)
    metrics_path = recipe.output_dir / "metrics.jsonl"
    metrics_path.write_text("")
    records: list[dict[str, Any]] = []
    model_dir: Path | None = None
    started = time.monotonic()
    rows = [t.trl_row() for t in tasks]
    config = GRPOConfig(
        output_dir=str(recipe.output_dir),
        learning_rate=recipe.lr,
        beta=0.0,
        entropy_coef=0.0,
        loss_type="dapo",
        num_generations=recipe.group_size,
        per_device_train_batch_size=recipe.prompts_per_step * recipe.group_size,
        gradient_accumulation_steps=1,
        num_iterations=1,
        max_completion_length=recipe.max_completion_length,
        max_tool_calling_iterations=recipe.max_turns,
        temperature=recipe.temperature,
        max_steps=recipe.max_steps or -1,
        num_train_epochs=1,
        logging_steps=recipe.logging_steps,
        save_strategy="no",
        report_to=[],
        seed=recipe.seed,
        use_cpu=not _cuda(),
        bf16=False,
        remove_unused_columns=False,
        disable_tqdm=True,
    )
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(serve_arena(list(envs.values()))) as arena:
        factories = environment_factories(tasks, envs, portal, arena.base_url, call_timeout_s=recipe.call_timeout_s)
        counted = _CountingFactories(factories)
        trainer_class, filling = GRPOTrainer, {}
        if recipe.batch_filling:
            from rl.trl._batch_filling import BatchFillingGRPOTrainer

            trainer_class, filling = BatchFillingGRPOTrainer, {"delta": recipe.delta, "max_fill_rounds": recipe.max_fill_rounds}
        known_tools = {tool.name for env in envs.values() for tool in env.spec.tools}
        with agent_response_parser(tokenizer, known_tools):
            trainer = trainer_class(
                model=model,
                reward_funcs=[f1_reward_func],
                args=config,
                train_dataset=Dataset.from_list(rows),
                processing_class=tokenizer,
                environment_factory=counted.factories,
                callbacks=[_metrics_callback(metrics_path, records)],
                **filling,
            )
            trainer.train()
        if recipe.save:
            model_dir = recipe.output_dir / "model"
            trainer.save_model(str(model_dir))
            tokenizer.save_pretrained(str(model_dir))
    stats = counted.stats()
    rewards = [float(r["reward"]) for r in records if "reward" in r]
    losses = [float(r["loss"]) for r in records if "loss" in r]
    plot = plot_rewards(records, recipe.output_dir / "reward_curve.png", f"GRPO (TRL) on {len(envs)} envs") if recipe.plot else None
    return TrainReport(
        steps=trainer.state.global_step,
        episodes=stats.episodes,
        tool_calls=stats.calls,
        argument_repairs=stats.argument_repairs,
        unparsable_arguments=stats.unparsable_arguments,
        rewards=rewards,
        losses=losses,
        batch_filling=list(trainer.filler.history) if recipe.batch_filling else [],
        metrics_path=str(metrics_path),
        plot_path=str(plot) if plot else None,
        model_dir=str(model_dir) if model_dir else None,
        wall_s=time.monotonic() - started,
    )


def _cuda() -> bool:
    import torch

    return torch.cuda.is_available()


class _CountingFactories:
    """Keeps the environment instances TRL creates, to report episodes, tool calls and repairs."""

    def __init__(self, factories: dict[str, Any]) -> None:
        self.instances: list[Any] = []
        self.factories = {name: self._wrap(f) for name, f in factories.items()}

    def _wrap(self, factory: Any) -> Any:
        def make() -> Any:
            instance = factory()
            self.instances.append(instance)
            return instance

        return make

    def stats(self) -> Any:
        """The `EnvStats` of every instance, summed."""
        from rl.trl._env import EnvStats, env_stats

        each = [env_stats(i) for i in self.instances]
        return EnvStats(
            episodes=sum(s.episodes for s in each),
            calls=sum(s.calls for s in each),
            argument_repairs=sum(s.argument_repairs for s in each),
            unparsable_arguments=sum(s.unparsable_arguments for s in each),
        )
