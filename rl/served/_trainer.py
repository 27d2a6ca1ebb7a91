"""`train_served_grpo`: GRPO whose rollouts come from the policy served by vLLM, for machines TRL cannot carry.

TRL's GRPOTrainer generates with Hugging Face `generate`; on two CPU cores that did not finish
one step of 8 short episodes in 20 minutes. Here every step serves the current weights
(`agent_sdk.serve_model`: vLLM, or the transformers backend where vLLM is absent), plays the
step's rollout groups as MCP agent episodes over an in-process arena (the evaluator's own loop,
all concurrently, so vLLM batches them), and updates the weights in this process
(`PolicyUpdate`); the next step serves the saved result. vLLM loads it in place
(`ServedModel.reload_weights`); a server that cannot is stopped during the update and
restarted on the new weights.

The recipe is the TRL engine's: GRPO groups, adaptive batch filling (`BatchFiller`, surplus
carried to the next step), no KL, token-mean loss, optionally only the top decoder layers
trained. A killed run resumes from the last saved step (`state.json`); the optimizer's moments
and the batch-filling buffer start afresh. With a validation split, the run's result is the
weights with the best validation F1 (`best.json`; the starting policy when no step beats it),
so a run that drifts away from what the cold start learned does not hand the drift on.
"""

from __future__ import annotations

import os
import random
import shutil
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, Literal

import anyio
from pydantic import BaseModel, Field

from agent_sdk import ChatModel, ServedModel, VllmOptions, model_from_target, read_jsonl, serve_model
from rl._train_report import TrainReport, plot_rewards
from rl.batch_filling import BatchFiller, StepStats
from rl.datasets import RlTask, load_envs, read_trl_tasks
from rl.exceptions import TrainingSetupError
from rl.grpo_recipe import GrpoRecipe
from rl.presets import CPU_SMALL, Preset
from rl.served._rollouts import RolloutGroup, RolloutSettings, finished, play_round
from rl.served._update import PolicyUpdate, UpdateStats
from rl.served._validation import mean_or_zero, play_validation

_CPU = CPU_SMALL.grpo


class ServedRecipe(GrpoRecipe):
    """Settings of a served-GRPO run (defaults: the `cpu-small` preset; `from_preset` for another)."""

    max_steps: int = Field(default=_CPU.max_steps or 20, ge=1, description="Optimizer steps.")
    max_reply_tokens: int = Field(default=_CPU.max_reply_tokens, ge=8, description="Reply budget of one model request.")
    max_train_tokens: int = Field(default=_CPU.max_prompt_length + _CPU.max_response_length, ge=64,
                                  description="Rollouts rendered longer than this are not trained on.")
    backend: Literal["auto", "vllm", "local"] = Field(default="auto", description="How each step serves the policy (agent_sdk.serve_model).")
    max_model_len: int = Field(default=8192, ge=512, description="vLLM context of the rollout server.")
    serve_dtype: Literal["auto", "bfloat16", "float32"] = Field(
        default="auto",
        description="vLLM's precision ('auto': bf16 where the CPU has it). The trainer computes in fp32: 'float32' serves in the "
        "same precision (slower sampling, no bf16 gap; cpu-small measured mean |Δ logprob| 0.08 and 8% of tokens clipped under bf16).",
    )
    weight_reload: bool = Field(
        default=True, description="vLLM: load each step's weights into the running server (else: restart it on them)."
    )
    clip_ratio: float = Field(default=_CPU.clip_ratio, gt=0, lt=1, description="ε of the clipped objective.")
    val_every: int = Field(
        default=_CPU.val_every, ge=0, description="Play `val.jsonl` before step 1, every N steps and after the last (0: never)."
    )
    val_episodes: int = Field(default=_CPU.val_episodes, ge=1, description="Seeded episodes per validation task.")
    unfinished_reward_scale: float = Field(
        default=_CPU.unfinished_reward_scale, ge=0, le=1, description="The trained reward of a rollout without a final answer is F1 times this."
    )

    @classmethod
    def preset_fields(cls, preset: Preset) -> dict[str, Any]:
        """The shared fields plus the step count, the reply budget and the trained-length limit."""
        grpo = preset.grpo
        return {
            **super().preset_fields(preset), "max_steps": grpo.max_steps or 20, "max_reply_tokens": grpo.max_reply_tokens,
            "max_train_tokens": grpo.max_prompt_length + grpo.max_response_length, "clip_ratio": grpo.clip_ratio,
            "val_every": grpo.val_every, "val_episodes": grpo.val_episodes, "unfinished_reward_scale": grpo.unfinished_reward_scale,
        }


