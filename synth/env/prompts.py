"""Prompts of every synth/env stage, written for small models: short, concrete, one task each.

Each function returns the chat messages of one request. Prompts are in English and name the
language to write in, so one set serves English and Chinese samples alike. Format examples hold
`<placeholders>` and failing values, and each example is a `PromptExample` so the stage rejects a
reply that copies it (`copied_example`). The decomposer alone is also shown a worked example, as
an earlier turn in a domain no input is from (`_demos`): told the rules alone, the teacher broke
the hardest of them in almost every reply.
A builder that shows an example takes the model it is for and shows it through
`PromptExample.format_section`: only when the model's engine does not enforce the schema.
"""

from __future__ import annotations

import json
from typing import Any

from agent_sdk import ChatMessage, ChatModel
from synth.core import VERDICT_WORDS, PromptExample
from synth.env._demos import demonstration
from synth.env._meaning import known_to_user
from synth.env.records import LANGUAGE_NAMES, CheckName, Sample, Seed, SubQuestion, ToolDoc

_IN_LANGUAGE = {"zh": "用简体中文写所有问题和答案。"}
"""The language instruction in the language itself: told in English only, the teacher wrote 8 of 10 Chinese-domain
decompositions in English (`wrong_language`)."""

SYSTEM = "You write training data for AI agents that use tools. Reply with JSON only."


def _language(code: str) -> str:
    return LANGUAGE_NAMES.get(code, code)


def _messages(user: str) -> list[ChatMessage]:
    return [ChatMessage(role="system", content=SYSTEM), ChatMessage(role="user", content=user)]


DECOMPOSE_EXAMPLE = PromptExample(
    {
        "main_question": "<the user's question>",
        "sub_questions": [
            {"id": "q1", "depends_on": [], "question": "<first sub-question>", "statement": "<the fact>", "answer": "<its value>"},
            {"id": "q2", "depends_on": ["q1"], "question": "<second sub-question, with {q1} where q1's answer goes>",
             "statement": "<the fact>", "answer": "<its value>"},
        ],
        "final_answer": "<its answer, stating the values found>",
    },
    feedback="you copied the format example; write your own question and sub-questions with real content",
)
"""The decompose format: placeholders only."""


def decompose(seed: Seed, model: ChatModel) -> list[ChatMessage]:
    """Write (or take) a main question and split it into atomic sub-questions, after a worked example.

    The example (`_demos`) is an earlier turn: the same request for a library row, and its reply.
    A dependent sub-question may write `{q1}` where q1's answer goes (the pipeline fills it in):
    asked to copy the answer into the text, the 1.5B teacher described it instead ("the train
    found above") and 6 of 10 traces were rejected as `unused_dependency`. What the row says the
    user knows is repeated apart, as values no sub-question asks for: left in the text, the teacher
    asked for it ("What is your name?", the patient id) in 16 of 50 slice rows (`answer_known`).
    """
    demo = demonstration(seed.language)
    return [
        *_messages(_decompose_request(demo.seed, model)),
        ChatMessage(role="assistant", content=demo.text),
        ChatMessage(role="user", content=_decompose_request(seed, model)),
    ]


def _decompose_request(seed: Seed, model: ChatModel) -> str:
    lo = seed.fewest_hops
    hops = f"{lo} to {seed.max_hops}" if lo != seed.max_hops else str(lo)
    if seed.mode == "question":
        task = f"Domain: {seed.domain}\nMain question: {seed.question}\nUse this question as main_question (fix its wording if needed)."
    elif seed.mode == "corpus":
        task = (
            f"Domain: {seed.domain}\nText:\n{seed.knowledge_corpus}\n\nWrite one question about this text that a user would ask "
            "an assistant with lookup tools, asking for specific values (times, prices, codes, names, counts)."
        )
        if known := known_to_user(seed.knowledge_corpus):
            task += f"\nThe user already knows: {known}\nNo sub-question asks for these; the user says the ones a lookup needs in main_question, and the sub-questions that need them name them."
    else:
        task = (
            f"Domain: {seed.domain}\nWrite one question from this domain that a user would ask an assistant with lookup tools, "
            "asking for specific values (times, prices, codes, names, counts)."
        )
    if native := _IN_LANGUAGE.get(seed.language):
        task = f"{native}\n{task}"
    return (
        f"{task}\n\n"
        f"Break the main question into {hops} sub-questions, each answered by one lookup in a database or service. Rules:\n"
        "- Each sub-question asks for one fact about one thing; every sub-question is needed to answer the main question.\n"
        "- A lookup is keyed on a value: one the user gave (write it into the sub-question) or an earlier answer. "
        "The user's own details are such keys, never sub-questions.\n"
        "- statement gives the fact in one sentence (invent a plausible one if needed); answer is then only its value "
        "(a number with its unit, a time, a date, a name or a code), never a sentence, never yes, no, none or TBD: ask for "
        "the value that decides it instead (a status word such as 'shipped', a count, a date). Different facts have different values.\n"
        "- If a sub-question needs an earlier one's answer, put that id in depends_on and write the id in braces, "
        "like {q1}, where that answer goes in its text.\n"
        "- Independent sub-questions have empty depends_on.\n"
        "- main_question is a question, ending with a question mark.\n"
        "- final_answer answers the main question in one sentence that states the answers of the sub-questions "
        "no other sub-question uses, and no value they did not find.\n"
        f"Write all questions and answers in {_language(seed.language)}."
        + DECOMPOSE_EXAMPLE.format_section(model, "replace every <...>")
    )


