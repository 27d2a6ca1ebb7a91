"""`SftPipeline`: tool docs -> graph -> chains -> tasks -> rollouts -> judge -> SFT export.

Every stage reads the previous stage's JSONL store in the output directory and appends its
own as records finish, so any stage can run alone and a killed run resumes where it
stopped (ids already accepted or rejected are skipped; LLM calls are served from the
content-addressed cache). Rejections go to `rejected.jsonl` with reason codes; `stats.json`
and the PNG plots are rewritten at the end of every run.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from agent_sdk import write_sft_files
from mcp_servers import CheckCode
from synth.core import (
    JsonlStore,
    LLMCache,
    LLMCounts,
    MeteredModel,
    Stage,
    StageMeter,
    StageTokens,
    map_ordered,
    record_id,
    rejections_store,
)
from synth.sft._docs import ServerDoc
from synth.sft._graph import ToolGraph, WalkConfig, chain_inputs, propose_graph, sample_chains
from synth.sft._ingest import ingest
from synth.sft._judge import judge_trajectory
from synth.sft._report import RunNotes, write_report
from synth.sft._request_shape import request_problem
from synth.sft._rollout import RolloutConfig, RolloutServers, TrajectoryRecord, usable_rollout
from synth.sft._tasks import (
    Augmentation,
    SynthTask,
    TaskThresholds,
    augment,
    chain_tasks,
    load_personas,
    pick_persona,
    score_task,
    server_tasks,
)
from synth.sft._verify import check_dependencies, vote_coherence

CHECK_CODES: tuple[CheckCode, ...] = CheckCode.load_declarations(__name__)
"""The codes the pipeline's stages add to those of their checks."""

STAGES = ("ingest", "graph", "chains", "tasks", "score", "rollout", "judge", "export")
"""Stage names, in order (`astra sft synth --stage NAME`)."""

_FILES = {
    "ingest": "servers",
    "graph": "graphs",
    "chains": "chains",
    "tasks": "tasks",
    "score": "scored",
    "rollout": "rollouts",
    "judge": "judged",
    "export": "exported",
}


class TokenBudgets(BaseModel):
    """Reply budgets (max_tokens) of each LLM role; small local models need them tight."""

    propose: int = Field(default=800, ge=16)
    vote: int = Field(default=400, ge=16)
    task: int = Field(default=700, ge=16, description="Task writing and augmentation.")
    score: int = Field(default=300, ge=16)
    judge: int = Field(default=800, ge=16)


class SftConfig(BaseModel):
    """Every knob of the SFT pipeline, with ASTRA-like defaults sized for a small run."""

    min_tools: int = Field(default=3, ge=1, description="Servers with fewer usable tools are dropped.")
    group_envs: bool = Field(default=True, description="Serve same-domain environments together as one server.")
    graph_rounds: int = Field(default=2, ge=1, description="Chain-proposal requests per server.")
    proposals_per_round: int = Field(default=5, ge=1)
    walk: WalkConfig = Field(default_factory=WalkConfig)
    votes: int = Field(default=3, ge=1, description="Coherence votes per chain (strict majority needed).")
    tasks_per_chain: int = Field(default=2, ge=1)
    server_tasks: int = Field(default=2, ge=0, description="Server-only tasks per server (0: none).")
    server_task_k: int = Field(default=2, ge=1, description="Tools a server-only task must need.")
    augment: list[Augmentation] = Field(default_factory=lambda: ["diverse", "complicate", "persona"])
    personas: str | None = Field(default="examples/personas.jsonl", description="JSONL of {persona}.")
    thresholds: TaskThresholds = Field(default_factory=TaskThresholds)
    max_rollouts_per_server: int | None = Field(default=None, ge=1, description="Cap on kept tasks rolled out per server.")
    rollout: RolloutConfig = Field(default_factory=RolloutConfig)
    judge_threshold: float = Field(default=0.6, ge=0.0, le=1.0, description="Minimum judge score exported.")
    budgets: TokenBudgets = Field(default_factory=TokenBudgets)
    concurrency: int = Field(default=8, ge=1, description="Records processed concurrently (and LLM requests in flight).")
    seed: int = Field(default=0, description="Seed of chain sampling and persona choice.")


