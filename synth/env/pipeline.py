"""`synthesize_envs`: the resumable environment-synthesis pipeline (docs/design.md §8).

Each sample flows through the stages in order. A stage whose store already holds the sample
(accepted or rejected) is skipped and its stored record reused, so a re-run after `kill -9`
redoes only unfinished work — and with the response cache, costs no LLM calls for the work
redone. At the end every store is rewritten in input order, so the output is identical
however often the run was interrupted.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import anyio
from pydantic import BaseModel

from agent_sdk import JsonlProblem, cache_dir, read_jsonl
from mcp_servers import CheckCode
from synth.core import JsonlStore, LLMCache, MeteredModel, PipelineStats, Stage, StageMeter, StageTokens, map_ordered, rejections_store
from synth.env._assemble import assemble
from synth.env._judge import decompose, necessity, run_checks
from synth.env._leak import LeakAuditor, default_benchmark_files, embedder_installed, load_embedder, require_embedder
from synth.env._merge import merge_tools
from synth.env._seeds import make_seeds
from synth.env._tools import synthesize_tools
from synth.env.config import STAGES, SynthConfig
from synth.env.records import EnvRecord, Failure, Sample, Seed, attempt_id

__all__ = ["CHECK_CODES", "SynthResult", "load_seeds", "synthesize_envs"]


class SynthResult(BaseModel):
    """What a run produced."""

    out_dir: Path
    envs: list[EnvRecord]
    stats: PipelineStats


def load_seeds(inputs: Sequence[Path], config: SynthConfig, limit: int | None = None) -> tuple[list[Seed], list[JsonlProblem]]:
    """Seeds from input JSONL files; unusable lines become problems naming file and line.

    A corpus over `config.corpus_max_tokens` gives one seed per chunk (ref `file:line#chunkN`).
    """
    seeds: list[Seed] = []
    errors: list[JsonlProblem] = []
    for path in inputs:
        content = read_jsonl(path, on_problem="collect", limit=limit)
        errors += content.problems
        for row in content.rows:
            try:
                seeds += make_seeds(row.value, row.ref, config)
            except ValueError as exc:
                errors.append(JsonlProblem(file=row.file, line=row.line, message=str(exc)))
    unique = list({s.id: s for s in seeds}.values())
    return unique, errors


CHECK_CODES: tuple[CheckCode, ...] = CheckCode.load_declarations(__name__)
"""The code of the leak audit stage (`_leak`)."""

_JUDGING = frozenset({"necessity", "checks"})
"""Stages that judge rather than generate: they use the judge model."""
_FINAL = frozenset({"benchmark_leak", "context_overflow"})
"""Rejections another attempt cannot mend: the seed's own question leaks, or its prompt does not fit."""