def trace_lines(sample: Sample) -> str:
    """The sample's question, answer and sub-questions as short lines (no JSON for the model to parse)."""
    lines = [f"Main question: {sample.question}", f"Final answer: {sample.answer}", "Sub-questions:"]
    for q in sample.sub_questions:
        uses = f" (uses {', '.join(q.depends_on)})" if q.depends_on else ""
        lines.append(f"{q.id}{uses}: {q.question} -> {q.answer}")
    return "\n".join(lines)


def necessity_example(ids: list[str]) -> PromptExample:
    """The necessity format for these ids, with values that fail (no tool anywhere)."""
    return PromptExample({"items": [{"id": i, "needs_tool": False, "reason": "<why>"} for i in ids]})


def necessity(sample: Sample, model: ChatModel, ids: list[str] | None = None) -> list[ChatMessage]:
    """Decide for the sub-questions `ids` (default all) whether answering them needs a tool call.

    Only leaves are asked about (`_judge.necessity`): a sub-question whose answer feeds another
    is a lookup by construction. The answers are not shown and the question is about the
    assistant, not the text: shown the trace with its answers, the 1.5B teacher judged "the last
    four digits of my saved card" answerable without a tool, because the answer was given
    (8 of 17 slice traces lost as `no_tool_needed`).
    """
    ids = ids or [q.id for q in sample.sub_questions]
    listing = "\n".join(f"{q.id}: {q.question}" for q in sample.sub_questions if q.id in ids)
    return _messages(
        f"A user asks an assistant: {sample.question}\nTo answer, the assistant must find:\n{listing}\n\n"
        "The assistant knows only common knowledge. It knows nothing about this user, their accounts, orders, bookings "
        "or records, and nothing about today's schedules, prices, stock, weather or status: those are only in a "
        "database or a live service it reaches with a tool call. For every id decide needs_tool: true when finding "
        "the answer needs such a lookup, false only for common knowledge or arithmetic on numbers the user gave. "
        f"Give one item per id ({', '.join(ids)}): first a short reason, then needs_tool."
        + necessity_example(ids).format_section(model, "replace <why>")
    )


CHECK_CRITERIA: dict[CheckName, str] = {
    "dependency": "Dependency: each sub-question's 'uses' lists exactly the sub-questions whose answers it needs, no more, no fewer.",
    "atomicity": "Atomicity: each sub-question asks for one fact with one concrete answer; none asks for two things.",
    "serialization": "Serialization: no sub-question depends on another it does not need; independent steps are not chained.",
    "completeness": "Completeness: the final answer states the values the main question asks for, and they follow from the sub-answers.",
    "coherence": "Coherence: the sub-questions, once answered, answer the main question, and every one of them serves it.",
}

CHECK_EXAMPLE = PromptExample({"reason": "<one sentence>", "verdict": "no"})
"""The check format: the verdict shown fails every threshold."""


def check(sample: Sample, name: CheckName, model: ChatModel) -> list[ChatMessage]:
    """One quality check, judged as a reason, then a word verdict (`VERDICTS`)."""
    return _messages(
        f"{trace_lines(sample)}\n\nJudge this criterion only.\n{CHECK_CRITERIA[name]}\n\n"
        "reason: one sentence on whether the criterion holds, naming the sub-question at fault if any. Then verdict: "
        f"{VERDICT_WORDS}."
        + CHECK_EXAMPLE.format_section(model, "replace the values")
    )


