"""`run_loop`: the whole recipe in one resumable output directory (docs/design.md §11).

Stages, in order (each leaves `stages/<name>.json` when it finishes; see `recipe.stages`):

1. `synth` — environments from knowledge rows (`synth.env.synthesize_envs`) and SFT
   trajectories from tool docs (`synth.sft.SftPipeline`); both resume inside.
2. `verify` — every synthesized (and every extra) environment replayed over MCP; the ones that
   pass are copied to `train_envs/`.
3. `audit` — training data vs evaluation set: env ids and near-duplicate questions (fails closed).
4. `cold_start` — SFT (TRL) on the judged SFT rows plus golden replays of the verified environments
   (`rl.cold_start`, with the distractors GRPO will offer).
5. `grpo` — RL datasets with banded distractors, then GRPO over the arena (served: rollouts from vLLM and
   updates here, the default; TRL in-process; or veRL on GPUs).
6. `evaluate` — base and trained model on the evaluation environments, F1 per environment,
   after checking the separation again.

`report.md` is rendered after every run, finished or not.
"""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from agent_sdk import TEACHER, VllmOptions, model_from_target
from astra_loop.cold_start import cold_start_data
from astra_loop.config import EXAMPLE_WORLDS, Layout, LoopConfig
from astra_loop.evaluate import evaluate
from astra_loop.exceptions import LoopConfigError, StageError
from astra_loop.held_out import held_out_world_envs
from astra_loop.overlap import check_separation
from astra_loop.report import render_report
from astra_loop.stages import Stage, StageBook, StageRecord, run_stages
from rl import DistractorConfig

if TYPE_CHECKING:
    from synth.world import World, WorldSources

ModelOpener = Callable[..., AbstractAsyncContextManager[Any]]
"""`agent_sdk.model_from_target`'s signature: `(target, *, model_name, settings, max_concurrency, default, ...)`, a `ChatModel` as a context manager."""

STAGE_NAMES = ("synth", "verify", "audit", "cold_start", "grpo", "evaluate")
"""The loop's stages, in order."""

_SOURCE_GROUP = {"qa": "synthesized", "mcp_docs": "synthesized", "world": "world", "authored": "authored", "import": "imported"}
"""`Source.kind` -> the training-set split the report shows."""


def _grpo_summary(engine: str, report: Any, prepared: dict[str, Any]) -> dict[str, Any]:
    """The GRPO stage's record from a `TrainReport`."""
    return {
        "engine": engine, "steps": report.steps, "episodes": report.episodes, "tool_calls": report.tool_calls,
        "argument_repairs": report.argument_repairs,
        "first_reward": report.rewards[0] if report.rewards else None, "last_reward": report.rewards[-1] if report.rewards else None,
        "model_dir": report.model_dir, "best_step": report.best_step, "wall_s": round(report.wall_s, 1), "prepared": prepared,
    }