class _Run:
    def __init__(
        self,
        out_dir: Path,
        model: MeteredModel,
        judge: MeteredModel,
        sandbox: Any,
        auditor: LeakAuditor | None,
        load_auditor: Callable[[], Awaitable[LeakAuditor]] | None,
        config: SynthConfig,
        stages: set[str],
    ) -> None:
        self.out = out_dir
        self.tokens: dict[str, StageTokens] = {}
        self.models = {name: StageMeter(judge if name in _JUDGING else model, name, self.tokens) for name in STAGES}
        self.sandbox = sandbox
        self.auditor = auditor
        self._load_auditor = load_auditor
        self._auditor_lock = anyio.Lock()
        self._embedder: Any | None = None
        self._embedder_lock = anyio.Lock()
        self.config = config
        self.selected = stages
        self.rejected = rejections_store(out_dir)
        self.stages = {name: Stage.open(out_dir, name, self.rejected) for name in STAGES}

    async def _step(self, name: str, record_id: str, compute: Any) -> dict[str, Any] | None:
        """The stored record of stage `name`, computing it when the stage is selected and not done."""
        stage = self.stages[name]
        if record_id in stage.out:
            return stage.out.get(record_id)
        if stage.done(record_id) or name not in self.selected:
            return None
        result = await compute()
        if isinstance(result, Failure):
            stage.reject(record_id, result.reason, result.detail)
            return None
        stage.accept(result)
        return stage.out.get(record_id)

    async def leak_auditor(self) -> LeakAuditor | None:
        """The benchmark leak auditor, loaded on first need (None when the audit is off)."""
        async with self._auditor_lock:
            if self.auditor is None and self._load_auditor is not None:
                self.auditor = await self._load_auditor()
            return self.auditor

    async def embedder(self) -> Any | None:
        """The sentence-transformers model of the duplicate-tool rule, loaded once (None when not installed)."""
        async with self._embedder_lock:
            if self._embedder is None:
                if self.auditor is not None:
                    self._embedder = self.auditor.embedder
                elif embedder_installed():
                    self._embedder = await anyio.to_thread.run_sync(load_embedder)
            return self._embedder

    def attempt_ids(self, seed: Seed) -> list[str]:
        """The record ids of every pass `seed` may take through the pipeline, in order."""
        return [attempt_id(seed.id, a) for a in range(self.config.seed_attempts)]

    async def process(self, seed: Seed) -> dict[str, Any] | None:
        """The seed's environment record: its attempts in turn, until one is assembled or one ends in a way no fresh
        decomposition mends (`_retryable`)."""
        for attempt, rid in enumerate(self.attempt_ids(seed)):
            env = await self._attempt(seed, attempt, rid)
            if env is not None or not self._retryable(rid):
                return env
        return None

    def _retryable(self, rid: str) -> bool:
        """Whether a stage rejected attempt `rid` for what its trace was, not because a stage was not selected in
        this run, the endpoint failed or the seed cannot pass (`_FINAL`)."""
        reasons = [r["reason"] for name in STAGES if (r := self.rejected.get(f"{name}:{rid}"))]
        return bool(reasons) and not any(x in _FINAL or x.endswith("model_error") for x in reasons)

    async def _attempt(self, seed: Seed, attempt: int, rid: str) -> dict[str, Any] | None:
        cfg = self.config
        rec = await self._step("decompose", rid, partial(decompose, self.models["decompose"], seed, cfg, attempt))
        if rec is None:
            return None
        rec = await self._step("leak_audit", rid, partial(self._audit, Sample.model_validate(rec)))
        if rec is None:
            return None
        sample = Sample.model_validate(rec)
        for name, fn in (
            ("necessity", partial(necessity, self.models["necessity"])),
            ("checks", partial(run_checks, self.models["checks"])),
            ("tools", partial(synthesize_tools, self.models["tools"], self.sandbox)),
            ("merge", partial(self._merge)),
        ):
            rec = await self._step(name, rid, partial(fn, sample, cfg))
            if rec is None:
                return None
            sample = Sample.model_validate(rec)
        return await self._step("assemble", rid, partial(self._assemble, sample))

    async def _merge(self, sample: Sample, cfg: SynthConfig) -> Sample | Failure:
        embedder = await self.embedder() if len(sample.tools or []) > 1 else None
        return await merge_tools(self.models["merge"], self.sandbox, sample, cfg, embedder)

    async def _assemble(self, sample: Sample) -> EnvRecord | Failure:
        embedder = await self.embedder() if len(sample.tools or []) > 1 else None
        return await assemble(sample, self.sandbox, self.out, embedder)

    async def _audit(self, sample: Sample) -> Sample | Failure:
        auditor = await self.leak_auditor()
        if auditor is None:
            return sample
        for text in filter(None, [sample.question, sample.seed.question]):
            hit = await auditor.check(text)
            if hit is not None:
                return Failure(
                    reason="benchmark_leak",
                    detail=f"similarity {hit.score:.3f} to {hit.benchmark_question[:300]!r} ({hit.source})",
                )
        return sample

    def compact(self, seeds: Sequence[Seed]) -> None:
        order = [rid for s in seeds for rid in self.attempt_ids(s)]
        for stage in self.stages.values():
            if stage.out.path.exists():
                stage.out.compact(order)
        if self.rejected.path.exists():
            self.rejected.compact([f"{name}:{i}" for i in order for name in STAGES])


def _distributions(envs: list[EnvRecord], samples: list[dict[str, Any]], attempt_of: dict[str, int]) -> dict[str, Any]:
    return {
        "envs_by_attempt": {str(k): v for k, v in sorted(Counter(attempt_of.get(e.id, 0) for e in envs).items())},
        "envs_by_scenario": dict(sorted(Counter(e.scenario for e in envs).items())),
        "envs_by_hops": {str(k): v for k, v in sorted(Counter(e.hops for e in envs).items())},
        "envs_by_tools": {str(k): v for k, v in sorted(Counter(e.tools for e in envs).items())},
        "envs_by_domain": dict(sorted(Counter(e.domain for e in envs).items())),
        "envs_by_language": dict(sorted(Counter(e.language for e in envs).items())),
        "decomposed_by_scenario": dict(sorted(Counter(s["scenario"] for s in samples).items())),
        "decomposed_by_hops": {str(k): v for k, v in sorted(Counter(len(s["sub_questions"]) for s in samples).items())},
    }