def hop_needed(sample: Sample, sub: SubQuestion, model: ChatModel) -> list[ChatMessage]:
    """The coherence check asked of one sub-question: does the main question need its answer?

    Asked of the whole trace at once, the teacher ranked a trace with an unrelated lookup ("How long
    is the Gotthard Base Tunnel?") above its good twin (coherence alone: 3 of 4 pairs, the bad twins
    scored higher on average).
    """
    listing = "\n".join(f"{q.id}: {q.question} -> {q.answer}" for q in sample.sub_questions)
    users = [q.id for q in sample.sub_questions if sub.id in q.depends_on]
    use = f" ({', '.join(users)} use its answer)" if users else ""
    return _messages(
        f"A user asks an assistant: {sample.question}\nThe assistant plans these lookups:\n{listing}\n"
        f"and then answers: {sample.answer}\n\n"
        f"Judge lookup {sub.id} only{use}: is its answer needed to answer the user's question, directly or through a "
        "lookup that uses it?\nreason: one sentence on what the user asked and what this lookup finds. Then verdict: "
        f"{VERDICT_WORDS}."
        + CHECK_EXAMPLE.format_section(model, "replace the values")
    )


def _context(sample: Sample, sub: SubQuestion) -> str:
    deps = [f"{d} -> {q.answer}" for d in sub.depends_on for q in sample.sub_questions if q.id == d]
    return (
        f"Domain: {sample.seed.domain}\nMain question: {sample.question}\n"
        f"Sub-question ({sub.id}): {sub.question}\nIts answer: {sub.answer}\n"
        f"Answers of its dependencies: {'; '.join(deps) if deps else 'none'}"
    )


DOC_EXAMPLE = PromptExample(
    {
        "tool": {
            "name": "your_tool_name",
            "description": "<what the tool does, in general words>",
            "parameters": {"type": "object", "properties": {"<param>": {"type": "string", "description": "<meaning>"}}, "required": ["<param>"]},
        },
    },
    markers=["your_tool_name", "<what the tool does, in general words>", "<meaning>"],
)
"""The tool-document format: placeholders only."""


def _keys_line(values: list[str]) -> str:
    if not values:
        return "The agent has no value for this call: the tool takes no required parameter (it answers for the signed-in user)."
    return f"Values the agent has for this call: {', '.join(values)}"


def tool_doc(sample: Sample, sub: SubQuestion, model: ChatModel, values: list[str]) -> list[ChatMessage]:
    """Design a reusable tool for one sub-question (its call is asked for next, `golden_arguments`).

    The prompt lists the values the call can take (`_tools.grounded_values`): designed without them,
    the tool asked for a `product_id` the user never gave, and the call was filled with "30-inch".
    """
    return _messages(
        f"{_context(sample, sub)}\n{_keys_line(values)}\n\n"
        "Design one reusable API tool an agent would call to answer this sub-question:\n"
        "- name: what the tool does, as a snake_case verb phrase (get_..., search_..., find_..., convert_...);\n"
        "- description: what it does in general (never this question's values or its answer);\n"
        "- parameters: the inputs the call needs, named for what the agent's values are (an id parameter only for "
        "an id, a name parameter for a name), in snake_case, each with a type and a description."
        + DOC_EXAMPLE.format_section(model, "replace every <...> and the name")
    )


def golden_arguments(sample: Sample, sub: SubQuestion, doc: ToolDoc, values: list[str]) -> list[ChatMessage]:
    """The arguments of the call to `doc` that answers `sub` (the reply's schema is `doc`'s parameters)."""
    return _messages(
        f"{_context(sample, sub)}\n{_keys_line(values)}\n\nTool: {_tool_line(doc)}\n"
        f"Parameters: {json.dumps(doc.parameters, ensure_ascii=False)}\n\n"
        f"Write the arguments of the call to {doc.name} that answers sub-question {sub.id}. Each value is one of the "
        "agent's values above, copied whole."
    )


