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

import difflib
import itertools
import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

from jsonschema.validators import validator_for
from pydantic import BaseModel, Field

from mcp_servers import Environment, GoldenCall, Sandbox, Source, Subtask, Task, ToolOutcome, answer_in_output, dependency_order, normalize_answer
from synth.env._code import check_code, render_module
from synth.env._import_formats import Defect, ParsedRow, ParsedSubtask, ParsedTool
from synth.exceptions import CodeProblem

_QUOTED = re.compile(r'"([^"\n]+)"|“([^”\n]+)”|(?<!\w)\'([^\'\n]+)\'(?!\w)|「([^」\n]+)」|『([^』\n]+)』|《([^》\n]+)》')
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", re.ASCII)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?|\b\d{1,2}:\d{2}\b")
_MONTHS = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?"
_WRITTEN_DATE = re.compile(rf"\b{_MONTHS} \d{{1,2}}(?:st|nd|rd|th)?(?:,? \d{{4}})?\b|\b\d{{1,2}} {_MONTHS} \d{{4}}\b|\d{{4}}年\d{{1,2}}月\d{{1,2}}日")
"""A date written out ("October 18, 2024", "18 Oct 2024", 2024年10月18日): one value, not a month, a day and a year."""
_ID_NAME = re.compile(r"(?:^|_)(?:id|code|number|no|num|ref|reference|sku)$")
_DATE_NAME = re.compile(r"(?:^|_)(?:date|day)$")
_MEASURE = re.compile(r"\d+(?:\.\d+)?[- ]?(?:inch|inches|in|cm|mm|m|km|kg|g|lbs?|oz|ml|l|ft|gb|tb|mb|%)", re.IGNORECASE)
_CODE_WORD = re.compile(r"[A-Z][A-Z0-9-]{2,}")
_SLOT_WORDS = frozenset({"id", "name", "code", "number", "no", "date", "time", "type", "status", "value", "i"})
"""Words a question capitalizes that are no value: slot words ("ID"), and the pronoun "I" (`name="I", id="I"` in a probe)."""
_ID = re.compile(r"[A-Za-z0-9][\w\-/.#]*[A-Za-z0-9]|\d", re.ASCII)
_NAME = re.compile(r"[A-Z][\w\-&.]*(?:['’]s)?(?:\s+[A-Z][\w\-&.]*(?:['’]s)?)*")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_WORD = re.compile(r"[^\W\d_][\w\-]{2,}")
_CJK_RUN = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]{2,12}")
_CJK_PARTICLES = re.compile(r"[的是在了和吗呢与及或把被对从到为]")
_STOPWORDS = frozenset(
    ["a", "an", "the", "of", "in", "on", "at", "for", "to", "by", "with", "from", "and", "or", "is", "are", "was", "were", "be", "been", "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "does", "do", "did", "can", "could", "would", "should", "will", "shall", "may", "might", "this", "that", "these", "those", "it", "its", "there", "their", "his", "her", "my", "your", "our", "me", "tell", "give", "find", "show", "list", "get", "please", "about", "into", "than", "then", "also", "any", "some", "much", "many"]
)
_DATE_HINTS = ("date", "day", "time", "when", "start", "end", "from", "until")
_ID_HINTS = ("id", "code", "number", "no", "num", "ref", "key", "sku", "zip", "postal")


class SearchLimits(BaseModel):
    """Bounds on the golden-call search."""

    max_calls: int = Field(default=300, ge=1, description="Tool calls tried per subtask, across its candidate tools.")
    max_values: int = Field(default=12, ge=1, description="Candidate values kept per parameter.")


def tools_module(tools: Sequence[ParsedTool], header: str = "") -> str:
    """The `tools.py` of a row: each tool's source under its own name."""
    return render_module([(t.spec.name, t.spec.name, t.code) for t in tools], header=header)


def _unique(values: Sequence[Any]) -> list[Any]:
    seen: set[str] = set()
    out = []
    for v in values:
        key = repr(v)
        if key not in seen and v not in ("", None):
            seen.add(key)
            out.append(v)
    return out


def key_values(text: str) -> list[str]:
    """The values a text names, the most specific first: quoted spans, e-mail addresses, dates, ids, names,
    numbers and Chinese spans; never its plain words ("basketball game", "saved")."""
    quoted = [next(g for g in m.groups() if g) for m in _QUOTED.finditer(text)]
    dates = _DATE.findall(text) + _WRITTEN_DATE.findall(text)
    ids = [t for t in _ID.findall(text) if any(c.isdigit() for c in t)]
    names: list[str] = []
    for run in _NAME.findall(text):
        words = [w.removesuffix("'s").removesuffix("’s").rstrip(".") for w in run.split()]
        while words and words[0].casefold() in _STOPWORDS:
            words = words[1:]
        if words:
            names.append(" ".join(words))
            names += words if len(words) > 1 else []
    cjk: list[str] = []
    for run in _CJK_RUN.findall(text):  # no word boundaries: the run, its parts between particles, then its 2-4 character spans
        cjk += [run, *(p for p in _CJK_PARTICLES.split(run) if len(p) >= 2)]
        cjk += [run[i : i + n] for n in (2, 3, 4) for i in range(len(run) - n + 1)]
    return _unique([s.strip() for s in [*quoted, *_EMAIL.findall(text), *dates, *ids, *names, *_NUMBER.findall(text), *cjk]])


def call_values(main_question: str, answers: Sequence[str], question: str) -> list[str]:
    """The values a tool call for `question` may take: the `answers` it depends on (whole, then the values
    they name), and the values `main_question` names that `question` carries (`shared_cjk_spans` in Chinese).

    The agent is asked only the main question, so a value found nowhere else (a product id from the
    seed's text) is one it cannot call with; and a value that is a plain phrase of the sub-question
    (`product_id: "30-inch"`, `game_date: "basketball game"`, `card_id: "saved"`, 3 of the 5
    environments a session-12 slice run kept) verifies but looks nothing up.
    """
    answers = [a.strip() for a in answers]
    # Chinese values come from `shared_cjk_spans` alone: a run of `key_values` is a clause (我的公司最近的供应商有哪 was a golden `company_id`)
    latin = [v for v in whole_values(key_values(main_question)) if not _CJK_RUN.search(v)]
    named = [v for v in latin if answer_in_output(v, question)] + shared_cjk_spans(question, main_question)
    values = [*answers, *(v for a in answers for v in whole_values(key_values(a))), *named]
    # a slot word ("ID" of "the internal player ID of ...") names what is asked, not a value: it was a golden `id`
    return [v for v in dict.fromkeys(values) if normalize_answer(v) and v.casefold() not in _SLOT_WORDS]


def fits_parameter(name: str, value: str) -> bool:
    """Whether `value` can fill a parameter called `name`: an id or code takes a code or a number (not a place,
    a slot word or a measure: `game_id="TD Garden"`, `id="ID"`, `id="30-inch"` were golden calls of a
    final slice run), a date takes a date (not a year: `date="2024"`); any other parameter takes any value."""
    value = value.strip()
    kind = parameter_kind(name)
    if kind == "id":
        dated = _DATE.fullmatch(value) or _WRITTEN_DATE.fullmatch(value)
        numbered = any(c.isdigit() for c in value) and not _MEASURE.fullmatch(value) and not dated
        return numbered or bool(_CODE_WORD.fullmatch(value))
    if kind == "date":
        return bool(_DATE.fullmatch(value) or _WRITTEN_DATE.fullmatch(value))
    return True


def parameter_kind(name: str) -> str | None:
    """"id" for a parameter named as an id or code (`order_id`, `station_code`), "date" for a date (`game_date`), else None."""
    key = name.casefold()
    return "id" if _ID_NAME.search(key) else "date" if _DATE_NAME.search(key) else None


def whole_values(values: list[str]) -> list[str]:
    """`values` less those that are part of another ("Johann" of "Johann Gruber", "2024" of "2024-10-28"):
    a part of a value is not one (`day: "Johann"` was a golden argument in a final run)."""
    return [v for v in values if not any(v != other and v in other for other in values)]


def shared_cjk_spans(text: str, other: str) -> list[str]:
    """The longest Chinese spans `text` shares with `other` that can be a value: Chinese has no spaces to
    cut a value such as 故宫博物院 out of a question, but it recurs whole where it is meant.

    A shared span is not a value when it is a clause (over 8 characters: 房屋租赁合同是什么时候到), too
    short to name one thing (实验, 供应商), or holds a pronoun, a question word, a verb of need or a slot
    noun (我的公司, 实验需要, 工单编号): each was a golden `id` in a final slice run.
    """
    blocks = difflib.SequenceMatcher(None, text, other, autojunk=False).get_matching_blocks()
    spans = [text[b.a : b.a + b.size] for b in blocks]
    runs = [m for span in spans for m in _CJK_RUN.findall(span)]
    return _unique([m for m in runs if _CJK_VALUE_CHARS[0] <= len(m) <= _CJK_VALUE_CHARS[1] and not _CJK_NOT_VALUE.search(m)])


_CJK_VALUE_CHARS = (4, 8)
_CJK_NOT_VALUE = re.compile(r"[我你您他她它]|什么|多少|哪|几|吗|怎|需要|编号|号码|名称|名字|时间|费用|价格|状态|地址|城市|信息|情况")


def text_values(text: str) -> list[str]:
    """Strings a sub-question offers as argument values, the most specific first: its `key_values`, then its words."""
    words = [w for w in _WORD.findall(text) if w.casefold() not in _STOPWORDS]
    pairs = [f"{a} {b}" for a, b in itertools.pairwise(words)]
    return _unique([*key_values(text), *words, *pairs])


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
        return _unique([*mentioned, *schema["enum"]])[:limit]
    if "boolean" in _types(schema):
        return [True, False]
    hint = f"{name} {schema.get('description', '')} {schema.get('format', '')}".casefold()
    wants_date = any(h in hint for h in _DATE_HINTS)
    wants_id = any(re.search(rf"(?<![a-z]){h}(?![a-z])", hint) for h in _ID_HINTS)

    def affinity(value: str) -> int:
        if wants_date and _DATE.fullmatch(value):
            return 0
        if wants_id and any(c.isdigit() for c in value) and not _DATE.fullmatch(value):
            return 0
        return 1

    ranked = sorted(from_text, key=affinity)
    values = [c for v in [*from_deps, *ranked] for c in _coerce(v, schema)]
    if "default" in schema:
        values.insert(len(from_deps), schema["default"])
    return _unique(values)[:limit]


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
