"""Cold start from verified environments: SFT conversations that GRPO can start from (docs/design.md §10).

The one producer of cold-start rows: `astra sft cold-start` and the loop's cold-start stage
(`astra_loop.cold_start_data`) both run it. Two sources, one export (the files every SFT
producer writes, `agent_sdk.write_sft_files`; see `rl.sft_files`):

- **golden replay** — an MCP session to the environment (served in process on the sandbox,
  as `verify` serves it) replays the golden calls of its subtasks in `mcp_servers.golden_order`
  (dependencies first), one call per assistant turn as the system prompt asks ("one step at a
  time"), and records the real tool outputs as tool messages; a final assistant turn states
  the task's answer in one of a few wordings. A replay is kept only when every call succeeded and the F1 reward is 1.
- **rejection sampling** — `agent_sdk.Agent` plays the task `agent_samples` times with
  temperature; an episode is kept only when it ended with an answer at F1 = 1 (and, with
  `check_answer`, when that answer contains the task's answer: F1 does not read it).

Both are the episode GRPO rollouts and the evaluation play: the same system prompt
(`agent_sdk.DEFAULT_SYSTEM_PROMPT` by default) and the same tool set, the environment's tools
as listed over MCP plus, with `ColdStartConfig.distractors`, its banded distractors (sampled
from the environments used, as `rl.prepare` samples GRPO's, so the same seed draws the same
ones; they are served callable beside the environment, as the arena serves them). Tool calls
are stored as structured `tool_calls` with their arguments as JSON objects, so training renders
them with the model's own chat template, as the evaluator's model does. Every environment is
verified first; one that fails is skipped and reported with its finding codes.

Output directory: `verify.json`, `trajectories.jsonl` (kept episodes, every field, appended
as they finish), `rejected.jsonl` (record id, reason, detail), `sft.jsonl` / `sft.parquet` /
`openai.jsonl` (kept conversations in plan order — environments in path order, the golden
replay, then samples by index — without repeats) and `stats.json`. A re-run skips record ids
already in `trajectories.jsonl` or `rejected.jsonl` (delete them to start over), except episodes
that failed for a reason that may be transient (`RETRIED_REASONS`).
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import anyio
from pydantic import BaseModel, Field

from agent_sdk import (
    DEFAULT_SYSTEM_PROMPT,
    Agent,
    ChatMessage,
    ChatModel,
    JsonlError,
    SamplingSettings,
    Step,
    Toolbox,
    ToolCall,
    ToolCallRecord,
    Trajectory,
    UserError,
    read_jsonl,
    read_trajectories_jsonl,
    write_sft_files,
)
from mcp_servers import (
    Binding,
    Environment,
    EnvServer,
    EnvSpec,
    Sandbox,
    SandboxConfig,
    ToolSpec,
    answer_in_output,
    find_envs,
    golden_order,
    load_env,
    verify_paths,
)
from rl.distractors import DistractorConfig, sample_distractors
from rl.exceptions import DatasetError
from rl.reward import f1_reward
from rl.sft_files import dedupe

__all__ = ["ColdStartConfig", "ColdStartStats", "RejectedRecord", "SkippedEnv", "cold_start", "final_answer_message", "replay_golden"]

Source = Literal["golden", "agent"]
RETRIED_REASONS = frozenset({"episode_error", "model_error"})
"""Rejections that may be transient (a server down, a dropped connection): a re-run plays them again."""


class ColdStartConfig(BaseModel):
    """Settings of a cold-start run."""

    system_prompt: str | None = Field(default=DEFAULT_SYSTEM_PROMPT, description="First message of every conversation.")
    golden: bool = Field(default=True, description="Replay each environment's golden calls.")
    vary_wording: bool = Field(default=True, description="Frame a replay's final answer in one of several wordings (`final_answer_message`).")
    agent_samples: int = Field(default=0, ge=0, description="Agent episodes per environment (rejection sampling).")
    temperature: float = Field(default=0.8, ge=0.0, description="Sampling temperature of agent episodes.")
    max_turns: int = Field(default=16, ge=1, description="Model requests per agent episode.")
    max_tokens: int | None = Field(default=1024, ge=1, description="Completion tokens per model request.")
    seed: int = Field(default=0, description="Sample k of every environment is requested with seed + k.")
    check_answer: bool = Field(
        default=False, description="Also require an agent's final answer to contain the task's answer (normalized)."
    )
    concurrency: int = Field(default=4, ge=1, description="Environments verified and episodes played at once.")
    call_timeout_s: float = Field(default=30.0, gt=0, description="Limit per tool call.")
    distractors: DistractorConfig | None = Field(
        default=None,
        description="Distractors offered beside each environment's tools, sampled from the environments used as "
        "`rl.prepare` samples GRPO's (None: none).",
    )


class SkippedEnv(BaseModel):
    """An environment left out, and why."""

    path: str
    env_id: str | None = None
    reason: Literal["verify_failed", "duplicate_env"]
    codes: list[str] = Field(default_factory=list, description="Verify finding codes (for verify_failed).")


class RejectedRecord(BaseModel):
    """A replay or episode that was not kept (one line of `rejected.jsonl`)."""

    id: str = Field(description="Record id: `<env_id>/golden` or `<env_id>/agent/<k>`.")
    env_id: str
    source: Source
    reason: str = Field(
        description="golden_call_failed, golden_not_f1, f1_below_1, wrong_answer (with `check_answer`), episode_error "
        "(an exception), or the stop reason "
        "of an episode that ended without an answer (max_turns, token_budget, model_error)."
    )
    detail: str = ""
    reward: float | None = None
    distractors: list[str] = Field(default_factory=list, description="`<env_id>.<tool>` refs offered beside the environment's tools.")


class SourceCounts(BaseModel):
    """Records planned and kept for one source."""

    planned: int = 0
    kept: int = 0
    rejected: int = 0


class ColdStartStats(BaseModel):
    """What a cold-start run did (`stats.json`)."""

    envs_found: int = Field(description="Environment directories under the given paths.")
    envs_used: int = Field(description="Environments that passed verify and were used.")
    skipped: list[SkippedEnv] = Field(default_factory=list)
    golden: SourceCounts = Field(default_factory=SourceCounts)
    agent: SourceCounts = Field(default_factory=SourceCounts)
    rejection_reasons: dict[str, int] = Field(default_factory=dict)
    resumed: int = Field(default=0, description="Records taken from an earlier run of the same directory.")
    duplicates: int = Field(default=0, description="Kept conversations dropped as repeats of an earlier one.")
    rows: int = Field(default=0, description="Conversations written to the SFT files.")
    tool_calls: int = Field(default=0, description="Tool calls in the written conversations.")
    distractors_per_env: float = Field(default=0.0, description="Distractor tools offered per environment used, on average.")
    repairs: int = Field(default=0, description="Argument repairs in kept agent episodes.")
    model: str | None = None
    wall_s: float = 0.0
    files: dict[str, str] = Field(default_factory=dict)


async def replay_golden(
    env: Environment, toolbox: Toolbox, *, system_prompt: str | None = DEFAULT_SYSTEM_PROMPT, vary_wording: bool = True
) -> Trajectory:
    """Replay the golden calls of `env` on an open `toolbox` connected to it, then answer.

    The calls run in `mcp_servers.golden_order`, one per assistant turn; each output (or error)
    becomes the tool message, exactly as the agent loop records it. The trajectory's tools are
    what `toolbox` lists (distractors included). The last assistant turn states `task.answer`,
    framed by `final_answer_message` unless `vary_wording` is off.
    Failed calls are recorded, not raised.
    """
    spec = env.spec
    started = time.perf_counter()
    exposed = {info.tool: info.name for info in toolbox.tools}
    messages = [ChatMessage(role="system", content=system_prompt)] if system_prompt else []
    messages.append(ChatMessage(role="user", content=spec.task.question))
    trajectory = Trajectory(task=spec.task.question, tools=toolbox.openai_tools(), model="golden", metadata={"env_id": spec.id})
    for turn, subtask in enumerate(golden_order(spec), start=1):
        golden = subtask.golden_call
        assert golden is not None
        call = ToolCall(id=f"call_{turn - 1}", name=exposed.get(golden.tool, golden.tool), arguments=dict(golden.arguments))
        step = Step(turn=turn, message_index=len(messages))
        messages.append(ChatMessage(role="assistant", content="", tool_calls=[call]))
        result = await toolbox.call_tool(call.name, call.arguments)
        step.calls.append(ToolCallRecord(turn=turn, call=call, result=result))
        messages.append(ChatMessage(role="tool", content=result.observation(), tool_call_id=call.id, name=call.name))
        trajectory.steps.append(step)
    trajectory.steps.append(Step(turn=len(trajectory.steps) + 1, message_index=len(messages)))
    final = final_answer_message(spec) if vary_wording else spec.task.answer
    messages.append(ChatMessage(role="assistant", content=final))
    trajectory.messages = messages
    trajectory.final_answer = final
    trajectory.stop_reason = "final_answer"
    trajectory.wall_s = time.perf_counter() - started
    return trajectory


# The golden replay's last turn states the task's answer in one of these framings, chosen by the
# environment id, so a student trained on many replays does not learn a single sentence.
_FINAL_FRAMES = {
    "en": ("{answer}", "Here is what I found: {answer}", "Based on the tool results, {answer}", "{answer} (from the lookups above)"),
    "zh": ("{answer}", "查询结果如下：{answer}", "根据工具返回的信息，{answer}", "{answer}（以上结果来自工具查询）"),
}


def final_answer_message(spec: EnvSpec) -> str:
    """The golden replay's closing message: `task.answer`, in a framing picked by the environment id and language.

    The answer's text is kept whole, so `answer_in_output` and answer correctness read it as before.
    """
    language = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in spec.task.question) else "en"
    frames = _FINAL_FRAMES[language]
    frame = frames[int(hashlib.sha256(spec.id.encode()).hexdigest(), 16) % len(frames)]
    answer = spec.task.answer
    if language == "en" and frame.startswith("Based") and answer[:1].isupper() and not answer[:2].isupper():
        answer = answer[0].lower() + answer[1:]
    return frame.format(answer=answer)


def _judge(
    trajectory: Trajectory, spec: EnvSpec, record_id: str, source: Source, *, distractors: Sequence[str] = (), check_answer: bool = False
) -> RejectedRecord | None:
    """Why `trajectory` is not kept (None when it is); its reward parts and distractors go into its metadata."""
    parts = f1_reward(trajectory, spec, distractor_names=[ref.partition(".")[2] for ref in distractors])
    trajectory.metadata.update(
        {"record_id": record_id, "source": source, "env_id": spec.id, "reward": parts.model_dump(), "distractors": list(distractors)}
    )

    def reject(reason: str, detail: str) -> RejectedRecord:
        return RejectedRecord(
            id=record_id, env_id=spec.id, source=source, reason=reason, detail=detail, reward=parts.reward, distractors=list(distractors)
        )

    failed = [r for r in trajectory.tool_calls if not r.result.ok]
    if source == "golden" and failed:
        return reject("golden_call_failed", f"{failed[0].call.name}: {failed[0].result.observation()[:300]}")
    if trajectory.stop_reason != "final_answer":
        return reject(trajectory.stop_reason or "no_final_answer", trajectory.error or "")
    if parts.reward < 1.0:
        missed = sorted(k for k, hit in parts.hits.items() if not hit)
        detail = f"n={parts.n} n_hat={parts.n_hat} c={parts.c}; " + (
            f"unsolved: {', '.join(missed)}" if missed else f"{parts.c - parts.n_hat} call(s) beyond the needed ones"
        )
        return reject("golden_not_f1" if source == "golden" else "f1_below_1", detail)
    if check_answer and not answer_in_output(spec.task.answer, trajectory.final_answer or ""):
        return reject("wrong_answer", f"expected {spec.task.answer!r} in {(trajectory.final_answer or '')[:300]!r}")
    return None


@dataclass
class _Run:
    """One cold-start run over an output directory: plan, resume, play, append, export.

    `offered` maps an environment id to the distractors served beside its tools: `(source
    environment, tool)` pairs, as the arena resolves `<env_id>.<tool>` refs.
    """

    out: Path
    config: ColdStartConfig
    model: ChatModel | None
    sandbox: Sandbox
    offered: dict[str, list[tuple[Environment, ToolSpec]]]
    kept: dict[str, Trajectory] = field(init=False, default_factory=dict)
    rejected: dict[str, RejectedRecord] = field(init=False, default_factory=dict)

    @property
    def trajectories_file(self) -> Path:
        return self.out / "trajectories.jsonl"

    @property
    def rejected_file(self) -> Path:
        return self.out / "rejected.jsonl"

    def resume(self) -> None:
        """Load the records an earlier run of this directory finished."""
        if self.trajectories_file.is_file():
            try:
                kept = read_trajectories_jsonl(self.trajectories_file)
            except UserError as exc:
                raise DatasetError(str(exc)) from exc
            # A record played with other distractors is another episode: it is played again.
            same = [t for t in kept if t.metadata.get("distractors", []) == self._refs(t.metadata.get("env_id"))]
            self.kept.update((str(t.metadata.get("record_id")), t) for t in same)
        if self.rejected_file.is_file():
            try:
                rejected = read_jsonl(self.rejected_file, RejectedRecord).values
            except JsonlError as exc:
                raise DatasetError(f"{exc.file}:{exc.line}: not a rejected record: {exc.problem}") from exc
            self.rejected.update((r.id, r) for r in rejected if r.reason not in RETRIED_REASONS and r.distractors == self._refs(r.env_id))

    def done(self, record_id: str) -> bool:
        return record_id in self.kept or record_id in self.rejected

    def _refs(self, env_id: Any) -> list[str]:
        return [f"{source.spec.id}.{tool.name}" for source, tool in self.offered.get(str(env_id), [])]

    def _record(self, trajectory: Trajectory, spec: EnvSpec, record_id: str, source: Source) -> None:
        verdict = _judge(trajectory, spec, record_id, source, distractors=self._refs(spec.id), check_answer=self.config.check_answer)
        if verdict is None:
            self.kept[record_id] = trajectory
            self._append(self.trajectories_file, trajectory.model_dump_json())
        else:
            self.reject(verdict)

    def reject(self, record: RejectedRecord) -> None:
        """Keep `record` as this run's verdict and append it to `rejected.jsonl`."""
        self.rejected[record.id] = record
        self._append(self.rejected_file, record.model_dump_json())

    @staticmethod
    def _append(path: Path, line: str) -> None:
        with path.open("a", encoding="utf-8") as handle:
            handle.write(line + "\n")

    def _toolbox(self, env: Environment) -> Toolbox:
        """An in-process MCP server for `env` with its distractors, bound as the arena binds a session."""
        binding = Binding(env, tuple(self.offered.get(env.spec.id, [])))
        server = EnvServer(self.sandbox, lambda _ctx: binding, name=env.spec.id).server
        return Toolbox(server, timeout_s=self.config.call_timeout_s, sandbox=self.sandbox)

    async def golden(self, env: Environment, record_id: str) -> None:
        async with self._toolbox(env) as toolbox:
            trajectory = await replay_golden(env, toolbox, system_prompt=self.config.system_prompt, vary_wording=self.config.vary_wording)
        self._record(trajectory, env.spec, record_id, "golden")

    async def agent(self, env: Environment, record_id: str, sample: int) -> None:
        assert self.model is not None
        cfg = self.config
        settings = SamplingSettings(temperature=cfg.temperature, seed=cfg.seed + sample, max_tokens=cfg.max_tokens)
        agent = Agent(self.model, self._toolbox(env), system_prompt=cfg.system_prompt, max_turns=cfg.max_turns, settings=settings)
        trajectory = await agent.run(env.spec.task.question, metadata={"sample": sample})
        self._record(trajectory, env.spec, record_id, "agent")


