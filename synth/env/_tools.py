"""Stage 4: a validated tool per sub-question (document, complexity scaling, golden call, code).

The code loop is: write -> static checks -> run the golden call(s) in the sandbox (output
must contain the sub-answer; two fresh sessions must agree) -> on failure, feed the failure
back and rewrite, up to `code_retries` times; then reject with the last failure's code.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import anyio
import jsonschema
from jsonschema.validators import validator_for
from pydantic import BaseModel, ConfigDict, ValidationError

from agent_sdk import ChatMessage, format_validation_error
from mcp_servers import CheckCode, Environment, GoldenCall, Source, Subtask, Task, ToolSpec, answer_in_output, normalize_answer
from synth.core import ReplyCheck, ask_structured, string_leaves
from synth.core.values import call_values, fits_parameter, parameter_kind, without_id_word
from synth.env import _schemas, prompts
from synth.env._code import check_code, render_module
from synth.env._table import (
    OtherInputs,
    TableRows,
    answer_field,
    data_key,
    inputs_schema,
    key_parameters,
    new_keys,
    render_table_tool,
    rows_problem,
    rows_schema,
)
from synth.env.config import SynthConfig
from synth.env.records import Failure, Sample, SubQuestion, SynthTool, ToolDoc
from synth.exceptions import CodeProblem

_ERROR_KINDS = {
    "invalid_arguments": "golden_call_invalid_args",
    "unknown_tool": "golden_call_error",
    "exception": "golden_call_error",
    "timeout": "timeout",
    "crash": "crash",
    "memory": "crash",
    "oversized_output": "golden_call_error",
}


class DocReply(BaseModel):
    """A tool document designed for one sub-question."""

    tool: ToolDoc


class ArgumentsReply(BaseModel):
    """The arguments of the golden call (validated against the tool's parameters by `arguments_problem`)."""

    model_config = ConfigDict(extra="allow")


@dataclass(frozen=True, kw_only=True)
class Member:
    """One sub-question a tool must answer: its golden call and expected answer."""

    sub: SubQuestion
    arguments: dict[str, Any]


_MAX_VALUES = 200


def grounded_values(sample: Sample, sub: SubQuestion) -> list[str]:
    """The values a golden call for `sub` may take (`call_values`), at most `_MAX_VALUES`."""
    answers = [q.answer for q in sample.sub_questions if q.id in sub.depends_on]
    return call_values(sample.question, answers, sub.question)[:_MAX_VALUES]


_SCHEMA_KEYWORDS = frozenset({"default", "description", "enum", "items", "parameters", "properties", "required", "type"})


def doc_problem(doc: ToolDoc, answer: str) -> str | None:
    """Why a tool document is unusable (None when fine)."""
    try:
        ToolSpec(name=doc.name, description=doc.description, input_schema=doc.parameters)
    except ValidationError as exc:
        return f"invalid tool document: {format_validation_error(exc)}"
    if keyword := next((k for k in doc.parameters.get("properties") or {} if k in _SCHEMA_KEYWORDS), None):
        # the 1.5B teacher, asked for optional parameters, added ones named `required` and `enum`
        return f"parameter {keyword!r} is named for a JSON Schema keyword; name each parameter for the value it takes"
    shown = doc.description + " " + json.dumps(doc.parameters, ensure_ascii=False)
    if len(normalize_answer(answer)) >= 3 and answer_in_output(answer, shown):
        return "the tool document reveals the answer; describe the tool in general terms"
    return None


def arguments_problem(doc: ToolDoc, arguments: dict[str, Any], values: list[str]) -> str | None:
    """Why a golden call's arguments are unusable for `doc` (None when fine): they do not validate, or a
    string is neither one of the `grounded_values` nor a choice the parameter's own enum offers."""
    error = jsonschema.exceptions.best_match(validator_for(doc.parameters)(doc.parameters).iter_errors(arguments))
    if error is not None:
        return f"the golden arguments do not validate against the parameters: {error.message}"
    grounded = {normalize_answer(v) for v in values}
    properties = doc.parameters.get("properties") or {}
    given: dict[str, str] = {}
    for name, argument in arguments.items():
        for value in string_leaves(argument):
            if not (key := normalize_answer(value)):
                continue
            if key in given:
                # `origin="Boston", venue="Boston"`: a value given twice looks up nothing more than once
                return f"golden arguments {given[key]} and {name} are both {value!r}; each value fills one parameter"
            given[key] = name
    for name, argument in arguments.items():
        spec = properties.get(name) if isinstance(properties.get(name), dict) else {}
        for value in string_leaves(argument):
            if value in (spec.get("enum") or []):
                continue
            if normalize_answer(value) and normalize_answer(value) not in grounded:
                return (
                    f"golden argument {name}={value!r} is not a value the main question names or an earlier answer; "
                    f"use one of {values[:12]}"
                )
            if not fits_parameter(name, value):
                fitting = [v for v in values if fits_parameter(name, v)]
                return f"golden argument {name}={value!r} is not {_KIND.get(parameter_kind(name) or '', 'a fit')}; use one of {fitting[:12]}"
    return None


_UNGROUNDED = "golden_call_ungrounded"

CHECK_CODES: tuple[CheckCode, ...] = CheckCode.load_declarations(__name__)
"""The codes of the tool stage (it also rejects with the `verify` codes of a tool that fails in the sandbox)."""


def _ungrounded(doc: ToolDoc, values: list[str], sub: SubQuestion) -> tuple[str, str] | None:
    """`golden_call_ungrounded` with its feedback when `doc` requires a parameter no grounded value fills.

    Fed back to the document request rather than rejected at once: told, the teacher can design the
    tool a signed-in user calls without an id ("the last four digits of my saved card").
    """
    if not (missing := ungrounded_parameters(doc, values)):
        return None
    if not values:
        return _UNGROUNDED, (
            f"{doc.name} requires {missing}, but neither the main question nor an earlier answer gives the agent a value for "
            f"{sub.question!r}; require only parameters the agent has a value for, or none (the tool answers for the signed-in user)"
        )
    wanted = ", ".join(f"{name} ({_KIND.get(parameter_kind(name) or '', 'a value')})" for name in missing)
    return _UNGROUNDED, (
        f"{doc.name} requires {wanted}, but no value the agent has ({values[:12]}) is one; name each parameter for what "
        "its value is (a name, a place, a phrase), or leave it out"
    )


def named_for_values(doc: ToolDoc, values: list[str]) -> ToolDoc:
    """`doc` with each required id parameter that no value fits renamed for the values it can take:
    `player_id` -> `player`, `id` -> `name`, when the agent has values but none is an id or a code.

    Told "name each parameter for what its value is", the teacher kept `player_id` for "Kyle Kuzma" and
    `id` for 看到的房源 (3 of 11 tool-stage losses of a slice run); the value is the lookup
    key either way, and only the name says otherwise. A name another parameter already has is left alone.
    """
    if not values:
        return doc
    properties = dict(doc.parameters.get("properties") or {})
    required = list(doc.parameters.get("required") or [])
    renames = {}
    for name in ungrounded_parameters(doc, values):
        if parameter_kind(name) != "id":
            continue
        base = without_id_word(name)
        if base not in properties and base not in renames.values() and any(fits_parameter(base, v) for v in values):
            renames[name] = base
    if not renames:
        return doc
    parameters = {
        **doc.parameters,
        "properties": {renames.get(k, k): v for k, v in properties.items()},
        "required": [renames.get(k, k) for k in required],
    }
    return doc.model_copy(update={"parameters": parameters})


def ungrounded_parameters(doc: ToolDoc, values: list[str]) -> list[str]:
    """The required string parameters of `doc` (without an enum of their own) that no grounded value fits
    (`fits_parameter`): all of them when there are no values."""
    properties = doc.parameters.get("properties") or {}
    return [
        name for name in doc.parameters.get("required") or []
        if isinstance(properties.get(name), dict) and properties[name].get("type", "string") == "string" and not properties[name].get("enum")
        and not any(fits_parameter(name, v) for v in values)
    ]  # fmt: skip


_KIND = {"id": "an id or a code", "date": "a date"}
"""What a parameter of each `parameter_kind` takes, in the feedback."""


def compatible(old: ToolDoc, new: ToolDoc) -> str | None:
    """Why `new` is not a backward-compatible extension of `old` (None when it is)."""
    if new.name != old.name:
        return f"keep the tool name {old.name!r}"
    old_props = old.parameters.get("properties", {}) or {}
    new_props = new.parameters.get("properties", {}) or {}
    for key, schema in old_props.items():
        if key not in new_props:
            return f"keep the existing parameter {key!r}"
        if isinstance(schema, dict) and isinstance(new_props[key], dict) and schema.get("type") != new_props[key].get("type"):
            return f"keep the type of parameter {key!r}"
    if sorted(new.parameters.get("required", []) or []) != sorted(old.parameters.get("required", []) or []):
        return "keep the required list unchanged (new parameters must be optional)"
    if len(json.dumps(new.parameters, sort_keys=True)) <= len(json.dumps(old.parameters, sort_keys=True)):
        return "add at least one optional parameter or enum value"
    return None


def probe_env(name: str, function: str, description: str, schema: dict[str, Any], code: str, members: list[Member], sample: Sample) -> Environment:
    """A one-tool environment to run a candidate implementation in the sandbox.

    Raises:
        pydantic.ValidationError: when the document or a golden call breaks the contract.
    """
    first = members[0].sub
    return Environment.build(
        render_module([(name, function, code)]),
        domain=sample.seed.domain,
        language=sample.seed.language,
        source=Source(kind="qa", ref=sample.seed.ref),
        task=Task(question=first.question, answer=first.answer, scenario="single_hop" if len(members) == 1 else "parallel_single_hop"),
        subtasks=[
            Subtask(id=m.sub.id, question=m.sub.question, answer=m.sub.answer, golden_call=GoldenCall(tool=name, arguments=m.arguments))
            for m in members
        ],
        tools=[ToolSpec(name=name, description=description, input_schema=schema)],
    )


async def run_members(sandbox: Any, env: Environment, name: str, members: list[Member]) -> Failure | None:
    """Replay every member's golden call in two fresh sessions: answers present, outputs identical."""
    outputs: list[list[str]] = []
    for _ in range(2):
        texts = []
        async with await sandbox.open_session(env) as session:
            for m in members:
                with anyio.fail_after(env.spec.limits.call_timeout_s * 4 + 10):
                    outcome = await session.call(name, m.arguments)
                if not outcome.ok:
                    code = _ERROR_KINDS.get(outcome.error_kind or "", "golden_call_error")
                    return Failure(reason=code, detail=f"{m.sub.id}: {name}(**{json.dumps(m.arguments, ensure_ascii=False)}) failed: {outcome.text[:600]}")
                if not answer_in_output(m.sub.answer, outcome.text):
                    return Failure(
                        reason="answer_missing",
                        detail=f"{m.sub.id}: {name}(**{json.dumps(m.arguments, ensure_ascii=False)}) returned {outcome.text[:600]!r}, "
                        f"which does not contain the answer {m.sub.answer!r}",
                    )
                texts.append(outcome.text)
            if not outputs:
                leak = await _answer_elsewhere(session, name, env, members)
                if leak is not None:
                    return leak
        outputs.append(texts)
    if outputs[0] != outputs[1]:
        return Failure(reason="nondeterministic", detail=f"two fresh sessions returned different outputs: {outputs[0]!r} vs {outputs[1]!r}"[:1200])
    return None


def _variants(arguments: dict[str, Any], schema: dict[str, Any]) -> list[dict[str, Any]]:
    required = [k for k in schema.get("required", []) or [] if isinstance(arguments.get(k), str)]
    return [{**arguments, k: "zz" + arguments[k]} for k in required or [k for k, v in arguments.items() if isinstance(v, str)]]


async def _answer_elsewhere(session: Any, name: str, env: Environment, members: list[Member]) -> Failure | None:
    """The answer must not come back for other inputs (verify checks the same, later)."""
    schema = env.spec.tools[0].input_schema
    for m in members:
        for variant in _variants(m.arguments, schema):
            with anyio.fail_after(env.spec.limits.call_timeout_s * 4 + 10):
                outcome = await session.call(name, variant)
            if outcome.ok and answer_in_output(m.sub.answer, outcome.text):
                return Failure(
                    reason="answer_not_distinctive",
                    detail=f"{m.sub.id}: {name}(**{json.dumps(variant, ensure_ascii=False)}) also returned the answer "
                    f"{m.sub.answer!r}; return it only for the matching input and 'not found' otherwise",
                )
    return None


async def _probe_code(
    sandbox: Any, sample: Sample, name: str, description: str, schema: dict[str, Any], code: str, members: list[Member]
) -> str | Failure:
    """`code` when it passes the static checks and every member's golden call in the sandbox, else why not."""
    try:
        check_code(code, name, list((schema.get("properties") or {}).keys()))
        env = probe_env(name, name, description, schema, code, members, sample)
    except CodeProblem as problem:
        return Failure(reason=problem.code, detail=str(problem))
    except ValidationError as exc:
        return Failure(reason="schema_invalid", detail=format_validation_error(exc))
    result = await run_members(sandbox, env, name, members)
    return code if result is None else result


async def write_code(
    model: Any, sandbox: Any, sample: Sample, *, name: str, description: str, schema: dict[str, Any], members: list[Member], config: SynthConfig
) -> str | Failure:
    """A table-backed implementation (`_table`): golden rows plus model-written ones, replayed in the sandbox.

    The model proposes other inputs, then writes their outputs under a schema that fixes the
    keys. A sandbox failure of the rendered tool (an answer that also comes back for other
    inputs, say) is fed back for new outputs; the last failure rejects.
    """
    keys = key_parameters(schema)
    golden = [(data_key(schema, m.arguments), m.sub.answer) for m in members]
    if not keys:  # a tool without parameters has one row: there is no other input to write a row for
        return await _probe_code(sandbox, sample, name, description, schema, render_table_tool(name, schema, golden, []), members)
    shown = [(tuple(str(m.arguments.get(k)) for k in keys), m.sub.answer) for m in members]
    inputs = await ask_structured(
        model, prompts.other_inputs(name, description, schema, keys, shown), OtherInputs, retries=config.retries,
        settings=config.list_sampling(), schema=inputs_schema(keys),
        check=lambda r: None if new_keys(r.model_dump(), keys, golden) else "every value repeats an input the data already has",
    )
    if inputs.value is None:
        return Failure(reason=f"code_{inputs.reason_code}", detail=inputs.detail)
    fresh = new_keys(inputs.value.model_dump(), keys, golden)
    base = prompts.tool_rows(name, description, keys, answer_field(name), shown, fresh)
    convo, failure = base, Failure(reason="code_invalid_output")
    total = config.code_retries + 1
    for attempt in range(1, total + 1):
        reply = await ask_structured(
            model, convo, TableRows, retries=config.retries, settings=config.list_sampling(),
            check=lambda r: rows_problem(r, golden, len(keys)), schema=rows_schema(fresh),
        )
        if reply.value is None:
            return Failure(reason=f"code_{reply.reason_code}", detail=reply.detail)
        code = render_table_tool(name, schema, golden, reply.value.rows)
        outcome = await _probe_code(sandbox, sample, name, description, schema, code, members)
        if not isinstance(outcome, Failure):
            return outcome
        failure = outcome
        # only the latest attempt is shown back: the conversation stays bounded for small context windows
        convo = base + [
            ChatMessage(role="assistant", content=reply.raw[:4000]),
            ChatMessage(role="user", content=f"These rows failed ({failure.reason}): {failure.detail}\n"
                f"Write the rows again (next attempt: {attempt + 1} of {total})."),
        ]
    return failure


async def synthesize_tool(model: Any, sandbox: Any, sample: Sample, sub: SubQuestion, config: SynthConfig) -> SynthTool | Failure:
    """Document, scale, call and implement one sub-question's tool."""
    values = grounded_values(sample, sub)
    check = ReplyCheck(prompts.DOC_EXAMPLE, check=lambda r: doc_problem(r.tool, sub.answer) or _ungrounded(named_for_values(r.tool, values), values, sub))
    doc_reply = await ask_structured(
        model, prompts.tool_doc(sample, sub, model, values), DocReply, retries=config.retries,
        settings=config.sampling, check=check, schema=_schemas.doc_schema(values),
    )
    if doc_reply.value is None:
        reason = check.reason(doc_reply)
        return Failure(reason=reason if reason == _UNGROUNDED else f"tool_doc_{reason}", detail=f"{sub.id}: {doc_reply.detail}")
    doc = named_for_values(doc_reply.value.tool, values)
    arguments: dict[str, Any] = {}
    if doc.parameters.get("properties"):  # a tool without parameters has one call, and nothing to ask
        args_reply = await ask_structured(
            model, prompts.golden_arguments(sample, sub, doc, values), ArgumentsReply, retries=config.retries, settings=config.sampling,
            check=lambda r: arguments_problem(doc, r.model_dump(), values), schema=_schemas.arguments_schema(doc.parameters, values),
        )
        if args_reply.value is None:
            return Failure(reason=f"golden_call_{args_reply.reason_code}", detail=f"{sub.id}: {args_reply.detail}")
        arguments = args_reply.value.model_dump()
    scaled = False
    if config.scale_complexity:
        bigger = await ask_structured(
            model, prompts.scale_doc(doc), ToolDoc, retries=config.retries, settings=config.sampling,
            check=lambda d: compatible(doc, d) or doc_problem(d, sub.answer) or arguments_problem(d, arguments, values),
            schema=_schemas.TOOL_SCHEMA,
        )
        if bigger.value is not None:
            doc, scaled = bigger.value, True
    code = await write_code(
        model, sandbox, sample, name=doc.name, description=doc.description, schema=doc.parameters,
        members=[Member(sub=sub, arguments=arguments)], config=config,
    )
    if isinstance(code, Failure):
        return Failure(reason=code.reason, detail=f"{sub.id}: {code.detail}")
    return SynthTool(
        name=doc.name, function=doc.name, description=doc.description, input_schema=doc.parameters, code=code,
        calls={sub.id: arguments}, scaled=scaled,
    )


async def synthesize_tools(model: Any, sandbox: Any, sample: Sample, config: SynthConfig) -> Sample | Failure:
    """Stage 4 for a whole sample: every sub-question that needs a tool gets one, or the sample is rejected."""
    assert sample.necessity is not None
    targets = [q for q in sample.sub_questions if sample.necessity[q.id].needs_tool]
    results: list[SynthTool | Failure | None] = [None] * len(targets)

    async def one(i: int, sub: SubQuestion) -> None:
        results[i] = await synthesize_tool(model, sandbox, sample, sub, config)

    async with anyio.create_task_group() as tg:
        for i, sub in enumerate(targets):
            tg.start_soon(one, i, sub)
    failures = [r for r in results if isinstance(r, Failure)]
    if failures:
        return failures[0]
    tools = [r for r in results if isinstance(r, SynthTool)]
    notes = [f"scaling_fallback {next(iter(t.calls))}" for t in tools if config.scale_complexity and not t.scaled]
    return sample.model_copy(update={"tools": tools, "notes": sample.notes + notes})