async def synthesize_envs(
    model: Any,
    out_dir: str | Path,
    *,
    inputs: Sequence[Path] = (),
    config: SynthConfig | None = None,
    stages: Sequence[str] | None = None,
    limit: int | None = None,
    sandbox: Any | None = None,
    auditor: LeakAuditor | None = None,
    show_progress: bool | None = None,
    judge_model: Any | None = None,
) -> SynthResult:
    """Turn question/corpus/domain rows into verified environments under `out_dir/envs/`.

    Args:
        model: any `ChatModel`; it is wrapped with the response cache (`out_dir/cache/llm`),
            the concurrency limit and counters.
        out_dir: stage stores, `rejected.jsonl`, `stats.json`, `envs/`.
        inputs: input JSONL files; when empty, the seeds of a previous run (`seeds.jsonl`).
        config: pipeline settings (defaults documented on `SynthConfig`).
        stages: run only these stages (their inputs come from earlier stages' stores).
        limit: read only the first `limit` rows of each input file.
        sandbox: a started sandbox (when None, the one `ASTRA_SANDBOX` chooses is started).
        auditor: a loaded `LeakAuditor` (loaded from the benchmark files when None and enabled).
        show_progress: progress bar on stderr (default: when stderr is a terminal).
        judge_model: the model of the judging stages (necessity, checks); default `model`.
            It shares the response cache and gets its own concurrency limit of the same size.

    Raises:
        ValueError: on an unknown stage name or when there is no input at all.
        LeakAuditUnavailable: when the leak audit is on but the embedding model is not installed.
    """
    config = config or SynthConfig()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    selected = set(stages or STAGES)
    unknown = selected - set(STAGES)
    if unknown:
        raise ValueError(f"unknown stage(s) {sorted(unknown)}; stages are {', '.join(STAGES)}")
    started = time.monotonic()
    seed_store = JsonlStore(out / "seeds.jsonl")
    errors: list[JsonlProblem] = []
    if inputs:
        seeds, errors = load_seeds(inputs, config, limit)
        for s in seeds:
            seed_store.append(s)
    else:
        seeds = [Seed.model_validate(r) for r in seed_store.records()]
    if not seeds and not errors:
        raise ValueError(f"no input: pass input files or run in a directory with seeds.jsonl ({out})")
    cache = LLMCache(out / "cache" / "llm")

    def meter(m: Any) -> MeteredModel:
        return m if isinstance(m, MeteredModel) else MeteredModel(m, cache=cache, max_concurrency=config.max_llm_concurrency, timeout_s=config.llm_timeout_s)

    metered = meter(model)
    judge = metered if judge_model is None or judge_model is model else meter(judge_model)
    if config.retry_model_errors:
        rejected = rejections_store(out)
        rejected.discard([f"{r['stage']}:{r['id']}" for r in rejected.records() if r["reason"].endswith("model_error")])
    must_load = auditor is None and config.leak_audit and "leak_audit" in selected
    if must_load:
        require_embedder()

    async def load_auditor() -> LeakAuditor:
        # keep the vectors in the machine-wide cache (keyed by content) so the next run reuses them
        files = config.benchmark_files if config.benchmark_files is not None else default_benchmark_files()
        return await LeakAuditor.load(files, threshold=config.leak_threshold, cache_dir=cache_dir() / "embeddings")

    async def run_all(sb: Any) -> _Run:
        run = _Run(out, metered, judge, sb, auditor, load_auditor if must_load else None, config, selected)
        decomposed, audited = run.stages["decompose"], run.stages["leak_audit"]
        pending = [s for s in seeds if not audited.done(s.id) and not (decomposed.done(s.id) and s.id not in decomposed.out)]
        async with anyio.create_task_group() as tg:
            if must_load and pending:
                # embedding the benchmarks takes minutes on a CPU: overlap it with the first LLM stages
                tg.start_soon(run.leak_auditor)
            await map_ordered(seeds, run.process, limit=config.samples_in_flight, description="synth env", show_progress=show_progress)
        return run

    if sandbox is None:
        from mcp_servers import SandboxConfig

        async with SandboxConfig.from_env(workers=config.sandbox_workers, unsafe=config.unsafe_no_sandbox).build() as sb:
            run = await run_all(sb)
    else:
        run = await run_all(sandbox)
    run.compact(seeds)
    leak_note = "disabled" if not config.leak_audit else "not loaded: no sample needed it in this run"
    if run.auditor is not None:
        a = run.auditor
        leak_note = f"{len(a.texts)} benchmark questions from {len(set(a.sources))} files, threshold {a.threshold}"
    seed_store.compact([s.id for s in seeds])
    envs = [EnvRecord.model_validate(r) for r in run.stages["assemble"].out.records()]
    attempt_of = {rid: a for s in seeds for a, rid in enumerate(run.attempt_ids(s))}
    stats = PipelineStats.finish(
        out / "stats.json",
        pipeline="synth.env",
        stages=list(run.stages.values()),
        llm=metered.counts if judge is metered else metered.counts + judge.counts,
        tokens_by_stage=run.tokens,
        wall_time_s=time.monotonic() - started,
        input_records=len(seeds),
        input_errors=errors,
        outputs=len(envs),
        extra={"leak_audit": leak_note, **_distributions(envs, run.stages["decompose"].out.records(), attempt_of)},
    )
    return SynthResult(out_dir=out, envs=envs, stats=stats)
