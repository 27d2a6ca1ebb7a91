"""Prompts of every synth/env stage. Each returns the chat messages for one request.

Prompts are in English and tell the model which language to write in, so one set of
prompts serves English and Chinese samples alike.
"""

from __future__ import annotations

import json
from typing import Any

from agent_sdk import ChatMessage

from synth.env.records import CheckName, Sample, Seed, SubQuestion, ToolDoc

_LANG = {"en": "English", "zh": "Simplified Chinese"}

SYSTEM = (
    "You build training data for tool-using AI agents. You answer with exactly the JSON object "
    "requested, with no commentary."
)


def _language(code: str) -> str:
    return _LANG.get(code, code)


def _messages(user: str) -> list[ChatMessage]:
    return [ChatMessage(role="system", content=SYSTEM), ChatMessage(role="user", content=user)]


EXAMPLE_TRACE: dict[str, Any] = {
    "main_question": "How many seats does the aircraft that operates flight LH400 have?",
    "final_answer": "364",
    "sub_questions": [
        {"id": "q1", "question": "Which aircraft type operates flight LH400?", "answer": "Boeing 747-8", "depends_on": []},
        {"id": "q2", "question": "How many seats does a Boeing 747-8 have?", "answer": "364", "depends_on": ["q1"]},
    ],
}
"""The format example of the decompose prompt (small models tend to copy it; the stage rejects copies)."""
_TRACE_EXAMPLE = json.dumps(EXAMPLE_TRACE, ensure_ascii=False)


def decompose(seed: Seed) -> list[ChatMessage]:
    """Write (or take) a main question and decompose it into a trace of atomic sub-questions."""
    hops = f"between {seed.min_hops} and {seed.max_hops}" if seed.min_hops != seed.max_hops else str(seed.min_hops)
    if seed.mode == "question":
        task = f"Decompose this user question from the domain '{seed.domain}':\n{seed.question}\n\nUse it (lightly edited if needed) as main_question."
    elif seed.mode == "corpus":
        task = (
            f"Domain: {seed.domain}\nKnowledge corpus:\n{seed.knowledge_corpus}\n\n"
            "Write one realistic user question grounded in this corpus that an agent can only answer by looking things up."
        )
    else:
        task = f"Domain: {seed.domain}\n\nWrite one realistic user question from this domain that an agent can only answer by looking things up."
    return _messages(
        f"{task}\n\n"
        f"Break the main question into {hops} sub-questions (hops). Each sub-question asks for one atomic fact "
        "(a name, number, date, code or short phrase) and gets a concrete, plausible answer that you invent if "
        "needed; tools will later be built to return exactly these answers. A sub-question that needs the answer "
        "of another lists that one's id in depends_on and uses its answer literally in its own text. Sub-questions "
        "that do not depend on each other must not be chained. final_answer answers the main question.\n"
        f"Write every question and answer in {_language(seed.language)}.\n\n"
        f"Example of the format:\n{_TRACE_EXAMPLE}"
    )


def _trace(sample: Sample) -> str:
    return json.dumps(
        {
            "main_question": sample.question,
            "final_answer": sample.answer,
            "sub_questions": [q.model_dump(exclude={"parallel"}) for q in sample.sub_questions],
        },
        ensure_ascii=False,
        indent=1,
    )


def necessity(sample: Sample) -> list[ChatMessage]:
    """Decide per sub-question whether answering it needs a tool call."""
    return _messages(
        f"Question decomposition:\n{_trace(sample)}\n\n"
        "For every sub-question decide whether answering it requires calling an external tool (an API, a database, "
        "a live service) — needs_tool true — or can be answered by pure reasoning over the answers of its "
        "dependencies or common knowledge — needs_tool false. Give a short reason for each.\n"
        'Format: {"items": [{"id": "q1", "needs_tool": true, "reason": "..."}, ...]} covering every id exactly once.'
    )


CHECK_CRITERIA: dict[CheckName, str] = {
    "dependency": (
        "Dependency: every sub-question's depends_on lists exactly the sub-questions whose answers it needs — "
        "no missing dependency, no superfluous one — and each dependency's answer supplies what it needs."
    ),
    "atomicity": (
        "Atomicity: every sub-question asks for one indivisible fact with a single concrete answer; "
        "none bundles two lookups."
    ),
    "serialization": (
        "Forced serialization: no sub-question is chained to another it does not actually need; steps that "
        "could run in parallel are not artificially made sequential."
    ),
    "completeness": (
        "Completeness: the sub-questions together cover everything needed to answer the main question, "
        "and the final answer follows from their answers."
    ),
}