class StepRecord(BaseModel):
    """One line of `metrics.jsonl`."""

    step: int
    reward: float = Field(description="Mean F1 over every rollout played this step (the policy's own score).")
    batch_reward: float = Field(description="Mean F1 over the rollouts trained on (valid groups only).")
    episodes: int
    tool_calls: int
    unfinished: int = Field(default=0, description="Rollouts that ended without a final answer (turn limit, token budget, model error).")
    loss: float
    grad_norm: float
    samples: int
    turns: int = Field(default=0, description="Sampled turns in those samples (fewer samples than turns: prefixes were shared).")
    tokens: int
    rerendered: int = Field(default=0, description="Rollouts trained on a re-rendering: the backend returned no sampled tokens.")
    too_long: int = Field(default=0, description="Training sequences dropped as longer than the train budget.")
    logprob_gap: float = Field(default=0.0, description="Mean |trainer - sampler| logprob of the sampled tokens, before the update.")
    kl: float = Field(default=0.0, description="Mean k3 KL(sampler || trainer) estimate over the sampled tokens.")
    clip_fraction: float = Field(default=0.0, description="Share of sampled tokens whose importance ratio was clipped.")
    repairs: int = Field(default=0, description="Tool-call argument repairs in this step's rollouts.")
    carried_groups: int = Field(default=0, description="Groups trained on that an earlier step generated (batch filling's buffer; ratio-corrected).")
    shared_prefix_tokens: int = Field(default=0, description="Prompt tokens the update did not re-encode: each group's common prefix is encoded once.")
    backend: str = Field(default="", description="What served this step's rollouts: vllm, or local (the transformers fallback where vLLM is absent).")
    serve_s: float = Field(description="Starting the server on the current weights.")
    rollout_s: float
    recompute_s: float = Field(default=0.0, description="Part of update_s: the trainer's forward passes over the sampled tokens.")
    update_s: float
    save_s: float
    batch_filling: StepStats | None = None
    time: float


class _State(BaseModel):
    steps: int
    """Steps finished; their weights are in `model/`."""


class BestCheckpoint(BaseModel):
    """The weights with the best validation F1 so far (`best.json`); a tie keeps the earlier step."""

    step: int = Field(description="Optimizer steps the weights had taken (0: the starting policy, kept where it is).")
    reward: float = Field(description="Their validation F1.")
    model_dir: str = Field(description="Where they are: the starting policy's directory, or `best/`.")


class _TaskCycle:
    """The training tasks in a seeded order, drawn `n` at a time, reshuffled after each pass."""

    def __init__(self, tasks: list[RlTask], seed: int) -> None:
        self.tasks = tasks
        self.random = random.Random(seed)
        self.queue: list[RlTask] = []

    def take(self, n: int) -> list[RlTask]:
        drawn: list[RlTask] = []
        while len(drawn) < n:
            if not self.queue:
                self.queue = list(self.tasks)
                self.random.shuffle(self.queue)
            drawn.append(self.queue.pop())
        return drawn


