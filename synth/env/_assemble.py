"""Stage 6: build the final `Environment`, verify it over MCP, check its meaning, write it only when it passes both."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agent_sdk import format_validation_error
from mcp_servers import CheckCode, Environment, GoldenCall, Source, Subtask, Task, ToolSpec, verify_env
from synth.env._code import render_module
from synth.env._meaning import meaning_findings
from synth.env.records import EnvRecord, Failure, Sample


CHECK_CODES: tuple[CheckCode, ...] = CheckCode.load_declarations(__name__)
"""The codes of the assemble stage (it also rejects with one `verify` or `meaning` code, and `schema_invalid`)."""

def unique_names(sample: Sample) -> tuple[list[str], list[str]]:
    """Final tool names (a clash gets `_2`, `_3`, ... — never an overwrite) and rename notes."""
    taken: set[str] = set()
    names: list[str] = []
    notes: list[str] = []
    for tool in sample.tools or []:
        name = tool.name
        k = 2
        while name in taken:
            name = f"{tool.name}_{k}"
            k += 1
        if name != tool.name:
            notes.append(f"renamed duplicate tool {tool.name} to {name}")
        taken.add(name)
        names.append(name)
    return names, notes


def build_environment(sample: Sample) -> tuple[Environment, list[str]] | Failure:
    """The environment of a sample whose tools are all synthesized (and merged)."""
    assert sample.necessity is not None and sample.tools is not None
    names, notes = unique_names(sample)
    golden: dict[str, GoldenCall] = {}
    for name, tool in zip(names, sample.tools, strict=True):
        for sid, args in tool.calls.items():
            golden[sid] = GoldenCall(tool=name, arguments=args)
    subtasks = [
        Subtask(
            id=q.id, question=q.question, answer=q.answer, depends_on=q.depends_on,
            needs_tool=sample.necessity[q.id].needs_tool, golden_call=golden.get(q.id),
        )
        for q in sample.sub_questions
    ]
    code = render_module(
        [(name, tool.function, tool.code) for name, tool in zip(names, sample.tools, strict=True)],
        header=f"Tools of a synthesized environment: {sample.seed.domain}.",
    )
    try:
        env = Environment.build(
            code,
            domain=sample.seed.domain,
            language=sample.seed.language,
            source=Source(kind="qa", ref=sample.seed.ref),
            task=Task(question=sample.question, answer=sample.answer, scenario=sample.scenario),
            subtasks=subtasks,
            tools=[ToolSpec(name=n, description=t.description, input_schema=t.input_schema) for n, t in zip(names, sample.tools, strict=True)],
        )
    except ValidationError as exc:
        return Failure(reason="schema_invalid", detail=format_validation_error(exc))
    return env, notes


async def verify(env: Environment, sandbox: Any) -> Failure | None:
    """Run `mcp_servers` verify on the final artifact; every finding's code is kept."""
    report = await verify_env(env, sandbox=sandbox)
    if report.passed:
        return None
    codes = sorted({str(getattr(f, "code", f)) for f in report.findings})
    detail = "; ".join(f"{getattr(f, 'code', '')}: {getattr(f, 'message', f)}" for f in report.findings)
    return Failure(reason=codes[0] if len(codes) == 1 else "verify_failed:" + ",".join(codes), detail=detail)


def write_env(env: Environment, out_dir: Path) -> Path:
    """Write `envs/<env_id>/` atomically (a re-run of the same content replaces it)."""
    final = out_dir / "envs" / env.spec.id
    tmp = out_dir / "envs" / f".tmp-{env.spec.id}-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    env.write(tmp)
    shutil.rmtree(final, ignore_errors=True)
    os.replace(tmp, final)
    return final


def check_meaning(env: Environment, embedder: Any | None = None) -> Failure | None:
    """The meaning checks (`_meaning`) on the final artifact; every finding's code is kept."""
    findings = meaning_findings(env.spec, embedder)
    if not findings:
        return None
    codes = sorted({f.code for f in findings})
    detail = "; ".join(f"{f.code}: {f.message}" for f in findings)
    return Failure(reason=codes[0] if len(codes) == 1 else "meaning_failed:" + ",".join(codes), detail=detail)


async def assemble(sample: Sample, sandbox: Any, out_dir: Path, embedder: Any | None = None) -> EnvRecord | Failure:
    """Stage 6: build, verify, check meaning, write.

    Args:
        embedder: a sentence-transformers model for the duplicate-tool rule (names only without).
    """
    built = build_environment(sample)
    if isinstance(built, Failure):
        return built
    env, notes = built
    failure = await verify(env, sandbox) or check_meaning(env, embedder)
    if failure is not None:
        return failure
    path = write_env(env, out_dir)
    return EnvRecord(
        id=sample.id,
        env_id=env.spec.id,
        path=str(path.relative_to(out_dir)),
        domain=sample.seed.domain,
        language=sample.seed.language,
        scenario=sample.scenario,
        hops=len(sample.sub_questions),
        tools=len(env.spec.tools),
        notes=sample.notes + notes,
    )