def check(sample: Sample, name: CheckName) -> list[ChatMessage]:
    """One of the four quality checks, judged as a score in [0, 1] with a reason."""
    return _messages(
        f"Question decomposition:\n{_trace(sample)}\n\nJudge this criterion only.\n{CHECK_CRITERIA[name]}\n\n"
        "Score from 0.0 (clearly violated) to 1.0 (fully satisfied) and explain briefly.\n"
        'Format: {"score": 0.0, "reason": "..."}'
    )


def _context(sample: Sample, sub: SubQuestion) -> str:
    deps = {d: next(q.answer for q in sample.sub_questions if q.id == d) for d in sub.depends_on}
    return (
        f"Domain: {sample.seed.domain}\nMain question: {sample.question}\n"
        f"Sub-question ({sub.id}): {sub.question}\nIts answer: {sub.answer}\n"
        f"Answers of its dependencies: {json.dumps(deps, ensure_ascii=False) if deps else 'none'}"
    )


_DOC_EXAMPLE = json.dumps(
    {
        "tool": {
            "name": "get_city_weather",
            "description": "Get the current weather conditions for a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string", "description": "City name"}},
                "required": ["city"],
            },
        },
        "golden_arguments": {"city": "Paris"},
    }
)


def tool_doc(sample: Sample, sub: SubQuestion) -> list[ChatMessage]:
    """Design a reusable tool for one sub-question, plus the call that answers it."""
    return _messages(
        f"{_context(sample, sub)}\n\n"
        "Design one reusable API tool an agent would call to answer this sub-question: a snake_case name, a general "
        "description (never mention this question's specific values or its answer), and parameters as a JSON Schema "
        "object. Then give golden_arguments: the arguments for answering this sub-question, taken only from the "
        "sub-question text and the answers of its dependencies.\n"
        f"Format example:\n{_DOC_EXAMPLE}"
    )


def scale_doc(doc: ToolDoc) -> list[ChatMessage]:
    """Make a tool document more realistic without breaking existing calls."""
    return _messages(
        f"Tool document:\n{doc.model_dump_json()}\n\n"
        "Make this tool more realistic, like a production API: add one to three OPTIONAL parameters (filters, units, "
        "language, limits) or enum values. Keep the name, every existing parameter with its type, and the required "
        "list unchanged, so existing calls stay valid.\n"
        'Format: {"name": "...", "description": "...", "parameters": {...}}'
    )


def tool_code(name: str, schema: dict[str, Any], calls: list[tuple[dict[str, Any], str]], description: str) -> list[ChatMessage]:
    """Write the implementation of a tool so that each golden call returns its answer."""
    expectations = "\n".join(
        f"- {name}(**{json.dumps(args, ensure_ascii=False)}) must return output containing exactly: {answer}" for args, answer in calls
    )
    return _messages(
        f"Implement this tool in Python.\nName: {name}\nDescription: {description}\n"
        f"Parameters (JSON Schema): {json.dumps(schema, ensure_ascii=False)}\n\n{expectations}\n\n"
        f"Rules: define a top-level function `def {name}(...)` taking the parameters as keyword arguments (optional "
        "ones with defaults) and returning a dict. Use only the Python standard library. Be deterministic: no "
        "random, time, datetime.now, uuid, os, files or network. Keep the data in a dict literal inside the code, "
        "with a few other plausible entries besides the ones above; for unknown inputs return "
        '{"error": "not found"}. Match string inputs case-insensitively. Do not use global statements.\n'
        "Reply with one ```python code block only."
    )


def merge_groups(sample: Sample, tools: list[tuple[str, ToolDoc | dict[str, Any]]]) -> list[ChatMessage]:
    """Find sub-questions whose tools share one intent."""
    listing = "\n".join(f"- {sid}: {json.dumps(doc, ensure_ascii=False)}" for sid, doc in tools)
    return _messages(
        f"Main question: {sample.question}\nTools designed per sub-question:\n{listing}\n\n"
        "Group the sub-questions whose tools have the same intent (the same kind of lookup on different inputs), "
        "so that one tool can serve them all. Leave tools with different intents ungrouped.\n"
        'Format: {"groups": [{"ids": ["q1", "q3"], "intent": "..."}]} (an empty list when nothing should merge).'
    )


def merged_doc(sample: Sample, members: list[SubQuestion], docs: list[dict[str, Any]]) -> list[ChatMessage]:
    """One tool document covering every member, with a golden call per member."""
    contexts = "\n\n".join(_context(sample, m) for m in members)
    return _messages(
        f"{contexts}\n\nTools designed so far:\n{json.dumps(docs, ensure_ascii=False)}\n\n"
        "These sub-questions share one intent. Design ONE reusable tool that answers all of them, and give the golden "
        "arguments for each sub-question id (taken only from that sub-question and its dependencies' answers).\n"
        'Format: {"tool": {"name": "...", "description": "...", "parameters": {...}}, "golden_calls": {"q1": {...}, "q2": {...}}}'
    )