def scale_doc(doc: ToolDoc) -> list[ChatMessage]:
    """Make a tool document more realistic without breaking existing calls."""
    return _messages(
        f"Tool document:\n{doc.model_dump_json()}\n\n"
        "Make this tool more realistic, like a production API: add one to three OPTIONAL parameters, each named for "
        "what it sets (a filter, a unit, a language or a limit, e.g. currency or max_results), or enum values. Keep the "
        "name, every existing parameter with its type, and the required list unchanged.\nReply with the whole new tool document: a JSON object with name, description and parameters."
    )


def other_inputs(name: str, description: str, schema: dict[str, Any], keys: list[str], golden: list[tuple[tuple[str, ...], str]]) -> list[ChatMessage]:
    """Other plausible values of a table-backed tool's key parameters (`_table`), besides the golden ones."""
    taken = "\n".join(f"- {dict(zip(keys, key, strict=True))}" for key, _ in golden)
    return _messages(
        f"Tool: {name}({', '.join(keys)}): {description}\nParameters (JSON Schema): {json.dumps(schema, ensure_ascii=False)}\n\n"
        f"Its data already has these inputs:\n{taken}\n\n"
        f"For each of {', '.join(keys)}, give 4 other plausible values, each different from the inputs above and from each other."
    )


def tool_rows(name: str, description: str, keys: list[str], field: str, golden: list[tuple[tuple[str, ...], str]], new: list[tuple[str, ...]]) -> list[ChatMessage]:
    """The outputs of a table-backed tool for new inputs (`_table`), beside its golden rows.

    The golden rows are named by their inputs only: shown a golden value, the 0.5B model gave
    it to every new input.
    """
    return _messages(
        f"Tool: {name}({', '.join(keys)}): {description}\n\n"
        f"Its data table has rows for {', '.join(str(list(k)) for k, _ in golden)}. Write the rows of these other inputs: "
        f"{', '.join(str(list(k)) for k in new)}. For each, value is that input's {field} (realistic, and different for "
        "each input), details (optional) a short note about it."
    )


GROUPS_EXAMPLE = PromptExample({"groups": [{"ids": ["<id>", "<id>"], "intent": "<the shared kind of lookup>"}]})
"""The merge-grouping format: placeholder ids, which name no sub-question."""


def merge_groups(sample: Sample, tools: list[tuple[str, ToolDoc | dict[str, Any]]], model: ChatModel) -> list[ChatMessage]:
    """Find sub-questions whose tools share one intent."""
    listing = "\n".join(f"- {sid}: {_tool_line(doc)}" for sid, doc in tools)
    return _messages(
        f"Main question: {sample.question}\nTools designed per sub-question:\n{listing}\n\n"
        "Group the sub-questions whose tools have the same intent (the same kind of lookup on different inputs), "
        "so that one tool can serve them all. Leave tools with different intents out. "
        f"Use only these ids: {', '.join(sid for sid, _ in tools)}. Reply with no groups when no tools share an intent."
        + GROUPS_EXAMPLE.format_section(model, "replace every <...>")
    )


def _tool_line(doc: ToolDoc | dict[str, Any]) -> str:
    data = doc.model_dump() if isinstance(doc, ToolDoc) else doc
    params = ", ".join((data.get("parameters") or {}).get("properties", {}) or {})
    return f"{data.get('name')}({params}): {data.get('description')}"


def merged_doc_example(ids: list[str]) -> PromptExample:
    """The merged-document format for these member ids: placeholders only."""
    return PromptExample(
        {
            "tool": {
                "name": "your_tool_name",
                "description": "<what the tool does, in general words>",
                "parameters": {"type": "object", "properties": {"<param>": {"type": "string"}}, "required": ["<param>"]},
            },
            "golden_calls": {i: {"<param>": f"<value for {i}>"} for i in ids},
        },
        markers=["your_tool_name", "<what the tool does, in general words>", *(f"<value for {i}>" for i in ids)],
    )


def merged_doc(sample: Sample, members: list[SubQuestion], docs: list[dict[str, Any]], model: ChatModel) -> list[ChatMessage]:
    """One tool document covering every member, with a golden call per member."""
    contexts = "\n\n".join(_context(sample, m) for m in members)
    listing = "\n".join(f"- {_tool_line(d)}" for d in docs)
    return _messages(
        f"{contexts}\n\nTools designed so far:\n{listing}\n\n"
        "These sub-questions share one intent. Design ONE reusable tool that answers all of them, and give the golden "
        "call arguments for each sub-question id (values copied from that sub-question or its dependencies' answers)."
        + merged_doc_example([m.id for m in members]).format_section(model, "replace every <...> and the name")
    )