class SftPipeline:
    """The SFT synthesis pipeline over one output directory.

    Args:
        out: the output directory (stores, cache, stats, plots, exports).
        model: generator `ChatModel` (graph, tasks, emulator).
        config: pipeline configuration.
        agent_model: the model playing rollouts (default: `model`).
        judge_model: every judge: the chain-coherence vote, task scoring and the trajectory
            judge (default: `model`).
        use_cache: cache LLM responses under `out/cache`.
        show_progress: progress bars (default: when stderr is a terminal).
    """

    def __init__(
        self,
        out: str | Path,
        model: Any,
        *,
        config: SftConfig | None = None,
        agent_model: Any = None,
        judge_model: Any = None,
        use_cache: bool = True,
        show_progress: bool | None = None,
    ) -> None:
        self.out = Path(out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.config = config or SftConfig()
        cache = LLMCache(self.out / "cache") if use_cache else None
        limit = self.config.concurrency
        self.model = MeteredModel(model, cache=cache, max_concurrency=limit)
        self.agent_model = MeteredModel(agent_model or model, cache=cache, max_concurrency=limit)
        self.judge_model = MeteredModel(judge_model or model, cache=cache, max_concurrency=limit)
        self.show_progress = show_progress
        self.rejected = rejections_store(self.out)
        self.stages = {name: Stage.open(self.out, _FILES[name], self.rejected) for name in STAGES}
        self.emulator_stats: dict[str, Any] = {}
        self.deferred: dict[str, int] = {}
        self.ingest_issues: list[dict[str, Any]] = []
        self.tokens: dict[str, StageTokens] = {}

    def _meter(self, stage: str, model: MeteredModel) -> StageMeter:
        """`model` with its replies' usage counted under `stage` (prompt sizes per stage in stats.json)."""
        return StageMeter(model, stage, self.tokens)

    def _reject(self, stage: Stage, record_id: str, reason: str, detail: str = "") -> None:
        # An unreachable or failing model endpoint says nothing about the record: leave it
        # undecided so the next run retries it, instead of rejecting it for good.
        if reason == "model_error":
            self.deferred[stage.name] = self.deferred.get(stage.name, 0) + 1
            return
        stage.reject(record_id, reason, detail)

    def _records(self, name: str) -> list[dict[str, Any]]:
        # As the store's file holds them (sorted keys), whether appended in this process or
        # read back after a restart: prompts built from them, and so cache keys and exports,
        # are then identical in a fresh and in a resumed run.
        return [json.loads(json.dumps(r, sort_keys=True)) for r in self.stages[name].out.records()]

    def _servers(self) -> list[ServerDoc]:
        return [ServerDoc.model_validate(r) for r in self._records("ingest")]

    async def _map(self, items: list[Any], fn: Any, description: str) -> None:
        await map_ordered(items, fn, limit=self.config.concurrency, description=description, show_progress=self.show_progress)

    async def run(self, specs: list[str] | None = None, stages: list[str] | tuple[str, ...] = STAGES) -> dict[str, Any]:
        """Run `stages` in order (each reads the previous stage's store) and write stats and plots.

        Raises:
            ValueError: for an unknown stage name, or `ingest` without specs and no earlier ingest.
        """
        unknown = [s for s in stages if s not in STAGES]
        if unknown:
            raise ValueError(f"unknown stage(s) {unknown}; stages are {list(STAGES)}")
        started = time.monotonic()
        before = self._llm_counts()
        for name in STAGES:
            if name not in stages:
                continue
            if name == "ingest":
                await self.ingest(specs)
            else:
                await getattr(self, f"stage_{name}")()
        llm = self._llm_counts()
        delta = LLMCounts(**{k: getattr(llm, k) - getattr(before, k) for k in LLMCounts.model_fields})
        notes = RunNotes(deferred_model_errors=self.deferred, emulator=self.emulator_stats, ingest_tool_issues=self.ingest_issues)
        return write_report(
            self.out, self.stages, verdicts=self.verdict_store().records(), notes=notes, llm=delta,
            wall_time_s=time.monotonic() - started, tokens=self.tokens, judge_bar=self.config.judge_threshold,
        )

    def _llm_counts(self) -> LLMCounts:
        models = {id(m): m for m in (self.model, self.agent_model, self.judge_model)}
        total = LLMCounts()
        for m in models.values():
            total = total + m.counts
        return total

    async def ingest(self, specs: list[str] | None) -> None:
        """Stage 1: read tool docs from `specs` into `servers.jsonl` (drops to rejected.jsonl)."""
        stage = self.stages["ingest"]
        if not specs:
            if len(stage.out):
                return
            raise ValueError("the ingest stage needs --servers (no servers.jsonl in the output directory yet)")
        result = await ingest(specs, min_tools=self.config.min_tools, group_envs=self.config.group_envs)
        for server in result.servers:
            stage.accept(server)
        for drop in result.dropped:
            stage.reject(record_id([drop.ref, drop.name], "drop-"), drop.reason, f"{drop.ref} {drop.name}: {drop.detail}")
        self.ingest_issues = [i.model_dump() for i in result.tool_issues]

    async def stage_graph(self) -> None:
        """Stage 2a: propose chains per server and build its tool graph (`graphs.jsonl`)."""
        stage = self.stages["graph"]
        todo = [s for s in self._servers() if not stage.done(s.id)]

        async def one(server: ServerDoc) -> None:
            graph, results = await propose_graph(
                self._meter("graph", self.model), server, rounds=self.config.graph_rounds, per_round=self.config.proposals_per_round,
                max_tokens=self.config.budgets.propose,
            )
            failed = [f"{r.reason_code}: {r.detail[:200]}" for r in results if not r.ok]
            if graph.edge_count == 0:
                # one failure on every round names the cause: the endpoint (retried later), the context, a copied example
                codes = {r.reason_code for r in results}
                shared = next(iter(codes)) if len(codes) == 1 and results and not results[0].ok else None
                reason = shared if shared in ("model_error", "context_overflow", "copied_example") else "no_edges"
                self._reject(stage, server.id, reason, "; ".join(failed) or "no proposal chained two tools")
                return
            stage.accept({"id": server.id, "graph": graph.model_dump(), "rounds_ok": len(results) - len(failed), "rounds_failed": failed})

        await self._map(todo, one, "graph")

    async def stage_chains(self) -> None:
        """Stage 2b: sample chains by random walks; keep those passing the dependency check and vote."""
        stage = self.stages["chains"]
        servers = {s.id: s for s in self._servers()}
        todo: list[tuple[ServerDoc, list[str], str]] = []
        for record in self._records("graph"):
            graph = ToolGraph.model_validate(record["graph"])
            server = servers.get(graph.server_id)
            if server is None:
                continue
            walk = self.config.walk.model_copy(update={"seed": int(record_id([self.config.seed, server.id])[:8], 16)})
            for chain in sample_chains(graph, walk):
                chain_id = record_id([server.id, chain], "chain-")
                if not stage.done(chain_id):
                    todo.append((server, chain, chain_id))

        async def one(item: tuple[ServerDoc, list[str], str]) -> None:
            server, chain, chain_id = item
            deps = check_dependencies(server, chain)
            if not deps.ok:
                stage.reject(chain_id, "dependency_unmet", f"{' -> '.join(chain)}: nothing provides {', '.join(deps.missing)}")
                return
            vote = await vote_coherence(
                self._meter("chains", self.judge_model), server, chain, voters=self.config.votes, max_tokens=self.config.budgets.vote
            )
            rejection = vote.rejection
            if rejection is not None:
                detail = f"{' -> '.join(chain)}: yes={vote.yes} no={vote.no} invalid={vote.invalid}; " + " | ".join(vote.reasons)
                self._reject(stage, chain_id, rejection, detail)
                return
            stage.accept({"id": chain_id, "server_id": server.id, "chain": chain, "vote": vote.model_dump()})

        await self._map(todo, one, "chains")

    def _unit_done(self, unit: str) -> bool:
        stage = self.stages["tasks"]
        return f"tasks:{unit}" in self.rejected or any(r.get("unit") == unit for r in stage.out.records())

    async def stage_tasks(self) -> None:
        """Stage 3a: chain-conditioned and server-only tasks, then augmentations (`tasks.jsonl`)."""
        stage = self.stages["tasks"]
        cfg = self.config
        servers = {s.id: s for s in self._servers()}
        graphed = [servers[r["id"]] for r in self._records("graph") if r["id"] in servers]
        personas = load_personas(cfg.personas) if cfg.personas and "persona" in cfg.augment else []
        units: list[tuple[str, Any]] = [("chain", r) for r in self._records("chains")]
        units += [("server", s) for s in graphed] if cfg.server_tasks else []

        async def one(unit: tuple[str, Any]) -> None:
            kind, item = unit
            if kind == "chain":
                unit_id = f"gen:{item['id']}"
                server = servers[item["server_id"]]
                if not self._unit_done(unit_id):
                    tasks, result = await chain_tasks(
                        self._meter("tasks", self.model), server, item["chain"], item["vote"]["tasks"], n=cfg.tasks_per_chain, max_tokens=cfg.budgets.task
                    )
                    self._keep(stage, unit_id, tasks, result)
            else:
                server = item
                unit_id = f"gen:{server.id}"
                if not self._unit_done(unit_id):
                    tasks, result = await server_tasks(self._meter("tasks", self.model), server, n=cfg.server_tasks, k=cfg.server_task_k, max_tokens=cfg.budgets.task)
                    self._keep(stage, unit_id, tasks, result)
            bases = [SynthTask.model_validate(r) for r in self._records("tasks") if r.get("unit") == unit_id]
            for base in bases:
                for mode in cfg.augment:
                    aug_id = f"aug:{base.id}:{mode}"
                    if self._unit_done(aug_id):
                        continue
                    persona = pick_persona(personas, base.id, cfg.seed) if mode == "persona" else None
                    if mode == "persona" and persona is None:
                        continue
                    inputs = chain_inputs(server, base.chain or base.target_tools)
                    task, result = await augment(self._meter("tasks", self.model), base, mode, persona=persona, inputs=inputs, max_tokens=cfg.budgets.task)
                    self._keep(stage, aug_id, [task] if task else [], result)

        await self._map(units, one, "tasks")

    def _keep(self, stage: Stage, unit: str, tasks: list[SynthTask], result: Any) -> None:
        if not tasks:
            self._reject(stage, unit, result.reason_code or "no_tasks", result.detail)
            return
        for task in tasks:
            stage.accept(task.model_copy(update={"unit": unit}))

    async def stage_score(self) -> None:
        """Stage 3b: score every task; keep those at or above every threshold (`scored.jsonl`)."""
        stage = self.stages["score"]
        servers = {s.id: s for s in self._servers()}
        todo = [SynthTask.model_validate(r) for r in self._records("tasks") if not stage.done(r["id"])]

        async def one(task: SynthTask) -> None:
            found = request_problem(task.question, [t.name for t in servers[task.server_id].tools])
            if found is not None:  # tasks written before the generators checked this, or by another producer
                stage.reject(task.id, found[0], found[1])
                return
            result = await score_task(self._meter("score", self.judge_model), servers[task.server_id], task, max_tokens=self.config.budgets.score)
            if result.value is None:
                code = result.reason_code
                reason = code if code in ("model_error", "context_overflow") else "score_copied_example" if code == "copied_example" else "score_failed"
                self._reject(stage, task.id, reason, f"{result.reason_code}: {result.detail}")
                return
            below = self.config.thresholds.failures(result.value)
            if below:
                scores = result.value.model_dump(exclude={"reason"})
                stage.reject(task.id, "below_threshold", f"{', '.join(below)} in {scores}: {result.value.reason[:300]}")
                return
            stage.accept(task.model_copy(update={"scores": result.value}))

        await self._map(todo, one, "score")

    def _rollout_tasks(self) -> list[SynthTask]:
        kept = [SynthTask.model_validate(r) for r in self._records("score")]
        cap = self.config.max_rollouts_per_server
        if cap is None:
            return kept
        per: dict[str, int] = {}
        chosen = []
        for task in kept:
            if per.get(task.server_id, 0) < cap:
                per[task.server_id] = per.get(task.server_id, 0) + 1
                chosen.append(task)
        return chosen

    async def stage_rollout(self) -> None:
        """Stage 4: play each kept task with the agent over MCP (`rollouts.jsonl`)."""
        stage = self.stages["rollout"]
        todo = [t for t in self._rollout_tasks() if not stage.done(f"traj-{t.id.removeprefix('task-')}")]
        if not todo:
            return
        needed = {t.server_id for t in todo}
        servers = [s for s in self._servers() if s.id in needed]
        servers_by_id = {s.id: s for s in servers}
        async with RolloutServers(servers, self._meter("emulator", self.model), self.config.rollout) as targets:

            async def one(task: SynthTask) -> None:
                traj_id = f"traj-{task.id.removeprefix('task-')}"
                tools = [tool.name for tool in servers_by_id[task.server_id].tools]
                try:
                    record, problem = await usable_rollout(self._meter("rollout", self.agent_model), targets, task, self.config.rollout, tools)
                except Exception as exc:  # noqa: BLE001 - a failed rollout is data, not a crash
                    stage.reject(traj_id, "rollout_error", f"{type(exc).__name__}: {exc}")
                    return
                if problem is None:
                    stage.accept(record)
                else:
                    self._reject(stage, traj_id, *problem)

            await self._map(todo, one, "rollout")
            self.emulator_stats = {sid: e.stats.model_dump() for sid, e in targets.emulators.items()}

    async def stage_judge(self) -> None:
        """Stage 5: judge each trajectory on seven dimensions; unjudged ones are excluded (`judged.jsonl`)."""
        stage = self.stages["judge"]
        verdicts = self.verdict_store()
        todo = [TrajectoryRecord.model_validate(r) for r in self._records("rollout") if not stage.done(r["id"])]

        async def one(record: TrajectoryRecord) -> None:
            verdict = await judge_trajectory(
                self._meter("judge", self.judge_model), record.openai_messages(), error_call_ids=set(record.error_call_ids), max_tokens=self.config.budgets.judge
            )
            verdicts.append({"id": record.id, **verdict.model_dump()})
            if not verdict.judged:
                code = verdict.failure_code
                reason = f"judge_{code}" if code in ("copied_example", "context_overflow") else "unjudged"
                stage.reject(record.id, reason, f"missing {verdict.missing}; {verdict.failure}")
                return
            stage.accept({"id": record.id, "task_id": record.task_id, "server_id": record.server_id, **verdict.model_dump()})

        await self._map(todo, one, "judge")

    def verdict_store(self) -> JsonlStore:
        """Every judge verdict, judged or not (`judge_verdicts.jsonl`), for per-dimension exclusion rates."""
        return JsonlStore(self.out / "judge_verdicts.jsonl")

    async def stage_export(self) -> None:
        """Stage 6: export trajectories scoring at least the threshold to `sft.jsonl` and `sft.parquet`."""
        stage = self.stages["export"]
        threshold = self.config.judge_threshold
        for record in self.stages["judge"].out.records():
            if stage.done(record["id"]):
                continue
            if record["score"] >= threshold:
                stage.accept({"id": record["id"], "score": record["score"]})
            else:
                stage.reject(record["id"], "below_threshold", f"score {record['score']:.3f} < {threshold}")
        rollouts = {r["id"]: r for r in self._records("rollout")}
        kept = [TrajectoryRecord.model_validate(rollouts[r["id"]]).trajectory for r in stage.out.records()]
        write_sft_files(kept, self.out)
