"""Stage 5: merge the tools of sub-questions that share an intent, re-verify, or fall back.

Tools that are one function (`_meaning.duplicate_tool_groups`: names equal but for a numeric
suffix, or descriptions and schemas embedding at cosine >= 0.9) are merged without asking for a
grouping: into one of their own documents when every member's call fits it (`_adopt`), else into a
document the model writes; the model groups the rest by intent. A merge by intent is an
improvement, never a requirement: when the grouping request fails, or a merged tool cannot answer
every member in the sandbox, the sample keeps its unmerged tools and the event is noted. Duplicates that could not be
merged are left for the meaning checks after verify, which reject them (`duplicate_tool`).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field

from mcp_servers import CheckCode
from synth.core import ReplyCheck, ask_structured
from synth.env import _schemas, prompts
from synth.env._meaning import duplicate_tool_groups
from synth.env._tools import Member, arguments_problem, doc_problem, grounded_values, write_code
from synth.env.config import SynthConfig
from synth.env.records import Failure, Sample, SynthTool, ToolDoc


CHECK_CODES: tuple[CheckCode, ...] = CheckCode.load_declarations(__name__)
"""The code of a failed merge (noted on the sample, never a rejection)."""

class Group(BaseModel):
    """Sub-questions whose tools share one intent."""

    ids: list[str] = Field(min_length=2)
    intent: str = ""


class Groups(BaseModel):
    """The grouping judge's output (possibly no groups)."""

    groups: list[Group] = Field(default_factory=list)


class MergedDoc(BaseModel):
    """One document for a group, with a golden call per member."""

    tool: ToolDoc
    golden_calls: dict[str, dict[str, Any]]


def _groups_problem(groups: Groups, single: dict[str, SynthTool]) -> str | None:
    seen: set[str] = set()
    for g in groups.groups:
        unknown = [i for i in g.ids if i not in single]
        if unknown:
            return f"ids {unknown} are not sub-questions with their own tool (choose among {sorted(single)})"
        if seen & set(g.ids) or len(set(g.ids)) != len(g.ids):
            return "a sub-question may appear in one group only, once"
        seen |= set(g.ids)
    return None


async def _merge_group(model: Any, sandbox: Any, sample: Sample, ids: list[str], tools: dict[str, SynthTool], config: SynthConfig) -> SynthTool | Failure:
    subs = {q.id: q for q in sample.sub_questions}
    members = [subs[i] for i in ids]
    docs = [{"name": tools[i].name, "description": tools[i].description, "parameters": tools[i].input_schema} for i in ids]

    def problem(m: MergedDoc) -> str | None:
        if sorted(m.golden_calls) != sorted(ids):
            return f"golden_calls must have exactly the ids {sorted(ids)}"
        for i in ids:
            issue = doc_problem(m.tool, subs[i].answer) or arguments_problem(m.tool, m.golden_calls[i], grounded_values(sample, subs[i]))
            if issue:
                return f"{i}: {issue}"
        return None

    check = ReplyCheck(prompts.merged_doc_example(ids), check=problem)
    reply = await ask_structured(
        model, prompts.merged_doc(sample, members, docs, model), MergedDoc, retries=config.retries, settings=config.sampling,
        check=check, schema=_schemas.merged_doc_schema(ids),
    )
    if reply.value is None:
        return Failure(reason=f"merge_doc_{check.reason(reply)}", detail=reply.detail)
    doc = reply.value.tool
    code = await write_code(
        model, sandbox, sample, name=doc.name, description=doc.description, schema=doc.parameters,
        members=[Member(sub=subs[i], arguments=reply.value.golden_calls[i]) for i in ids], config=config,
    )
    if isinstance(code, Failure):
        return code
    return SynthTool(
        name=doc.name, function=doc.name, description=doc.description, input_schema=doc.parameters, code=code,
        calls={i: reply.value.golden_calls[i] for i in ids}, merged=True,
    )