def _save(model: Any, tokenizer: Any, directory: Path) -> None:
    # Written next to the served copy, then swapped in: a kill mid-save keeps the last good weights.
    staging = directory.with_name(directory.name + ".tmp")
    model.save_pretrained(str(staging))
    tokenizer.save_pretrained(str(staging))
    if directory.exists():
        old = directory.with_name(directory.name + ".old")
        os.replace(directory, old)
        os.replace(staging, directory)
        shutil.rmtree(old)
    else:
        os.replace(staging, directory)


class _PolicyServer:
    """The served copy of the policy: reloaded in place where the server allows it, else restarted on new weights.

    A restarted server is stopped while the weights update, so it holds neither cores nor memory then.
    """

    def __init__(self, recipe: ServedRecipe) -> None:
        self.recipe = recipe
        self.options = VllmOptions(max_model_len=recipe.max_model_len, weight_reload=recipe.weight_reload, dtype=recipe.serve_dtype)
        self.served: ServedModel | None = None
        self.policy: ChatModel | None = None
        self._stack: AsyncExitStack | None = None

    async def serve(self, model_dir: str) -> ChatModel:
        """The policy as a `ChatModel`, answering with the weights in `model_dir` (one client per server, not per step)."""
        if self.served is not None and self.policy is not None and self.served.weight_reload:
            await self.served.reload_weights(model_dir)
            return self.policy
        await self.close()
        self._stack = AsyncExitStack()
        recipe = self.recipe
        served = serve_model(model_dir, backend=recipe.backend, options=self.options, log_path=recipe.output_dir / "server.log")
        self.served = await self._stack.enter_async_context(served)
        self.policy = await self._stack.enter_async_context(
            model_from_target(self.served.base_url, model_name=self.served.model_name, timeout_s=600.0,
                              max_concurrency=recipe.prompts_per_step * recipe.group_size)
        )
        return self.policy

    async def pause(self) -> None:
        """Stop a server that cannot reload (the next `serve` restarts it)."""
        if self.served is not None and not self.served.weight_reload:
            await self.close()

    async def close(self) -> None:
        if self._stack is not None:
            stack, self._stack, self.served, self.policy = self._stack, None, None, None
            await stack.aclose()


async def train_served_grpo(recipe: ServedRecipe) -> TrainReport:
    """Run GRPO with rollouts from the served policy against an in-process arena serving `recipe.envs_dir`.

    Raises:
        TrainingSetupError: when the data, the environments or the model is missing.
        BatchFillingError: when `max_fill_rounds` rounds in one step find too few groups with a learning signal.
    """
    from mcp_servers import serve_arena
    from rl._models import resolve_model

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    train_file = recipe.data_dir / "train.jsonl"
    if not train_file.is_file():
        raise TrainingSetupError(f"{train_file}: not found (run `astra rl prepare` first)")
    tasks = read_trl_tasks(train_file)
    val_file = recipe.data_dir / "val.jsonl"
    val_tasks = read_trl_tasks(val_file) if recipe.val_every and val_file.is_file() else []
    envs = {e.spec.id: e for e in load_envs(recipe.envs_dir)}
    for path, listed in ((train_file, tasks), (val_file, val_tasks)):
        missing = sorted({t.env_id for t in listed} - set(envs))
        if missing:
            raise TrainingSetupError(f"{path}: environments not found under {recipe.envs_dir}: {missing[:5]}")
    recipe.output_dir.mkdir(parents=True, exist_ok=True)
    run = _Run(recipe, tasks, val_tasks)
    if run.state is None:
        run.metrics_path.write_text("")
        run.validation_path.write_text("")
        source = resolve_model(recipe.model)
        if source is None or not Path(source, "config.json").is_file():
            raise TrainingSetupError(f"{recipe.model}: not a Hugging Face model directory (served GRPO serves it)")
        run.policy_dir = str(source)
    server = _PolicyServer(recipe)
    # The arena first: a sandbox that cannot run here is refused before the policy is loaded.
    async with serve_arena(list(envs.values())) as arena:
        await run.load()
        started = time.monotonic()
        try:
            for step in range(run.done + 1, recipe.max_steps + 1):
                await run.step(step, server, arena.base_url)
            if run.validation_due(recipe.max_steps):
                await run.validate(recipe.max_steps, await server.serve(run.policy_dir), arena.base_url)
        finally:
            # Not under a shield scope: the server's own task group must be the scope it exits from
            # (its stop is shielded inside `serve_model`).
            await server.close()
    records = run.records
    title = f"GRPO (served) on {len(envs)} envs"
    plot = plot_rewards(records, recipe.output_dir / "reward_curve.png", title, run.validation) if recipe.plot else None
    return TrainReport(
        steps=len(records), episodes=sum(int(r["episodes"]) for r in records), tool_calls=sum(int(r["tool_calls"]) for r in records),
        rewards=[float(r["reward"]) for r in records], losses=[float(r["loss"]) for r in records],
        batch_filling=[StepStats.model_validate(r["batch_filling"]) for r in records if r.get("batch_filling")],
        metrics_path=str(run.metrics_path), validation=run.validation, plot_path=str(plot) if plot else None,
        model_dir=run.best.model_dir if run.best else str(run.model_dir) if records else None,
        best_step=run.best.step if run.best else None, wall_s=time.monotonic() - started,
    )


