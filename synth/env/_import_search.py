"""Establishing golden calls for sub-questions that have none, only by running the row's own tools.

For each such subtask (in dependency order) the search draws candidate argument values from
the sub-question text (quoted spans, dates, ids, numbers, names, words), the answers of the
subtasks it depends on, and the schema (enums, consts, defaults, booleans); it calls each tool
with assignments of them in a fresh sandbox session (after replaying the golden calls made
before it, so stateful tools see the state their call would see), and keeps the first call
whose output contains the answer (`mcp_servers.answer_in_output`) while its arguments do not
(an echo proves nothing) — and only if a replay in another fresh session returns the same output.

Outcomes reported per subtask: a call reached the answer but its replay differs
(`nondeterministic`); no call reached it and a tool's output changes between sessions or its
code reads time or randomness (`nondeterministic` for the tool, `answer_missing` for the
subtask: the answer cannot be reproduced); no call reached it otherwise (`golden_call_missing`).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

from jsonschema.validators import validator_for
from pydantic import BaseModel, Field

from mcp_servers import (
    Environment,
    GoldenCall,
    Sandbox,
    Source,
    Subtask,
    Task,
    ToolOutcome,
    answer_in_output,
    dependency_order,
)
from synth.core.values import ISO_DATE, STOPWORDS, key_values, unique_values
from synth.env._code import check_code, render_module
from synth.env._import_formats import Defect, ParsedRow, ParsedSubtask, ParsedTool
from synth.exceptions import CodeProblem

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_WORD = re.compile(r"[^\W\d_][\w\-]{2,}")
_DATE_HINTS = ("date", "day", "time", "when", "start", "end", "from", "until")
_ID_HINTS = ("id", "code", "number", "no", "num", "ref", "key", "sku", "zip", "postal")


class SearchLimits(BaseModel):
    """Bounds on the golden-call search."""

    max_calls: int = Field(default=300, ge=1, description="Tool calls tried per subtask, across its candidate tools.")
    max_values: int = Field(default=12, ge=1, description="Candidate values kept per parameter.")


def tools_module(tools: Sequence[ParsedTool], header: str = "") -> str:
    """The `tools.py` of a row: each tool's source under its own name."""
    return render_module([(t.spec.name, t.spec.name, t.code) for t in tools], header=header)


def text_values(text: str) -> list[str]:
    """Strings a sub-question offers as argument values, the most specific first: its `key_values`, then its words."""
    words = [w for w in _WORD.findall(text) if w.casefold() not in STOPWORDS]
    pairs = [f"{a} {b}" for a, b in itertools.pairwise(words)]
    return unique_values([*key_values(text), *words, *pairs])


def _types(schema: dict[str, Any]) -> list[str]:
    kind = schema.get("type")
    return kind if isinstance(kind, list) else [kind] if isinstance(kind, str) else ["string"]


def _coerce(value: Any, schema: dict[str, Any]) -> list[Any]:
    """`value` as each JSON type the parameter accepts (a number from its text, an item in a list)."""
    out: list[Any] = []
    text = str(value).strip()
    for kind in _types(schema):
        if kind == "string":
            out.append(text)
        elif kind in {"integer", "number"} and _NUMBER.fullmatch(text.replace(",", "")):
            number = float(text.replace(",", ""))
            out.append(int(number) if kind == "integer" or number.is_integer() else number)
        elif kind == "array" and isinstance(schema.get("items"), dict):
            out += [[v] for v in _coerce(value, schema["items"])]
    return out


def parameter_values(name: str, schema: dict[str, Any], from_deps: Sequence[str], from_text: Sequence[str], limit: int) -> list[Any]:
    """Candidate values of one parameter, most likely first: schema-fixed values, dependency
    answers, then the sub-question's strings (dates first for a date parameter, ids for an id)."""
    if "const" in schema:
        return [schema["const"]]
    if isinstance(schema.get("enum"), list):
        mentioned = [v for v in schema["enum"] if str(v).casefold() in " ".join(from_text).casefold()]
        return unique_values([*mentioned, *schema["enum"]])[:limit]
    if "boolean" in _types(schema):
        return [True, False]
    hint = f"{name} {schema.get('description', '')} {schema.get('format', '')}".casefold()
    wants_date = any(h in hint for h in _DATE_HINTS)
    wants_id = any(re.search(rf"(?<![a-z]){h}(?![a-z])", hint) for h in _ID_HINTS)

    def affinity(value: str) -> int:
        if wants_date and ISO_DATE.fullmatch(value):
            return 0
        if wants_id and any(c.isdigit() for c in value) and not ISO_DATE.fullmatch(value):
            return 0
        return 1

    ranked = sorted(from_text, key=affinity)
    values = [c for v in [*from_deps, *ranked] for c in _coerce(v, schema)]
    if "default" in schema:
        values.insert(len(from_deps), schema["default"])
    return unique_values(values)[:limit]