async def _adopt(model: Any, sandbox: Any, sample: Sample, ids: list[str], tools: dict[str, SynthTool], config: SynthConfig) -> SynthTool | None:
    """One member's own tool serving the whole group, when every member's call already fits it (None when none fits).

    The teacher's merged documents for duplicates made a scaling filter required and broke every
    member's call (in 3 of 3 duplicate groups); one of the duplicates is
    already a document every member can call, with calls that differ.
    """
    subs = {q.id: q for q in sample.sub_questions}
    calls = {i: tools[i].calls[i] for i in ids}
    if len({json.dumps(c, sort_keys=True) for c in calls.values()}) < len(ids):
        return None  # one input with two answers: no table serves both
    values = {i: grounded_values(sample, subs[i]) for i in ids}
    members = [Member(sub=subs[i], arguments=calls[i]) for i in ids]
    for owner in ids:
        tool = tools[owner]
        doc = ToolDoc(name=tool.name, description=tool.description, parameters=tool.input_schema)
        if any(arguments_problem(doc, calls[i], values[i]) for i in ids):
            continue
        code = await write_code(model, sandbox, sample, name=doc.name, description=doc.description, schema=doc.parameters, members=members, config=config)
        if not isinstance(code, Failure):
            return SynthTool(
                name=doc.name, function=doc.name, description=doc.description, input_schema=doc.parameters, code=code,
                calls=calls, merged=True,
            )
    return None


async def merge_tools(model: Any, sandbox: Any, sample: Sample, config: SynthConfig, embedder: Any | None = None) -> Sample:
    """Stage 5: merged where a merge verifies, unmerged elsewhere.

    Args:
        embedder: a sentence-transformers model for finding duplicate tools (names only without).
    """
    tools = sample.tools or []
    if not config.merge or len(tools) < 2:
        return sample
    single = {next(iter(t.calls)): t for t in tools if len(t.calls) == 1}
    ids = list(single)
    duplicates = [[ids[i] for i in g] for g in duplicate_tool_groups([(t.name, t.description, t.input_schema) for t in single.values()], embedder)]
    notes = list(sample.notes)
    groups = [(g, " (duplicates)") for g in duplicates]
    rest = {sid: t for sid, t in single.items() if not any(sid in g for g in duplicates)}
    if len(rest) >= 2:
        listing = [(sid, {"name": t.name, "description": t.description, "parameters": t.input_schema}) for sid, t in rest.items()]
        check = ReplyCheck(prompts.GROUPS_EXAMPLE, check=lambda g: _groups_problem(g, rest))
        reply = await ask_structured(
            model, prompts.merge_groups(sample, listing, model), Groups, retries=config.retries,
            settings=config.sampling, check=check, schema=_schemas.groups_schema(list(rest)),
        )
        if reply.value is None:
            notes.append(f"merge_skipped: {check.reason(reply)}")
        else:
            groups += [(g.ids, "") for g in reply.value.groups]
    replaced: dict[str, SynthTool] = {}
    for members, why in groups:
        merged = await _adopt(model, sandbox, sample, members, single, config) if why else None
        if merged is None:
            merged = await _merge_group(model, sandbox, sample, members, single, config)
        if isinstance(merged, Failure):
            notes.append(f"merge_fallback {'+'.join(members)}{why}: {merged.reason}: {merged.detail[:300]}")
            continue
        notes.append(f"merged {'+'.join(members)}{why} into {merged.name}")
        for i in members:
            replaced[i] = merged
    if not replaced:
        return sample.model_copy(update={"notes": notes})
    out: list[SynthTool] = []
    for t in tools:
        sid = next(iter(t.calls)) if len(t.calls) == 1 else None
        new = replaced.get(sid) if sid is not None else None
        if new is None:
            out.append(t)
        elif new not in out:
            out.append(new)
    return sample.model_copy(update={"tools": out, "notes": notes})