class _Loop:
    """The stage bodies of one run; each reads what earlier stages left in the layout."""

    def __init__(self, config: LoopConfig, models: ModelOpener) -> None:
        self.config = config
        self.open_model = models
        self.preset = config.preset
        self.layout = Layout(config.out)
        self.sft_export = self.layout.synth_sft / "sft.jsonl"

    def stages(self) -> list[Stage]:
        layout = self.layout
        # Synthesis keeps its stores: they resume by id, and they hold hours of teacher calls.
        outputs = {
            "verify": (layout.verify_json, layout.train_envs), "audit": (layout.overlap,), "cold_start": (layout.cold_start,),
            "grpo": (layout.val_worlds, layout.grpo_envs, layout.rl_data, layout.grpo), "evaluate": (layout.eval,),
        }  # fmt: skip
        return [Stage(name=n, run=getattr(self, n), outputs=outputs.get(n, ())) for n in STAGE_NAMES]

    def _embedder(self) -> Any:
        from rl import Embedder

        return Embedder(cache_dir=self.config.out / "cache" / "embeddings")

    async def synth(self) -> dict[str, Any]:
        from synth.env import SynthConfig, synthesize_envs
        from synth.sft import SftConfig, SftPipeline

        cfg, summary = self.config, {}
        if cfg.worlds or not (cfg.knowledge or cfg.tool_docs or cfg.extra_train_envs):
            summary["world_environments"] = await self._synth_worlds()
        if not cfg.knowledge and not cfg.tool_docs:
            return summary or {"skipped": "no knowledge rows and no tool docs given"}
        # No generator and no $ASTRA_LLM_BASE_URL: the embedded teacher synthesizes (the student is the policy).
        opened = self.open_model(cfg.generator, model_name=cfg.generator_model, max_concurrency=self.preset.synth_concurrency, default=TEACHER.target)
        async with opened as llm:
            if cfg.knowledge:
                result = await synthesize_envs(
                    llm, self.layout.synth_env, inputs=cfg.knowledge, limit=self.preset.synth_rows,
                    config=SynthConfig.model_validate({"max_llm_concurrency": self.preset.synth_concurrency, **cfg.synth_config}),
                )
                summary["environments"] = result.stats.outputs
            if cfg.tool_docs:
                pipeline = SftPipeline(
                    self.layout.synth_sft, llm,
                    config=SftConfig.model_validate({
                        "max_rollouts_per_server": self.preset.sft_rollouts_per_server, "concurrency": self.preset.synth_concurrency,
                        "seed": cfg.seed, **cfg.sft_config,
                    }),
                )
                stats = await pipeline.run(list(cfg.tool_docs))
                summary["sft_trajectories"] = stats["extra"].get("funnel", {}).get("trajectories_kept", 0)
        return summary

    async def _synth_worlds(self) -> int:
        """Environments from the --world sources, by code (a model only proposes the worlds of a domain list)."""
        from mcp_servers import SandboxConfig
        from synth.world import WorldSynthConfig, propose_worlds, read_sources, synthesize_from_worlds

        cfg = self.config
        # Given nothing to train on, the loop builds from the example worlds: synthesis by code needs no model.
        found = read_sources(cfg.worlds or [EXAMPLE_WORLDS])
        if found.domains:
            opened = self.open_model(cfg.generator, model_name=cfg.generator_model, max_concurrency=self.preset.synth_concurrency, default=TEACHER.target)
            async with opened as llm:
                await propose_worlds(llm, found.domains, self.layout.synth_worlds / "proposed", concurrency=self.preset.synth_concurrency)
        worlds = self._built_worlds(found)
        if not worlds:
            raise StageError("no world to build environments from: every domain was refused")
        config = WorldSynthConfig(per_world=-(-self.preset.world_envs // len(worlds)), seed=cfg.seed)
        async with SandboxConfig.from_env().build() as sandbox:
            stats = await synthesize_from_worlds(worlds, self.layout.synth_worlds, config, sandbox=sandbox)
        return stats.written

    def _built_worlds(self, found: WorldSources | None = None) -> list[World]:
        """The worlds the synth stage builds from: the --world sources (`found`, else read again) and the worlds proposed for their domain lists."""
        from synth.world import load_world_file, read_sources

        found = found or read_sources(self.config.worlds or [EXAMPLE_WORLDS])
        proposed = sorted((self.layout.synth_worlds / "proposed").glob("*.json"))
        return [*found.worlds, *(load_world_file(p) for p in proposed)]

    async def _held_out_world_envs(self) -> Path | None:
        """GRPO's validation environments, none of which any stage trains on (None: the run built none from worlds)."""
        wanted, layout = self.preset.val_world_envs, self.layout
        if not wanted or not (layout.synth_worlds / "envs").is_dir():
            return None
        return await held_out_world_envs(self._built_worlds(), layout.train_envs, layout.val_worlds, wanted=wanted, seed=self.config.seed)

    async def verify(self) -> dict[str, Any]:
        from mcp_servers import SandboxConfig, load_env, verify_paths

        sources = [p for p in (self.layout.synth_env / "envs", self.layout.synth_worlds / "envs", *self.config.extra_train_envs) if p.exists()]
        if not sources:
            raise StageError("no environments to verify: synthesis wrote none and no --train-envs was given")
        async with SandboxConfig.from_env().build() as sandbox:
            report = await verify_paths(sources, sandbox=sandbox)
        self.layout.verify_json.write_text(report.to_json() + "\n", encoding="utf-8")
        shutil.rmtree(self.layout.train_envs, ignore_errors=True)
        self.layout.train_envs.mkdir(parents=True)
        # One copy per environment id: synthesis is deterministic, so a --train-envs directory from an
        # earlier run over the same rows holds the very environments this run synthesized.
        unique: dict[str, Any] = {}
        for r in report.envs:
            if r.passed and r.path:
                unique.setdefault(r.env_id, r)
        passed = list(unique.values())
        for r in passed:
            shutil.copytree(r.path, self.layout.train_envs / f"{Path(r.path).name}-{r.env_id}")
        if not passed:
            raise StageError(f"no environment passed verification ({len(report.envs)} checked; see {self.layout.verify_json})")
        codes = Counter(code for r in report.envs for code in r.codes)
        duplicates = sum(r.passed and bool(r.path) for r in report.envs) - len(passed)
        sources = Counter(_SOURCE_GROUP.get(load_env(self.layout.train_envs / f"{Path(r.path).name}-{r.env_id}").spec.source.kind, "other") for r in passed)
        return {
            "checked": len(report.envs), "passed": len(passed), "duplicates": duplicates, "failed": report.failed, "codes": dict(codes),
            "sources": {k: sources.get(k, 0) for k in ("world", "synthesized", "authored", "imported")},
        }  # fmt: skip

    def _check_separation(self) -> int:
        return check_separation(
            train_envs=[self.layout.train_envs], sft_files=[self.sft_export, *self.config.extra_sft], eval_envs=self.config.eval_envs,
            embedder=self._embedder(), threshold=self.config.overlap_threshold, report=self.layout.overlap,
        )

    async def audit(self) -> dict[str, Any]:
        compared = await anyio.to_thread.run_sync(self._check_separation)
        return {"training_questions": compared, "eval_envs": str(self.config.eval_envs), "overlaps": 0}

    def _distractors(self) -> DistractorConfig:
        """How the distractors of the training environments are sampled: one config for the cold start and GRPO."""
        return DistractorConfig(mode="banded", per_band=self.preset.distractors_per_band, seed=self.config.seed)

    async def cold_start(self) -> dict[str, Any]:
        from rl.trl import SftRecipe, train_sft

        sft_files = [self.sft_export, *self.config.extra_sft]
        # The replays offer the distractors GRPO's rollouts will: same environments, config and embedder.
        distractors = self._distractors() if self.preset.distractors_per_band else None
        data = await cold_start_data(
            envs_dirs=[self.layout.train_envs], sft_files=sft_files, out_dir=self.layout.cold_start / "data",
            distractors=distractors, embedder=self._embedder() if distractors else None,
        )  # fmt: skip
        # The policy as named: an adapter records an embedded base by its name, not this machine's cache path.
        recipe = SftRecipe.from_preset(self.preset.recipe, data=data.path, output_dir=self.layout.cold_start, model=self.config.policy)
        report = await anyio.to_thread.run_sync(lambda: train_sft(recipe))
        return {
            "sft_rows": data.sft_rows, "env_rows": data.env_rows, "duplicates": data.duplicates, "distractors_per_env": data.distractors_per_env,
            "skipped_envs": data.skipped_envs, "rejection_reasons": data.rejection_reasons, "trained_rows": report.rows,
            "steps": report.steps, "final_loss": report.losses[-1] if report.losses else None, "model_dir": report.model_dir,
        }  # fmt: skip

    def _cold_start_model(self) -> str:
        record = StageBook(self.config.out).record("cold_start")
        if record is None or not record.summary.get("model_dir"):
            raise StageError("the cold-start stage left no model directory; rerun with --redo cold_start")
        return str(record.summary["model_dir"])

    async def grpo(self) -> dict[str, Any]:
        from rl import PromptLimit, prepare, train_grpo

        cfg, p = self.config, self.preset
        model = self._cold_start_model()
        if not p.grpo and cfg.engine != "verl":
            # A machine that cannot carry GRPO still measures what the cold start did.
            return {"engine": cfg.engine, "skipped": "the preset runs no GRPO: the cold-start model is evaluated", "steps": 0, "model_dir": model}
        held_out = await self._held_out_world_envs()
        # The arena serves the validation environments beside the training ones.
        envs = self.layout.train_envs
        if held_out is not None:
            envs = self.layout.grpo_envs
            shutil.rmtree(envs, ignore_errors=True)
            for root in (self.layout.train_envs, held_out):
                shutil.copytree(root, envs, dirs_exist_ok=True)
        # Rows whose prompt (tools and distractors included) exceeds the trainer's limit are rejected, not truncated.
        limit = PromptLimit(tokenizer=model, max_prompt_length=p.recipe.grpo.max_prompt_length)
        prepared = await anyio.to_thread.run_sync(
            lambda: prepare(self.layout.train_envs, self.layout.rl_data, seed=cfg.seed,
                            distractors=self._distractors(), embedder=self._embedder(),
                            prompt_limit=limit, val_envs=held_out)
        )
        seeded = {} if cfg.engine == "verl" else {"seed": cfg.seed}
        result = await train_grpo(cfg.engine, p.recipe, self.layout.rl_data, envs, self.layout.grpo, model, **seeded)
        if isinstance(result, int):
            if result != 0:
                raise StageError(f"veRL exited with status {result}; logs under {self.layout.grpo}")
            checkpoints = str(self.layout.grpo / "checkpoints")
            return {"engine": "verl", "checkpoints": checkpoints, "model_dir": None, "prepared": prepared.model_dump(mode="json")}
        return _grpo_summary(cfg.engine, result, prepared.model_dump(mode="json"))

    def _trained_target(self) -> str:
        if self.config.trained_model:
            return self.config.trained_model
        record = StageBook(self.config.out).record("grpo")
        model_dir = record.summary.get("model_dir") if record else None
        if not model_dir:
            raise StageError("GRPO left no Hugging Face model directory (veRL writes sharded checkpoints): pass --trained-model")
        return str(model_dir)

    async def evaluate(self) -> dict[str, Any]:
        from agent_sdk import SamplingSettings, model_fingerprint
        from astra_loop.evaluate import (
            METRICS,
            EvalProtocol,
            EvalResult,
            paired_difference,
        )

        await anyio.to_thread.run_sync(self._check_separation)
        p, results = self.preset, {}
        protocol = EvalProtocol(episodes=p.eval_episodes, temperature=p.eval_temperature, top_p=p.eval_top_p)
        settings = SamplingSettings(temperature=protocol.temperature, top_p=protocol.top_p, max_tokens=p.eval_max_tokens)
        self.layout.eval.mkdir(parents=True, exist_ok=True)
        # The base model goes first: its scores stand even when the trained model cannot be found.
        # After GRPO steps the cold-start model is scored too, so the report separates what SFT and RL each added.
        targets: list[tuple[str, Callable[[], str]]] = [("base", lambda: self.config.base_endpoint or self.config.policy)]
        grpo = StageBook(self.config.out).record("grpo")
        if not self.config.trained_model and grpo is not None and grpo.summary.get("steps"):
            targets.append(("cold_start", self._cold_start_model))
        targets.append(("trained", self._trained_target))
        offered = [0] + ([p.distractors_per_band] if p.eval_with_distractors and p.distractors_per_band else [])
        for label, find_target in targets:
            target = find_target()
            fingerprint = await anyio.to_thread.run_sync(model_fingerprint, target)
            todo = []
            for distractors in offered:
                key = f"{label}_distractors" if distractors else label
                path = self.layout.eval / f"{key}.json"
                if path.is_file():  # finished before a kill: keep its scores, if they are this model's, by this protocol
                    done = EvalResult.model_validate_json(path.read_bytes())
                    if done.fingerprint == fingerprint and done.protocol == protocol and done.distractors == distractors:
                        results[key] = done
                        continue
                todo.append((key, path, distractors))
            if not todo:
                continue
            # The 4k context the evaluation was measured with; a remote target ignores it.
            opened = self.open_model(target, settings=settings, max_concurrency=p.eval_concurrency, vllm_options=VllmOptions())
            async with opened as model:
                for key, path, distractors in todo:
                    results[key] = await evaluate(
                        model, self.config.eval_envs, label=label, target=target, max_turns=p.eval_max_turns, concurrency=p.eval_concurrency,
                        max_tokens=p.eval_max_tokens, protocol=protocol, fingerprint=fingerprint, distractors=distractors,
                        embedder=self._embedder() if distractors else None,
                    )  # fmt: skip
                    path.write_text(results[key].model_dump_json(indent=2) + "\n", encoding="utf-8")
        base, trained = results["base"], results["trained"]
        summary: dict[str, Any] = {
            "base_mean_f1": round(base.mean_reward, 4), "trained_mean_f1": round(trained.mean_reward, 4),
            "delta": round(trained.mean_reward - base.mean_reward, 4), "envs": len(base.by_env("reward")),
            "episodes_per_env": protocol.episodes,
        }  # fmt: skip
        if "cold_start" in results:
            summary["cold_start_mean_f1"] = round(results["cold_start"].mean_reward, 4)
        for metric in METRICS:
            d = paired_difference(base, trained, metric)
            summary[f"trained_minus_base_{metric}"] = [round(d.mean, 4), round(d.low, 4), round(d.high, 4)]
        if "trained_distractors" in results:
            summary["base_mean_f1_distractors"] = round(results["base_distractors"].mean_reward, 4)
            summary["trained_mean_f1_distractors"] = round(results["trained_distractors"].mean_reward, 4)
        return summary


async def run_loop(
    config: LoopConfig,
    *,
    redo: str | None = None,
    until: str | None = None,
    on_event: Callable[[str, str], None] | None = None,
    models: ModelOpener = model_from_target,
) -> list[StageRecord]:
    """Run (or resume) the loop in `config.out`, then render `report.md`.

    `models` opens every model the loop talks to (synthesis, base and trained policy);
    the default serves local targets and connects to http(s) ones.

    Raises:
        LoopConfigError: on a missing input or an unknown stage name.
        OverlapError: when training data contains evaluation environments.
        StageError: when a stage fails (a re-run resumes at it).
    """
    for path in config.knowledge:
        if not path.is_file():
            raise LoopConfigError(f"--knowledge {path}: no such file")
    for path in config.extra_sft:
        if not path.is_file():
            raise LoopConfigError(f"--train-sft {path}: no such file")
    for path in [*config.extra_train_envs, config.eval_envs]:
        if not path.exists():
            raise LoopConfigError(f"{path}: no such directory")
    config.out.mkdir(parents=True, exist_ok=True)
    (config.out / "loop.json").write_text(config.model_dump_json(indent=2) + "\n", encoding="utf-8")
    try:
        return await run_stages(config.out, _Loop(config, models).stages(), redo=redo, until=until, on_event=on_event)
    finally:
        render_report(config.out, list(STAGE_NAMES))