def assignments(schema: dict[str, Any], from_deps: Sequence[str], from_text: Sequence[str], limits: SearchLimits) -> Iterator[dict[str, Any]]:
    """Argument objects valid for `schema`: required parameters from their candidates (lowest
    total rank first), then each optional parameter added alone to the best of those."""
    props: dict[str, Any] = schema.get("properties") or {}
    required = [p for p in schema.get("required") or [] if p in props]
    optional = [p for p in props if p not in required]
    values = {p: parameter_values(p, props[p] if isinstance(props[p], dict) else {}, from_deps, from_text, limits.max_values) for p in props}
    if any(not values[p] for p in required):
        return
    width = limits.max_values
    while width > 1 and len(required) > 1 and width ** len(required) > 20 * limits.max_calls:
        width -= 1
    pools = [list(enumerate(values[p][:width])) for p in required]
    combos = sorted(itertools.product(*pools), key=lambda c: (sum(i for i, _ in c), max((i for i, _ in c), default=0)))
    validator = validator_for(schema)(schema)
    base: list[dict[str, Any]] = []
    for combo in combos:
        strings = [v for _, v in combo if isinstance(v, str)]
        if len(strings) != len(set(strings)):
            continue  # one phrase rarely fills two parameters; trying it wastes the budget
        args = {p: v for p, (_, v) in zip(required, combo, strict=True)}
        if validator.is_valid(args):
            base.append(args)
            yield args
    for args, name in itertools.product(base[:10], optional):
        for value in values[name]:
            extended = {**args, name: value}
            if validator.is_valid(extended):
                yield extended


def _relevance(tool: ParsedTool, question: str) -> int:
    words = {w.casefold() for w in _WORD.findall(question)}
    described = f"{tool.spec.name.replace('_', ' ')} {tool.spec.description} {' '.join(tool.spec.input_schema.get('properties') or {})}"
    return -len(words & {w.casefold() for w in _WORD.findall(described)})


def _probe_env(row: ParsedRow) -> Environment:
    """The row's tools as an environment the sandbox can run (its one subtask is a placeholder)."""
    return Environment.build(
        tools_module(row.tools),
        domain="import-probe",
        source=Source(kind="import"),
        task=Task(question=row.query, answer="-", scenario="single_hop"),
        subtasks=[Subtask(id="probe", question="-", answer="-", needs_tool=False)],
        tools=[t.spec for t in row.tools],
    )


def _calls(tool: ParsedTool, deps: Sequence[str], texts: Sequence[str], limits: SearchLimits) -> Iterator[GoldenCall]:
    for args in assignments(tool.spec.input_schema, deps, texts, limits):
        yield GoldenCall(tool=tool.spec.name, arguments=args)


def _round_robin(streams: Sequence[Iterator[GoldenCall]]) -> Iterator[GoldenCall]:
    """The best candidate of every tool, then the second best of every tool, ...: one tool
    with many parameters cannot spend the whole budget before the others are tried."""
    active = list(streams)
    while active:
        for stream in list(active):
            call = next(stream, None)
            if call is None:
                active.remove(stream)
            else:
                yield call


class _Runner:
    """Runs calls of one row's tools, each in a fresh session after replaying a prefix."""

    def __init__(self, env: Environment, sandbox: Sandbox) -> None:
        self.env = env
        self.sandbox = sandbox

    async def run(self, prefix: Sequence[GoldenCall], call: GoldenCall) -> ToolOutcome:
        async with await self.sandbox.open_session(self.env) as session:
            for earlier in prefix:
                await session.call(earlier.tool, earlier.arguments)
            return await session.call(call.tool, call.arguments)


