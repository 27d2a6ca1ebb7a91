"""Tasks by walking a world: 1-4 hops along keys and relations, answers from executing the calls.

A walk starts from a row the user names (by its name or id), from a search on one of its fields,
or from a relation followed back from a parent; it follows foreign keys; it ends on a value of the
last row or on a derived quantity. Each hop is one golden call whose arguments come only from the
question or from an earlier hop's result, and whose answer is read from the call's output. A walk
is rejected with a stable code (`WALK_REJECTIONS`) when it would not make a fair task.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from mcp_servers import (
    CheckCode,
    answer_in_output,
    generic_answer_reason,
    normalize_answer,
)
from synth.world._render import Phrasing, phrasing
from synth.world._runtime import show
from synth.world._schema import ANSWER_TYPES, Entity, FieldSpec, World, label_text
from synth.world._tools import WorldTool, field_meta, plural_name, ref_short

__all__ = ["CHECK_CODES", "SCENARIOS", "WALK_REJECTIONS", "Step", "Walk", "WalkRejected", "WalkSpec", "Walker"]

Scenario = Literal["single_hop", "parallel_single_hop", "multi_hop", "parallel_multi_hop"]
SCENARIOS: tuple[Scenario, ...] = ("single_hop", "parallel_single_hop", "multi_hop", "parallel_multi_hop")
CHECK_CODES: tuple[CheckCode, ...] = CheckCode.load_declarations(__name__)
"""The codes a walk is rejected with (`repeated_answer` is the meaning check's: two hops answer the same value)."""
WALK_REJECTIONS: dict[str, str] = {c.code: c.meaning for c in CHECK_CODES} | {"repeated_answer": "two hops answer the same value"}
_STRING_SEARCH = frozenset({"name", "code", "date", "time"})
"""Fields a walk may start a search from: an enum is shared by many rows, so it never names one."""


_AMOUNT = re.compile(r"(?:[A-Z]{3} )?\d+(?:\.\d+)?(?: ?[^\d\s-]{1,12})?")
"""A value asked with "how much" (多少): an amount, a count or a measure, not a date, a time or a code."""
_DISTINCT = 0.8
"""Share of distinct values a field needs before a walk names a row by it: a user says "the airport in Lyon",
not "the subdivision whose category is Prefecture" (a category that a sample of rows happens to hold once)."""


def _names_rows(entity: Entity, field: FieldSpec) -> bool:
    values = [str(r.get(field.name)) for r in entity.rows or [] if r.get(field.name) not in (None, "")]
    return bool(values) and len(set(values)) >= _DISTINCT * len(values)


_SECRET = re.compile(r"password|passcode|\bpin\b|cvv|secret|token|密码|口令|验证码", re.IGNORECASE)


def _secret(field: FieldSpec) -> bool:
    """A password or a PIN: no service tells it, so no task asks for it."""
    labels = field.label.values() if isinstance(field.label, dict) else [field.label]
    return any(_SECRET.search(text) for text in (field.name, *labels))


class WalkRejected(Exception):
    """A walk that would not make a fair task; `code` is one of `WALK_REJECTIONS`."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, kw_only=True)
class Step:
    """One hop: a golden call, its sub-question and the answer read from its output."""

    id: str
    tool: str
    arguments: dict[str, Any]
    question: str
    answer: str
    depends_on: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Walk:
    """A task: the main question and answer, its hops, and the values the question gives."""

    scenario: Scenario
    language: str
    question: str
    answer: str
    steps: tuple[Step, ...]
    given: tuple[str, ...]
    shape: str
    hops: int
    """Hops of one branch (a parallel walk has two branches of this length)."""


@dataclass(frozen=True)
class WalkSpec:
    """A path shape: where the walk starts, the foreign keys it follows, and what it ends on."""

    start: Literal["handle", "search", "follow"]
    entity: str
    search_field: str | None = None
    via: str | None = None
    fks: tuple[str, ...] = ()
    end: tuple[str, str] = ("field", "")
    count: int | None = None

    @property
    def hops(self) -> int:
        title_only = self.start == "search" and self.end == ("title", "")
        return (0 if self.start == "handle" else 1) + len(self.fks) + (0 if title_only else 1)


@dataclass
class _Branch:
    steps: list[Step] = field(default_factory=list)
    given: list[str] = field(default_factory=list)
    phrase: str = ""
    what: str = ""
    extra: str = ""
    value: str = ""
    rows: list[str] = field(default_factory=list)


class Walker:
    """Samples walks over one world in one language, executing each call on the rows.

    Args:
        world: a world with rows.
        language: the language of the questions ("en" or "zh").
        tools: the world's compiled tools (`compile_tools`).
        namespace: the executed module of those tools (`environment_code` run with `exec`).
    """

    def __init__(self, world: World, language: str, tools: list[WorldTool], namespace: dict[str, Any]) -> None:
        self.world, self.language, self.ns = world, language, namespace
        self.say: Phrasing = phrasing(language)
        self.tools = {t.spec.name: t for t in tools}

    def label(self, value: Any) -> str:
        return label_text(value, self.language)

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return self.ns[tool](**arguments)

    # --- specs -----------------------------------------------------------------------

    def _readable(self, entity: Entity) -> bool:
        """Whether the environment can read `entity`'s rows: its lookup may have been dropped as a near-duplicate of another tool."""
        return f"get_{entity.name}" in self.tools

    def _ends(self, entity: Entity) -> list[tuple[str, str]]:
        fields = entity.fields if self._readable(entity) else []
        ends = [("field", f.name) for f in fields if f.type in ANSWER_TYPES and f.name != entity.key and not _secret(f)]
        ends += [("derived", d.name) for d in self.world.derived if d.entity == entity.name and f"compute_{d.name}" in self.tools]
        return ends

    def _starts(self, single: bool) -> list[WalkSpec]:
        starts: list[WalkSpec] = []
        for e in self.world.entities:
            starts.append(WalkSpec("handle", e.name))
            if f"search_{plural_name(e.name)}" in self.tools:
                title = e.title_field
                for f in e.fields:
                    if f.type in _STRING_SEARCH and f.name != e.key and (title is None or f.name != title.name) and _names_rows(e, f):
                        starts.append(WalkSpec("search", e.name, search_field=f.name, end=("title", "") if single and title else ("field", "")))
        if not single:
            for child, via, parent in self.world.relations:
                if f"list_{plural_name(child.name)}_by_{ref_short(via)}" in self.tools:
                    starts.append(WalkSpec("follow", parent.name, via=f"{child.name}.{via.name}"))
        return starts

    def spec(self, hops: int, rng: random.Random) -> WalkSpec:
        """A random path of `hops` hops (raises `WalkRejected('no_walk')` when none fits)."""
        for _ in range(40):
            start = rng.choice(self._starts(single=hops == 1))
            if start.end == ("title", ""):
                if hops == 1:
                    return start
                continue
            entity = self.world.entity(start.via.split(".")[0]) if start.via else self.world.entity(start.entity)
            fks: list[str] = []
            pre = 0 if start.start == "handle" else 1
            while pre + len(fks) + 1 < hops:
                refs = [f for f in entity.fields if f.type == "ref"] if self._readable(entity) else []  # type: ignore[union-attr,arg-type]
                if not refs:
                    break
                ref = rng.choice(refs)
                fks.append(ref.name)
                entity = self.world.entity(ref.ref or "")
            if pre + len(fks) + 1 != hops:
                continue
            ends = self._ends(entity)  # type: ignore[arg-type]
            if not ends:
                continue
            end = rng.choice(ends)
            count = None
            if end[0] == "derived":
                d = next(d for d in self.world.derived if d.name == end[1])
                count = rng.randint(2, d.argument_max) if d.kind == "product" else None
            return replace(start, fks=tuple(fks), end=end, count=count)
        raise WalkRejected("no_walk", f"no path of {hops} hops in world {self.world.name}")

    # --- running a spec on rows ------------------------------------------------------

    def _handle(self, entity: Entity, row: dict[str, Any]) -> str:
        title = entity.title_field
        if title is None or row.get(title.name) in (None, ""):
            return str(row[entity.key])
        value = str(row[title.name])
        same = [r for r in entity.rows or [] if normalize_answer(str(r.get(title.name, ""))) == normalize_answer(value)]
        if len(same) > 1:
            raise WalkRejected("ambiguous_question", f"{len(same)} {entity.name} rows are named {value!r}")
        return value

    def _step(self, branch: _Branch, prefix: str, tool: str, arguments: dict[str, Any], question: str, answer: str,
              depends: tuple[str, ...]) -> str:  # fmt: skip
        output = json.dumps(self.call(tool, arguments), ensure_ascii=False, sort_keys=True)
        if not answer or not answer_in_output(answer, output):
            raise WalkRejected("missing_value", f"{tool}({arguments}) does not return {answer!r}")
        sid = f"{prefix}{len(branch.steps) + 1}"
        branch.steps.append(Step(id=sid, tool=tool, arguments=arguments, question=question, answer=answer, depends_on=depends))
        return sid

    def run(self, spec: WalkSpec, rng: random.Random, prefix: str, avoid: set[str]) -> _Branch:
        """Execute `spec` from a random row not in `avoid`."""
        say, branch = self.say, _Branch()
        entity = self.world.entity(spec.entity)
        assert entity is not None and entity.rows
        row = rng.choice([r for r in entity.rows if str(r[entity.key]) not in avoid] or entity.rows)
        branch.rows.append(str(row[entity.key]))
        depends: tuple[str, ...] = ()
        if spec.start == "handle":
            value = self._handle(entity, row)
            phrase = sub = say.named(self.label(entity.label), value)
            branch.given.append(value)
        elif spec.start == "search":
            f = entity.field(spec.search_field or "")
            assert f is not None
            wanted = str(row.get(f.name) or "")
            if not wanted:
                raise WalkRejected("missing_value", f"{entity.name}.{f.name} is empty")
            tool = f"search_{plural_name(entity.name)}"
            found = self.call(tool, {f.name: wanted})
            if found.get("count") != 1:
                raise WalkRejected("ambiguous_question", f"{found.get('count')} {entity.name} rows have {f.name} {wanted!r}")
            branch.given.append(wanted)
            phrase = say.searched(self.label(entity.label), self.label(f.label), wanted)
            if spec.end == ("title", ""):
                title = entity.title_field
                assert title is not None
                branch.what, branch.phrase, branch.value = self.label(title.label), phrase, str(row[title.name])
                self._step(branch, prefix, tool, {f.name: wanted}, say.value_question(branch.what, phrase), branch.value, ())
                return branch
            key = str(row[entity.key])
            depends = (self._step(branch, prefix, tool, {f.name: wanted}, say.id_question(phrase), key, ()),)
            value, sub = key, say.named(self.label(entity.label), key)
        else:
            child_name, via_name = (spec.via or "").split(".")
            child = self.world.entity(child_name)
            assert child is not None
            value = self._handle(entity, row)
            branch.given.append(value)
            tool = f"list_{plural_name(child_name)}_by_{ref_short(child.field(via_name))}"  # type: ignore[arg-type]
            listed = self.call(tool, {entity.name: value})
            if listed.get("count") != 1:
                raise WalkRejected("ambiguous_question", f"{entity.name} {value!r} has {listed.get('count')} {child_name} rows")
            key = str(listed[plural_name(child_name)][0]["id"])
            phrase = say.related(self.label(child.label), say.named(self.label(entity.label), value))
            depends = (self._step(branch, prefix, tool, {entity.name: value}, say.id_question(phrase), key, ()),)
            entity, row = child, next(r for r in child.rows or [] if str(r[child.key]) == key)
            value, sub = key, say.named(self.label(child.label), key)
        for fk_name in spec.fks:
            fk = entity.field(fk_name)
            target = self.world.entity(fk.ref or "") if fk else None
            key = str(row.get(fk_name) or "")
            target_row = next((r for r in (target.rows if target else None) or [] if str(r[target.key]) == key), None)  # type: ignore[union-attr]
            if fk is None or target is None or target_row is None:
                raise WalkRejected("missing_value", f"{entity.name}.{fk_name} {key!r} points at no row")
            fk_label = self.label(fk.label)
            sid = self._step(branch, prefix, f"get_{entity.name}", {entity.name: value}, say.id_question(say.related(fk_label, sub)), key, depends)
            depends, entity, row, value = (sid,), target, target_row, key
            phrase, sub = say.related(fk_label, phrase), say.named(self.label(target.label), key)
        self._end(branch, spec, entity, row, value, sub, depends, prefix)
        branch.phrase = phrase
        return branch

    def _end(self, branch: _Branch, spec: WalkSpec, entity: Entity, row: dict[str, Any], value: str, sub: str,
             depends: tuple[str, ...], prefix: str) -> None:  # fmt: skip
        kind, name = spec.end
        if kind == "field":
            f: FieldSpec = entity.field(name)  # type: ignore[assignment]
            shown = show(field_meta(f, self.language), row.get(name))
            if shown in (None, ""):
                raise WalkRejected("missing_value", f"{entity.name}.{name} is empty")
            branch.what, branch.value = self.label(f.label), str(shown)
            self._step(branch, prefix, f"get_{entity.name}", {entity.name: value}, self.say.value_question(branch.what, sub), branch.value, depends)
            return
        d = next(d for d in self.world.derived if d.name == name)
        arguments: dict[str, Any] = {entity.name: value}
        if d.kind == "product" and d.argument:
            arguments[d.argument] = spec.count
            branch.extra = self.say.for_count(spec.count or 1, self.label(d.argument_label or d.argument))
        result = self.call(f"compute_{d.name}", arguments)
        branch.what, branch.value = self.label(d.label), str(result.get(d.name, ""))
        question = self.say.value_question(branch.what, sub, branch.extra)
        self._step(branch, prefix, f"compute_{d.name}", arguments, question, branch.value, depends)

    # --- a whole walk ----------------------------------------------------------------

    def walk(self, scenario: Scenario, rng: random.Random) -> Walk:
        """One task of `scenario`, or `WalkRejected` with the reason it is unfair."""
        parallel = scenario.startswith("parallel")
        hops = 1 if scenario.endswith("single_hop") else rng.choice((2, 2, 3, 4) if not parallel else (2, 2, 3))
        return self.walk_spec(scenario, self.spec(hops, rng), rng)

    def walk_spec(self, scenario: Scenario, spec: WalkSpec, rng: random.Random) -> Walk:
        """The task of `scenario` along `spec` from random rows (`WalkRejected` when unfair)."""
        parallel = scenario.startswith("parallel")
        hops = spec.hops
        branches = [self.run(spec, rng, "a" if parallel else "s", set())]
        if parallel:
            branches.append(self.run(spec, rng, "b", set(branches[0].rows)))
            if branches[0].given == branches[1].given:
                raise WalkRejected("repeated_answer", "both branches start from the same row")
        first = branches[0]
        numeric = bool(_AMOUNT.fullmatch(first.value))
        question = self.say.main(first.what, [b.phrase for b in branches], first.extra, rng, numeric=numeric)
        answer = self.say.answer(first.what, [(b.phrase, b.value) for b in branches], first.extra)
        steps = tuple(s for b in branches for s in b.steps)
        given = tuple(v for b in branches for v in b.given) + ((str(spec.count),) if spec.count else ())
        self._check(steps, question, given, [b.value for b in branches], hops)
        shape = f"{scenario}|{spec.start}:{spec.entity}:{spec.search_field or spec.via or ''}|{'>'.join(spec.fks)}|{spec.end[0]}:{spec.end[1]}"
        return Walk(scenario=scenario, language=self.language, question=question, answer=answer, steps=steps, given=given, shape=shape, hops=hops)

    def _check(self, steps: tuple[Step, ...], question: str, given: tuple[str, ...], finals: list[str], hops: int) -> None:
        seen: dict[str, str] = {}
        for s in steps:
            if reason := generic_answer_reason(s.answer):
                raise WalkRejected("answer_generic", f"{s.id}: {reason}")
            if answer_in_output(s.answer, question):
                raise WalkRejected("answer_in_question", f"{s.id}'s answer {s.answer!r} is stated by the question")
            key = normalize_answer(s.answer)
            if key in seen:
                raise WalkRejected("repeated_answer", f"{seen[key]} and {s.id} both answer {s.answer!r}")
            seen[key] = s.id
        if hops > 1 and (shortcut := self._shortcut(given, finals)):
            raise WalkRejected("single_call_shortcut", f"{shortcut} answers the question in one call")

    def _shortcut(self, given: tuple[str, ...], finals: list[str]) -> str | None:
        """A call of one tool with one of the question's values whose output holds a final answer."""
        for tool in self.tools.values():
            props = tool.spec.input_schema.get("properties", {})
            required = tool.spec.input_schema.get("required", [])
            if len(required) > 1:
                continue
            for name, prop in props.items():
                if prop.get("type") != "string":
                    continue
                for value in given:
                    result = self.call(tool.spec.name, {name: value})
                    if "error" in result:  # an error lists valid values; it answers nothing
                        continue
                    output = json.dumps(result, ensure_ascii=False, sort_keys=True)
                    if any(answer_in_output(final, output) for final in finals):
                        return f"{tool.spec.name}({name}={value!r})"
        return None
