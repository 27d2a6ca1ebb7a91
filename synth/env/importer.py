"""`astra env import`: ASTRA-RL style rows -> verified environments, defects reported, not hidden.

A row holds `tool_schema` (a list of OpenAI function schemas), `tool_dict` (tool name ->
Python source), `sub_qa_dict` (tool name -> the answers its output must contain) and the
query (`query`, or the last user message of `prompt`); each field may be JSON-encoded text.
Such rows carry no golden calls: they come from the row's optional `golden_calls` (tool name
-> list of argument objects, one per answer) or, when a model is given, are proposed by it
from the query. Every defect — a duplicate tool name, a tool without code, a missing golden
call, any `verify` finding such as `nondeterministic` — is reported with its code; only
environments without defects are written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from agent_sdk import ChatMessage
from mcp_servers import Environment, GoldenCall, Source, Subtask, Task, ToolSpec
from synth.core import ask_structured, format_validation_error, read_jsonl
from synth.env._assemble import verify_env, write_env
from synth.env._code import render_module
from synth.env._seeds import detect_language

__all__ = ["Defect", "ImportRecord", "import_envs"]


class Defect(BaseModel):
    """One problem found in an imported row."""

    code: str = Field(description="duplicate_tool_name, tool_missing, golden_call_missing, schema_invalid, or a verify code.")
    message: str


class ImportRecord(BaseModel):
    """The outcome of importing one row."""

    ref: str = Field(description="file:line of the row.")
    env_id: str | None = None
    passed: bool
    defects: list[Defect] = Field(default_factory=list)


class _Calls(BaseModel):
    calls: list[dict[str, Any]] = Field(description="One argument object per expected answer, in order.")


def _decode(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _query(row: dict[str, Any]) -> str:
    if isinstance(row.get("query"), str) and row["query"].strip():
        return row["query"].strip()
    prompt = _decode(row.get("prompt"))
    if isinstance(prompt, list):
        users = [m.get("content") for m in prompt if isinstance(m, dict) and m.get("role") == "user"]
        if users and isinstance(users[-1], str):
            return users[-1].strip()
    return ""


async def _propose_calls(model: Any, query: str, tool: ToolSpec, answers: list[str]) -> list[dict[str, Any]] | None:
    prompt = [
        ChatMessage(
            role="user",
            content=f"User request:\n{query}\n\nTool: {tool.model_dump_json()}\n\nFor each expected result below give the "
            f"arguments of the call to {tool.name} that returns it, taken from the request:\n"
            + "\n".join(f"{i + 1}. {a}" for i, a in enumerate(answers))
            + '\nFormat: {"calls": [{...}, ...]} in the same order.',
        )
    ]
    result = await ask_structured(model, prompt, _Calls, check=lambda c: None if len(c.calls) == len(answers) else f"give exactly {len(answers)} calls")
    return result.value.calls if result.value is not None else None


async def import_row(row: dict[str, Any], ref: str, *, sandbox: Any, model: Any | None = None, domain: str = "imported") -> tuple[ImportRecord, Environment | None]:
    """Convert and verify one row."""
    defects: list[Defect] = []
    schemas = _decode(row.get("tool_schema"))
    codes = _decode(row.get("tool_dict"))
    answers_by_tool = _decode(row.get("sub_qa_dict"))
    query = _query(row)
    if not isinstance(schemas, list) or not isinstance(codes, dict) or not isinstance(answers_by_tool, dict) or not query:
        return ImportRecord(ref=ref, passed=False, defects=[Defect(code="malformed_row", message="needs tool_schema (list), tool_dict (object), sub_qa_dict (object) and a query")]), None
    tools: dict[str, ToolSpec] = {}
    for raw in schemas:
        fn = raw.get("function", raw) if isinstance(raw, dict) else {}
        try:
            tool = ToolSpec(name=fn.get("name", ""), description=fn.get("description") or fn.get("name", "tool"), input_schema=fn.get("parameters") or {"type": "object", "properties": {}})
        except ValidationError as exc:
            defects.append(Defect(code="schema_invalid", message=f"tool {fn.get('name')!r}: {format_validation_error(exc)}"))
            continue
        if tool.name in tools:
            defects.append(Defect(code="duplicate_tool_name", message=f"tool_schema lists {tool.name!r} more than once; the later definition is not used"))
            continue
        if tool.name not in codes:
            defects.append(Defect(code="tool_missing", message=f"tool_dict has no code for {tool.name!r}"))
            continue
        tools[tool.name] = tool
    given_calls = _decode(row.get("golden_calls")) or {}
    subtasks: list[Subtask] = []
    for name, answers in answers_by_tool.items():
        answers = [str(a) for a in (answers if isinstance(answers, list) else [answers])]
        if name not in tools:
            defects.append(Defect(code="tool_missing", message=f"sub_qa_dict names {name!r}, which is not a usable tool"))
            continue
        calls = given_calls.get(name) if isinstance(given_calls, dict) else None
        if calls is None and model is not None:
            calls = await _propose_calls(model, query, tools[name], answers)
        if not isinstance(calls, list) or len(calls) != len(answers):
            defects.append(Defect(code="golden_call_missing", message=f"no golden call for each answer of {name!r}"))
            continue
        for i, (answer, args) in enumerate(zip(answers, calls, strict=True), 1):
            subtasks.append(Subtask(id=f"{name}_{i}", question=f"What does {name} return for this request?", answer=answer, golden_call=GoldenCall(tool=name, arguments=args)))
    if defects or not subtasks:
        if not subtasks and not defects:
            defects.append(Defect(code="golden_call_missing", message="sub_qa_dict is empty"))
        return ImportRecord(ref=ref, passed=False, defects=defects), None
    code = render_module([(n, n, codes[n]) for n in tools], header="Tools imported from an ASTRA-RL row.")
    try:
        env = Environment.build(
            code,
            domain=str(row.get("domain") or domain),
            language=str(row.get("language") or detect_language(query)),
            source=Source(kind="import", ref=ref),
            task=Task(question=query, answer=str(row.get("answer") or "; ".join(s.answer for s in subtasks)), scenario="single_hop" if len(subtasks) == 1 else "parallel_single_hop"),
            subtasks=subtasks,
            tools=list(tools.values()),
        )
    except ValidationError as exc:
        return ImportRecord(ref=ref, passed=False, defects=[Defect(code="schema_invalid", message=format_validation_error(exc))]), None
    report = await verify_env(env, sandbox=sandbox)
    defects += [Defect(code=f.code, message=f.message) for f in report.findings]
    return ImportRecord(ref=ref, env_id=env.spec.id, passed=report.passed, defects=defects), env if report.passed else None


async def import_envs(inputs: list[Path], out_dir: Path, *, sandbox: Any, model: Any | None = None, limit: int | None = None) -> list[ImportRecord]:
    """Import every row of `inputs`; passing environments go to `out_dir/envs/`, all outcomes to `import_report.jsonl`."""
    out_dir.mkdir(parents=True, exist_ok=True)
    records: list[ImportRecord] = []
    for path in inputs:
        rows, errors = read_jsonl(path, limit=limit)
        records += [ImportRecord(ref=f"{e.file}:{e.line}", passed=False, defects=[Defect(code="malformed_row", message=e.message)]) for e in errors]
        for row in rows:
            record, env = await import_row(row.value, row.ref, sandbox=sandbox, model=model)
            if env is not None:
                write_env(env, out_dir)
            records.append(record)
    records.sort(key=lambda r: (r.ref.rsplit(":", 1)[0], int(r.ref.rsplit(":", 1)[1])))
    (out_dir / "import_report.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in records), encoding="utf-8")
    return records