async def establish_golden_calls(row: ParsedRow, sandbox: Sandbox, limits: SearchLimits) -> tuple[dict[str, GoldenCall], list[Defect]]:
    """Golden calls found for the row's subtasks that need a tool and have none, and a defect
    for each subtask left without one (see the module docstring)."""
    wanted = [s for s in row.subtasks if s.needs_tool and s.golden_call is None and s.searchable]
    if not wanted or not row.tools:
        return {}, [Defect(code="golden_call_missing", subtask_id=s.id, message="the row has no usable tool to call") for s in wanted]
    runner = _Runner(_probe_env(row), sandbox)
    static = {}
    for t in row.tools:
        try:
            check_code(t.code, t.spec.name, list(t.spec.input_schema.get("properties") or {}))
        except CodeProblem as exc:
            if exc.code == "nondeterministic":
                static[t.spec.name] = str(exc)
    by_id = {s.id: s for s in row.subtasks}
    wanted_ids = {s.id for s in wanted}
    found: dict[str, GoldenCall] = {}
    defects: list[Defect] = []
    flagged: set[str] = set()
    prefix: list[GoldenCall] = []
    for sub in dependency_order(row.subtasks):
        call = sub.golden_call or found.get(sub.id)
        if call is None and sub.id in wanted_ids:
            deps = [by_id[d].answer for d in sub.depends_on if d in by_id]
            call, problems = await _search(sub, deps, row, runner, prefix, limits, static)
            for p in problems:
                if p.code == "nondeterministic" and p.subtask_id is None:
                    if p.tool in flagged:
                        continue
                    flagged.add(p.tool or "")
                defects.append(p)
            if call is not None:
                found[sub.id] = call
        if call is not None:
            prefix.append(call)
    return found, defects


async def _search(
    sub: ParsedSubtask, deps: list[str], row: ParsedRow, runner: _Runner, prefix: list[GoldenCall],
    limits: SearchLimits, static: dict[str, str],
) -> tuple[GoldenCall | None, list[Defect]]:
    tools = [t for t in row.tools if t.spec.name == sub.tool] if sub.tool else sorted(row.tools, key=lambda t: _relevance(t, sub.question))
    texts = text_values(sub.question)
    streams = [_calls(t, deps, texts, limits) for t in tools]
    first_ok: dict[str, tuple[GoldenCall, str]] = {}
    first_error: dict[str, str] = {}
    tried = 0
    for call in itertools.islice(_round_robin(streams), limits.max_calls):
        tried += 1
        outcome = await runner.run(prefix, call)
        if not outcome.ok:
            first_error.setdefault(call.tool, outcome.text)
            continue
        first_ok.setdefault(call.tool, (call, outcome.text))
        # an output that only echoes an argument holding the answer proves nothing about the tool
        if answer_in_output(sub.answer, outcome.text) and not answer_in_output(sub.answer, json.dumps(call.arguments, ensure_ascii=False)):
            again = await runner.run(prefix, call)
            if again.ok and again.text == outcome.text:
                return call, []
            return None, [Defect(code="nondeterministic", subtask_id=sub.id, tool=call.tool,
                                 message=f"{call.tool}({call.arguments}) returned the answer once, then {again.text[:200]!r} in a fresh session")]
    unstable = {n: why for n, why in static.items() if n in {t.spec.name for t in tools}}
    for name, (call, text) in first_ok.items():
        if name in unstable:
            continue
        again = await runner.run(prefix, call)
        if not again.ok or again.text != text:
            unstable[name] = f"{name}({call.arguments}) returned {text[:120]!r}, then {again.text[:120]!r} in a fresh session"
    if unstable:
        problems = [Defect(code="nondeterministic", tool=name, message=why) for name, why in unstable.items()]
        return None, [*problems, Defect(code="answer_missing", subtask_id=sub.id, message=f"answer {sub.answer!r} is in no output of "
                                          f"{tried} calls and cannot be reproduced: {', '.join(unstable)} output changes between sessions")]
    where = f"{tried} calls of {', '.join(t.spec.name for t in tools)}" if tried else "no valid call could be formed"
    failing = "".join(f"; every call of {n} failed, first: {e[:200]!r}" for n, e in first_error.items() if n not in first_ok)
    return None, [Defect(code="golden_call_missing", subtask_id=sub.id, message=f"answer {sub.answer!r}: no call reaches it ({where}; "
                         f"values from the sub-question, its dependencies' answers and the schemas){failing}")]