class _Run:
    """One run's state on disk (`state.json`, `metrics.jsonl`, `validation.jsonl`, `model/`) and its steps."""

    def __init__(self, recipe: ServedRecipe, tasks: list[RlTask], val_tasks: list[RlTask]) -> None:
        self.recipe = recipe
        self.model_dir = recipe.output_dir / "model"
        self.state_path, self.metrics_path = recipe.output_dir / "state.json", recipe.output_dir / "metrics.jsonl"
        self.validation_path = recipe.output_dir / "validation.jsonl"
        self.state = _State.model_validate_json(self.state_path.read_bytes()) if self.state_path.is_file() else None
        self.done = self.state.steps if self.state else 0
        self.policy_dir = str(self.model_dir)
        self.records: list[dict[str, Any]] = read_jsonl(self.metrics_path).values if self.state else []
        self.val_tasks = val_tasks
        resumed = self.state is not None and self.validation_path.is_file()
        self.validation: list[dict[str, Any]] = read_jsonl(self.validation_path).values if resumed else []
        self.best_path = recipe.output_dir / "best.json"
        self.best = BestCheckpoint.model_validate_json(self.best_path.read_bytes()) if resumed and self.best_path.is_file() else None
        self.cycle = _TaskCycle(tasks, recipe.seed + self.done)
        self.filler: BatchFiller[RolloutGroup] = BatchFiller(
            n=recipe.prompts_per_step, rewards=lambda g: g.rewards, delta=recipe.delta, max_rounds=recipe.max_fill_rounds
        )
        self.rollout = RolloutSettings(
            max_turns=recipe.max_turns, max_tokens=recipe.max_reply_tokens, temperature=recipe.temperature,
            call_timeout_s=recipe.call_timeout_s, unfinished_scale=recipe.unfinished_reward_scale,
        )

    async def load(self) -> None:
        from rl._models import load_policy

        recipe = self.recipe
        self.model, self.tokenizer = await anyio.to_thread.run_sync(
            lambda: load_policy(self.policy_dir, torch_threads=recipe.torch_threads, top_layers=recipe.train_top_layers)
        )
        self.model.eval()
        self.update = PolicyUpdate(
            self.model, self.tokenizer, lr=self.recipe.lr, max_tokens=self.recipe.max_train_tokens, clip_ratio=self.recipe.clip_ratio
        )

    def validation_due(self, step: int) -> bool:
        """Whether the weights after `step` steps are to be validated and have not been."""
        every = self.recipe.val_every
        due = bool(self.val_tasks) and every > 0 and (step % every == 0 or step == self.recipe.max_steps)
        return due and all(int(r["step"]) != step for r in self.validation)

    async def validate(self, step: int, policy: ChatModel, arena_url: str) -> None:
        """Play the validation split with `policy` (the weights after `step` steps) and log the point."""
        record = await play_validation(policy, arena_url, self.val_tasks, step=step, episodes=self.recipe.val_episodes, settings=self.rollout)
        self.validation.append(record.model_dump(mode="json"))
        with self.validation_path.open("a", encoding="utf-8") as fh:
            fh.write(record.model_dump_json() + "\n")
        if self.best is None or record.reward > self.best.reward:
            await anyio.to_thread.run_sync(self._keep_best, step, record.reward)

    def _keep_best(self, step: int, reward: float) -> None:
        """Keep the weights after `step` steps (validated at `reward`) as the run's result."""
        directory = self.policy_dir
        if step > 0:
            # `model/` holds the weights after `step` steps until the next update; copied, then swapped in.
            best, staging = self.recipe.output_dir / "best", self.recipe.output_dir / ".best-staging"
            shutil.rmtree(staging, ignore_errors=True)
            shutil.copytree(self.model_dir, staging)
            shutil.rmtree(best, ignore_errors=True)
            os.replace(staging, best)
            directory = str(best)
        self.best = BestCheckpoint(step=step, reward=reward, model_dir=directory)
        self.best_path.write_text(self.best.model_dump_json(), encoding="utf-8")

    async def step(self, step: int, server: _PolicyServer, arena_url: str) -> None:
        recipe = self.recipe
        t0 = time.monotonic()
        policy = await server.serve(self.policy_dir)
        serve_s = time.monotonic() - t0
        if self.validation_due(step - 1):
            await self.validate(step - 1, policy, arena_url)
        t1 = time.monotonic()
        played: list[RolloutGroup] = []

        async def generate() -> list[RolloutGroup]:
            groups = await play_round(policy, arena_url, self.cycle.take(recipe.prompts_per_step), recipe.group_size, self.rollout)
            played.extend(groups)
            return groups

        if recipe.batch_filling:
            batch, fill = await self.filler.afill(generate)
        else:
            batch, fill = await generate(), None
        await server.pause()
        t2 = time.monotonic()
        stats: UpdateStats = await anyio.to_thread.run_sync(self.update.step, batch)
        t3 = time.monotonic()
        await anyio.to_thread.run_sync(_save, self.model, self.tokenizer, self.model_dir)
        self.policy_dir = str(self.model_dir)
        self.state_path.write_text(_State(steps=step).model_dump_json())
        rollouts = [r for g in played for r in g.rollouts]
        trained = [r for g in batch for r in g.rollouts]
        record = StepRecord(
            step=step, reward=mean_or_zero([r.reward.reward for r in rollouts]), batch_reward=mean_or_zero([r.reward.reward for r in trained]),
            episodes=len(rollouts), tool_calls=sum(r.reward.c for r in rollouts), unfinished=sum(not finished(r) for r in rollouts), loss=stats.loss, grad_norm=stats.grad_norm,
            samples=stats.samples, turns=stats.turns, tokens=stats.tokens, rerendered=stats.rerendered, too_long=stats.too_long, logprob_gap=stats.logprob_gap,
            kl=stats.kl, clip_fraction=stats.clip_fraction, repairs=sum(len(r.trajectory.repairs) for r in rollouts),
            carried_groups=sum(1 for g in batch if not any(g is p for p in played)), shared_prefix_tokens=stats.shared_prefix_tokens, backend=server.served.backend if server.served else "", serve_s=round(serve_s, 1), rollout_s=round(t2 - t1, 1),
            recompute_s=round(stats.recompute_s, 1), update_s=round(t3 - t2, 1), save_s=round(time.monotonic() - t3, 1), batch_filling=fill, time=time.time(),
        )
        self.records.append(record.model_dump(mode="json"))
        with self.metrics_path.open("a", encoding="utf-8") as fh:
            fh.write(record.model_dump_json() + "\n")
