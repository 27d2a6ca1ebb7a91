"""`verify`: replay every golden call of a final environment over MCP and fail closed.

An environment is judged as a client sees it: it is served by `build_env_server` and
driven through real `mcp.Client` sessions (in process, real JSON-RPC). Per environment:

1. load env.json leniently so each violated invariant gets its own finding code;
2. scan the tool module statically (syntax, clock/random/network use, missing tools,
   signatures that disagree with the input schema);
3. replay the golden calls in dependency order in two fresh sessions at once — the first
   also lists the tools — and judge errors, answers and agreement between the two;
4. call each answered tool again with one argument perturbed at a time, in a fresh
   session per subtask after replaying the golden calls before it, and check the answer
   does not come back (the replayed prefix doubles as a third determinism check).

Anything unexpected while verifying becomes a `verify_error` finding (a session that never
finishes, a `timeout`): an environment passes only when every check ran and found nothing.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from pydantic import BaseModel, Field, computed_field
from rich.table import Table

from mcp_servers._order import golden_order
from mcp_servers._sandbox import Sandbox
from mcp_servers._server import build_env_server
from mcp_servers._spec import Environment, find_envs
from mcp_servers._verify_checks import (
    Finding,
    answer_in_output,
    generic_answer_reason,
    load_lenient,
    perturbations,
    spec_findings,
)
from mcp_servers._verify_scan import scan_code

_OPEN_TIMEOUT_S = 30.0
_CALL_MARGIN_S = 15.0
_PERTURBATION_CONCURRENCY = 4
_ERROR_CODES = {
    "invalid_arguments": "golden_call_invalid_args",
    "unknown_tool": "tool_missing",
    "exception": "golden_call_error",
    "timeout": "timeout",
    "crash": "crash",
    "memory": "crash",
    "oversized_output": "output_too_large",
    "output_schema": "output_schema_mismatch",
}


class EnvReport(BaseModel):
    """The verdict on one environment."""

    path: str | None = Field(description="The environment directory (None for an in-memory environment).")
    env_id: str | None = Field(description="The spec's id, when env.json could be read.")
    tools: int = Field(default=0, description="Number of declared tools.")
    subtasks: int = Field(default=0, description="Number of subtasks.")
    passed: bool = Field(description="True only when every check ran and found nothing.")
    findings: list[Finding] = Field(default_factory=list)
    duration_s: float = Field(default=0.0, description="Wall time spent verifying it.")

    @property
    def codes(self) -> list[str]:
        """The distinct finding codes, sorted."""
        return sorted({f.code for f in self.findings})


class VerifyReport(BaseModel):
    """The verdicts on a set of environments."""

    envs: list[EnvReport]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def passed(self) -> bool:
        """True when every environment passed (and there was at least one)."""
        return bool(self.envs) and all(r.passed for r in self.envs)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def failed(self) -> int:
        """Number of environments that failed."""
        return sum(not r.passed for r in self.envs)

    def to_json(self, indent: int | None = 2) -> str:
        """The report as JSON: `{"envs": [...], "passed": bool, "failed": int}`."""
        return self.model_dump_json(indent=indent)

    def table(self) -> Table:
        """A rich table: env, id, tools, subtasks, status, codes."""
        table = Table(title=f"verify: {len(self.envs) - self.failed}/{len(self.envs)} passed")
        table.add_column("env", overflow="fold")
        table.add_column("id", no_wrap=True)
        table.add_column("tools", justify="right")
        table.add_column("subtasks", justify="right")
        table.add_column("status", no_wrap=True)
        table.add_column("codes", overflow="fold", min_width=16)
        for r in self.envs:
            status = "[green]PASS[/green]" if r.passed else "[red]FAIL[/red]"
            name = Path(r.path).name if r.path else "(in memory)"
            table.add_row(name, r.env_id or "-", str(r.tools), str(r.subtasks), status, ", ".join(r.codes))
        return table


@dataclass(frozen=True)
class _Observed:
    ok: bool
    text: str
    kind: str | None


@dataclass(frozen=True)
class _Step:
    subtask_id: str
    tool: str
    arguments: dict[str, Any]


async def _run_session(
    env: Environment, sandbox: Sandbox, steps: Sequence[_Step], *, list_tools: bool = False
) -> tuple[list[Any] | None, list[_Observed]]:
    """One fresh MCP session: optionally list the tools, then make `steps` in order."""
    server = build_env_server(env, sandbox)
    call_wait = env.spec.limits.call_timeout_s + _CALL_MARGIN_S
    observed: list[_Observed] = []
    with anyio.fail_after(_OPEN_TIMEOUT_S + call_wait * (len(steps) + 1)):
        async with Client(server, mode="legacy") as client:
            tools = (await client.list_tools()).tools if list_tools else None
            for step in steps:
                try:
                    result = await client.call_tool(step.tool, step.arguments)
                except RuntimeError as exc:
                    # The client checks structured content against the declared output_schema.
                    if "structured content" not in str(exc):
                        raise
                    observed.append(_Observed(ok=False, text=str(exc), kind="output_schema"))
                    continue
                text = "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")
                kind = (result.meta or {}).get("astra/error_kind") if result.is_error else None
                observed.append(_Observed(ok=not result.is_error, text=text, kind=kind))
    return tools, observed


def _error_finding(step: _Step, seen: _Observed) -> Finding:
    code = _ERROR_CODES.get(seen.kind or "", "golden_call_error")
    if seen.kind == "exception" and seen.text.startswith("tool module failed to load"):
        code = "code_invalid"
    elif seen.kind == "exception" and "defines no function" in seen.text:
        code = "tool_missing"
    return Finding(code=code, subtask_id=step.subtask_id, tool=step.tool, message=seen.text[:500])  # type: ignore[arg-type]


def _listing_findings(env: Environment, listed: list[Any] | None) -> list[Finding]:
    by_name = {t.name: t for t in listed or []}
    findings = []
    for tool in env.spec.tools:
        served = by_name.get(tool.name)
        if served is None:
            findings.append(Finding(code="tool_missing", tool=tool.name, message="the server does not list this tool"))
        elif served.input_schema != tool.input_schema:
            findings.append(Finding(code="tool_missing", tool=tool.name, message="the server lists a different input schema"))
    return findings


def _replay_findings(env: Environment, steps: list[_Step], first: list[_Observed]) -> list[Finding]:
    answers = {s.id: s.answer for s in env.spec.subtasks}
    findings = []
    for step, seen in zip(steps, first, strict=True):
        if not seen.ok:
            findings.append(_error_finding(step, seen))
        elif not answer_in_output(answers[step.subtask_id], seen.text):
            findings.append(Finding(code="answer_missing", subtask_id=step.subtask_id, tool=step.tool,
                                    message=f"answer {answers[step.subtask_id]!r} not in output {seen.text[:300]!r}"))
    return findings


def _disagreements(expected: list[tuple[_Step, _Observed]], again: list[_Observed]) -> list[Finding]:
    """Calls whose outcome in another fresh session differs (error messages may differ; their kind may not)."""
    findings = []
    for (step, a), b in zip(expected, again, strict=True):
        same = (a.ok, a.text) == (b.ok, b.text) if a.ok or b.ok else a.kind == b.kind
        if not same:
            findings.append(Finding(code="nondeterministic", subtask_id=step.subtask_id, tool=step.tool,
                                    message=f"two fresh sessions disagree: {a.text[:200]!r} vs {b.text[:200]!r}"))
    return findings


async def _distinctiveness(env: Environment, sandbox: Sandbox, steps: list[_Step], first: list[_Observed]) -> list[Finding]:
    """Generic answers, then answers that come back when one argument is perturbed.

    Each answered subtask gets one fresh session that replays the golden calls before it
    (as the first replay made them, so the state matches what its golden call saw) and
    then makes each perturbed call. The replayed prefix is one more fresh-session replay,
    so it is compared with the first replay as well.
    """
    spec = env.spec
    answers = {s.id: s.answer for s in spec.subtasks}
    findings: list[Finding] = []
    jobs: list[tuple[int, list[tuple[str, _Step]]]] = []
    for i, (step, seen) in enumerate(zip(steps, first, strict=True)):
        if not (seen.ok and answer_in_output(answers[step.subtask_id], seen.text)):
            continue
        reason = generic_answer_reason(answers[step.subtask_id])
        if reason is not None:
            findings.append(Finding(code="answer_not_distinctive", subtask_id=step.subtask_id, tool=step.tool, message=reason))
            continue
        tool = spec.tool(step.tool)
        assert tool is not None
        siblings = [other.arguments for other in steps if other.tool == step.tool and other.subtask_id != step.subtask_id]
        probes = [(name, _Step(step.subtask_id, step.tool, v)) for name, v in perturbations(step.arguments, tool.input_schema, siblings)]
        if probes:
            jobs.append((i, probes))
    limiter = anyio.CapacityLimiter(_PERTURBATION_CONCURRENCY)

    async def probe(index: int, probes: list[tuple[str, _Step]]) -> None:
        # Calls that timed out or crashed are findings already; replaying them only costs time.
        prefix = [(st, seen) for st, seen in zip(steps[:index], first) if seen.ok or seen.kind not in {"timeout", "crash"}]
        async with limiter:
            _, observed = await _run_session(env, sandbox, [*(st for st, _ in prefix), *(p for _, p in probes)])
        findings.extend(_disagreements(prefix, observed[: len(prefix)]))
        step = steps[index]
        answer = answers[step.subtask_id]
        for (name, variant), seen in zip(probes, observed[len(prefix) :], strict=True):
            if seen.ok and answer_in_output(answer, seen.text):
                shown = json.dumps(variant.arguments, ensure_ascii=False, sort_keys=True)
                findings.append(Finding(code="answer_not_distinctive", subtask_id=step.subtask_id, tool=step.tool,
                                        message=f"answer {answer!r} also returned with {name} changed: {shown}"))

    async with anyio.create_task_group() as tg:
        for job in jobs:
            tg.start_soon(probe, *job)
    return findings


async def _verify(env: Environment, sandbox: Sandbox) -> list[Finding]:
    findings, parses = scan_code(env)
    if not parses:
        return findings
    steps = [_Step(s.id, s.golden_call.tool, s.golden_call.arguments) for s in golden_order(env.spec)]  # type: ignore[union-attr]
    runs: dict[str, tuple[list[Any] | None, list[_Observed]]] = {}

    async def replay(name: str) -> None:
        runs[name] = await _run_session(env, sandbox, steps, list_tools=name == "first")

    async with anyio.create_task_group() as tg:
        tg.start_soon(replay, "first")
        tg.start_soon(replay, "second")
    listed, first = runs["first"]
    findings += _listing_findings(env, listed)
    findings += _replay_findings(env, steps, first)
    findings += _disagreements(list(zip(steps, first, strict=True)), runs["second"][1])
    findings += await _distinctiveness(env, sandbox, steps, first)
    return findings


def _dedupe(findings: Iterable[Finding]) -> list[Finding]:
    seen: set[tuple[str, str | None, str | None, str]] = set()
    out = []
    for f in findings:
        key = (f.code, f.subtask_id, f.tool, f.message)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


async def verify_env(path_or_env: str | Path | Environment, *, sandbox: Sandbox) -> EnvReport:
    """Verify one environment (a directory or a loaded `Environment`) over MCP.

    Never raises for a broken environment: every problem, including an unexpected error
    while verifying, is a finding, and the report passes only when there is none.
    """
    started = time.perf_counter()
    path = str(path_or_env.path or "") or None if isinstance(path_or_env, Environment) else str(path_or_env)
    env: Environment | None = None
    findings: list[Finding] = []
    try:
        if isinstance(path_or_env, Environment):
            env, findings = path_or_env, spec_findings(path_or_env.spec)
        else:
            env, findings = load_lenient(Path(path_or_env))
        if env is not None:
            findings += await _verify(env, sandbox)
    except Exception as exc:  # noqa: BLE001 — fail closed: an unverifiable environment fails
        findings.append(_failure(exc))
    raw = _raw_summary(path) if env is None else {}
    return EnvReport(
        path=path,
        env_id=env.spec.id if env is not None else raw.get("id"),
        tools=len(env.spec.tools) if env is not None else raw.get("tools", 0),
        subtasks=len(env.spec.subtasks) if env is not None else raw.get("subtasks", 0),
        passed=not findings,
        findings=_dedupe(findings),
        duration_s=round(time.perf_counter() - started, 4),
    )


def _failure(exc: Exception) -> Finding:
    """The finding for an exception that stopped verification: a session that never
    finished is a `timeout`, anything else a `verify_error`."""
    timed_out = isinstance(exc, TimeoutError) or (isinstance(exc, ExceptionGroup) and exc.split(TimeoutError)[1] is None)
    if timed_out:
        return Finding(code="timeout", message="an MCP session of this environment did not finish in time")
    return Finding(code="verify_error", message=f"verification failed: {type(exc).__name__}: {exc}")


def _raw_summary(path: str | None) -> dict[str, Any]:
    """Id and counts read straight from an env.json that did not load, for the report."""
    try:
        raw = json.loads((Path(path or "") / "env.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(raw, dict):
        return {}
    summary: dict[str, Any] = {"id": raw["id"]} if isinstance(raw.get("id"), str) else {}
    for key in ("tools", "subtasks"):
        if isinstance(raw.get(key), list):
            summary[key] = len(raw[key])
    return summary


def expand_env_paths(paths: Iterable[str | Path]) -> list[Path]:
    """Each path as an environment directory or a directory of them; a path holding none is kept
    as is, so verify reports it (fail closed) instead of silently skipping it."""
    out: list[Path] = []
    for p in paths:
        found = find_envs(p)
        out += found or [Path(p)]
    return out


async def verify_paths(paths: Iterable[str | Path], *, sandbox: Sandbox, concurrency: int = 8) -> VerifyReport:
    """Verify every environment under `paths` (see `expand_env_paths`), `concurrency` at a time."""
    targets = expand_env_paths(paths)
    reports: list[EnvReport | None] = [None] * len(targets)
    limiter = anyio.CapacityLimiter(max(1, concurrency))

    async def one(i: int, target: Path) -> None:
        async with limiter:
            reports[i] = await verify_env(target, sandbox=sandbox)

    async with anyio.create_task_group() as tg:
        for i, target in enumerate(targets):
            tg.start_soon(one, i, target)
    return VerifyReport(envs=[r for r in reports if r is not None])