def _plan(envs: Sequence[Environment], config: ColdStartConfig) -> list[tuple[Environment, str, Source, int]]:
    plan: list[tuple[Environment, str, Source, int]] = []
    for env in envs:
        if config.golden:
            plan.append((env, f"{env.spec.id}/golden", "golden", 0))
        plan += [(env, f"{env.spec.id}/agent/{k}", "agent", k) for k in range(config.agent_samples)]
    return plan


def _offered(envs: Sequence[Environment], config: DistractorConfig | None, embedder: Any) -> dict[str, list[tuple[Environment, ToolSpec]]]:
    """The distractors of each environment as `(source environment, tool)`, drawn from `envs` (none without `config`)."""
    if config is None or not envs:
        return {}
    by_id = {env.spec.id: env for env in envs}
    sampled = sample_distractors(envs, config, embedder=embedder)
    offered: dict[str, list[tuple[Environment, ToolSpec]]] = {}
    for env_id, distractors in sampled.items():
        offered[env_id] = [(by_id[d.env_id], tool) for d in distractors if (tool := by_id[d.env_id].spec.tool(d.name)) is not None]
    return offered


async def _verified_envs(paths: Sequence[Path], sandbox: Sandbox, out: Path, concurrency: int) -> tuple[list[Environment], list[SkippedEnv]]:
    report = await verify_paths(paths, sandbox=sandbox, concurrency=concurrency)
    (out / "verify.json").write_text(report.to_json() + "\n", encoding="utf-8")
    envs: list[Environment] = []
    skipped: list[SkippedEnv] = []
    ids: set[str] = set()
    for verdict in report.envs:
        path = verdict.path or "-"
        if not verdict.passed:
            skipped.append(SkippedEnv(path=path, env_id=verdict.env_id, reason="verify_failed", codes=verdict.codes))
        elif verdict.env_id in ids:
            skipped.append(SkippedEnv(path=path, env_id=verdict.env_id, reason="duplicate_env"))
        else:
            ids.add(verdict.env_id or "")
            envs.append(load_env(Path(path)))
    return envs, skipped


async def cold_start(
    env_paths: Sequence[str | Path],
    out: str | Path,
    *,
    model: ChatModel | None = None,
    config: ColdStartConfig | None = None,
    sandbox: Sandbox | None = None,
    embedder: Any = None,
) -> ColdStartStats:
    """Verify the environments under `env_paths`, replay and sample them, write the SFT export under `out`.

    Args:
        env_paths: environment directories or directories of them, in the order to use.
        out: output directory (see the module docstring for its files); re-runs resume.
        model: the agent of rejection sampling (needed when `config.agent_samples` > 0).
        config: settings (defaults: golden replay only, no distractors).
        sandbox: an open sandbox to serve the environments on (default: `SandboxConfig.from_env()`'s).
        embedder: an `rl.Embedder` for banded distractors (default: the packaged all-MiniLM-L6-v2, no cache).

    Raises:
        DatasetError: when no environment is found, or `agent_samples` > 0 without a model.
    """
    config = config or ColdStartConfig()
    if config.agent_samples and model is None:
        raise DatasetError("agent_samples > 0 needs a model to play the episodes")
    started = time.perf_counter()
    if not env_paths:
        raise DatasetError("no environment directory given")
    found: list[Path] = []
    for given in env_paths:
        dirs = find_envs(given)
        if not dirs:
            raise DatasetError(f"{given}: no environment (env.json) in it or in its subdirectories")
        found += dirs
    paths = list(dict.fromkeys(p.resolve() for p in found))
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    if sandbox is None:
        async with SandboxConfig.from_env().build() as own:
            return await cold_start(env_paths, out, model=model, config=config, sandbox=own, embedder=embedder)
    envs, skipped = await _verified_envs(paths, sandbox, out, config.concurrency)
    offered = _offered(envs, config.distractors, embedder)
    run = _Run(out, config, model, sandbox, offered)
    run.resume()
    plan = _plan(envs, config)
    resumed = sum(run.done(record_id) for _, record_id, _, _ in plan)
    limiter = anyio.CapacityLimiter(config.concurrency)

    async def play(env: Environment, record_id: str, source: Source, sample: int) -> None:
        async with limiter:
            try:
                if source == "golden":
                    await run.golden(env, record_id)
                else:
                    await run.agent(env, record_id, sample)
            except Exception as exc:  # noqa: BLE001 — a failed episode is data; its siblings go on
                detail = f"{type(exc).__name__}: {exc}"
                run.reject(RejectedRecord(id=record_id, env_id=env.spec.id, source=source, reason="episode_error", detail=detail))

    async with anyio.create_task_group() as tg:
        for env, record_id, source, sample in plan:
            if not run.done(record_id):
                tg.start_soon(play, env, record_id, source, sample)
    stats = ColdStartStats(
        envs_found=len(paths), envs_used=len(envs), skipped=skipped, resumed=resumed, model=model.name if model else None,
        distractors_per_env=sum(map(len, offered.values())) / max(1, len(envs)),
    )  # fmt: skip
    kept: list[Trajectory] = []
    reasons: Counter[str] = Counter()
    for _, record_id, source, _ in plan:
        counts = stats.golden if source == "golden" else stats.agent
        counts.planned += 1
        if record_id in run.kept:
            counts.kept += 1
            kept.append(run.kept[record_id])
        elif record_id in run.rejected:
            counts.rejected += 1
            reasons[run.rejected[record_id].reason] += 1
    rows, stats.duplicates = dedupe(kept)
    stats.rejection_reasons = dict(sorted(reasons.items()))
    stats.rows = len(rows)
    stats.tool_calls = sum(len(t.tool_calls) for t in rows)
    stats.repairs = sum(len(t.repairs) for t in rows)
    stats.files = {k: str(p) for k, p in write_sft_files(rows, out).items()}
    stats.wall_s = round(time.perf_counter() - started, 3)
    (out / "stats.json").write_text(stats.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return stats
