"""Stage 3: tasks — chain-conditioned and server-only questions, augmentation, quality scores.

Chain-conditioned tasks are written for one verified chain and must need every tool in it;
server-only tasks need at least `k` of the server's tools. Either states the values its tools need
from the user (`chain_inputs`): a request without an id or date its first calls take is sent back.
Each base task can be augmented: `diverse` (new context, same tools), `complicate` (more
constraints), `persona` (rewritten in the voice of a persona from a small local file). A task in a different language than its
server is rejected, and every task is scored on question quality, scenario realism and
tool-use necessity; only tasks at or above every per-score threshold are kept.

Format examples hold placeholders, and the scoring example scores 1 (below every threshold);
a prompt shows its example only to a model that does not enforce the schema
(`PromptExample.format_section`), and a reply that copies it fails as `copied_example`.
Schemas are built per call: how many requests, which tool names, score ranges.
"""

from __future__ import annotations

import dataclasses
import random
import re
from pathlib import Path
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agent_sdk import SamplingSettings, read_jsonl
from synth.core import VERDICT_TOP_LOGPROBS, VERDICT_WORDS, YES_NO, PromptExample, ReplyCheck, StructuredResult, VerdictReader, record_id, verdict_schema
from synth.core.values import fits_parameter, key_values, parameter_kind
from synth.sft._docs import ServerDoc
from synth.sft._graph import ChainInput, chain_inputs, tool_lines
from synth.sft._request_shape import request_problem

Augmentation = Literal["none", "diverse", "complicate", "persona"]


class TaskScores(BaseModel):
    """Scores (1-5) of one task."""

    question_quality: float = Field(ge=1, le=5, description="Clear, specific, self-contained, answerable.")
    scenario_realism: float = Field(ge=1, le=5, description="A real person would plausibly ask this.")
    tool_necessity: float = Field(ge=1, le=5, description="Cannot be answered without calling the tools.")
    reason: str = ""


class TaskThresholds(BaseModel):
    """Minimum score per dimension for a task to be kept."""

    model_config = ConfigDict(frozen=True)

    question_quality: int = Field(default=3, ge=1, le=5)
    scenario_realism: int = Field(default=3, ge=1, le=5)
    tool_necessity: int = Field(default=3, ge=1, le=5)

    def failures(self, scores: TaskScores) -> list[str]:
        """Names of the dimensions below threshold."""
        return [k for k in type(self).model_fields if getattr(scores, k) < getattr(self, k)]


class SynthTask(BaseModel):
    """A generated task."""

    id: str
    server_id: str
    kind: Literal["chain", "server"]
    question: str
    target_tools: list[str]
    chain: list[str] | None = None
    augmentation: Augmentation = "none"
    parent: str | None = Field(default=None, description="The base task an augmentation rewrote.")
    persona: str | None = None
    language: str = "en"
    unit: str = Field(default="", description="The generation unit that produced it (for resuming).")
    scores: TaskScores | None = None


def detect_language(text: str) -> str:
    """'zh' when the text is mostly CJK, 'ja' for kana, else 'en' (enough to catch a switched language)."""
    cjk = len(re.findall(r"[\u3400-\u9fff]", text))
    kana = len(re.findall(r"[\u3040-\u30ff]", text))
    letters = len(re.findall(r"[A-Za-z]", text))
    if kana > 3:
        return "ja"
    return "zh" if cjk * 3 > letters and cjk > 3 else "en"


def language_problem(text: str, language: str) -> str | None:
    """An error when `text` is not in `language` (only en/zh/ja are told apart)."""
    found = detect_language(text)
    want = language if language in ("en", "zh", "ja") else "en"
    return None if found == want else f"the question is in {found!r} but must be in {want!r}"


def missing_inputs(text: str, inputs: Sequence[ChainInput]) -> list[ChainInput]:
    """The id and date inputs (`parameter_kind`) for which `text` states no fitting value: "my credit card"
    gives no `customer_id`, "tomorrow afternoon" no `date` an agent can send."""
    values = key_values(text)
    return [i for i in inputs if parameter_kind(i.name) and not any(fits_parameter(i.name, v) for v in values)]


def input_lines(inputs: Sequence[ChainInput]) -> str:
    """The inputs as a prompt line: `name (description)`, comma-separated."""
    return ", ".join(f"{i.name} ({i.description})" if i.description else i.name for i in inputs) or "(none)"


def _question_problem(text: str, language: str, tool_names: Sequence[str], inputs: Sequence[ChainInput] = ()) -> str | None:
    """The feedback for a generated question: its language, then `request_problem`, then `missing_inputs`."""
    if problem := language_problem(text, language):
        return problem
    if found := request_problem(text, tool_names):
        return found[1]
    if missing := missing_inputs(text, inputs):
        first = missing[0]
        return f"the request gives no {first.name} for {first.tool} ({first.description or 'a value the user knows'}): write the user's own value"
    return None


def load_personas(path: str | Path) -> list[str]:
    """Personas from a JSONL file of `{"persona": "..."}` lines.

    Raises:
        JsonlError: (a `ValueError`) naming the file and line of a malformed record.
    """
    return [str(p) for p in read_jsonl(path, lambda record: record["persona"]).values]


class _Questions(BaseModel):
    questions: list[str] = Field(min_length=1)


class _ServerTask(BaseModel):
    question: str = Field(min_length=8)
    tools: list[str] = Field(min_length=1)


class _ServerTasks(BaseModel):
    tasks: list[_ServerTask] = Field(min_length=1)


class _Rewrite(BaseModel):
    question: str = Field(min_length=8)


_LANG = {"en": "English", "zh": "Chinese", "ja": "Japanese"}

_CHAIN = """Write {n} realistic user requests for an assistant with the tools of "{name}" ({description}).
Each request must need ALL of these tools, in this order: {chain}
(later calls use what earlier calls return). Tools:
{tools}
Ideas: {sketches}
Each request states the user's own value of each of: {inputs}. Make the values up, concrete and realistic (a real date, a real-looking number), never a placeholder; never mention tool names or ids the user could not know. Write in {language}.{format}"""

_SERVER = """Write {n} realistic user requests for an assistant with these tools of "{name}" ({description}):
{tools}
Each request must need at least {k} different tools; list the tool names it needs. Give the details a user would know; never mention tool names in the request. Write in {language}.{format}"""

_AUGMENT = {
    "diverse": "Rewrite the request for a different situation and context (new names, places, goals) that needs the same tools.",
    "complicate": "Rewrite the request adding one or two realistic constraints or conditions (budgets, preferences, deadlines, comparisons) so it needs more careful tool use, still with the same tools.",
    "persona": "Rewrite the request as this person would ask it, in their voice and circumstances: {persona}",
}

_SCORE = """A user sends this request to an assistant whose only tools are those of "{name}":
{tools}

Request: {question}

Answer:
- wanted (first): what the user wants done or looked up, in a few words;
- first_tool: the tool the assistant must call first to do it, or "none" when no tool of the list does it;
- covers: "yes" when the description of first_tool says it does what is wanted, "no" when it does something else (or first_tool is "none");
- known_answer: the answer when the request itself and common knowledge give it (arithmetic on the user's own numbers, general facts), otherwise "lookup";
- needs_tools: "yes" when answering needs a lookup or an action through a tool, "no" when known_answer already answers it;
- reason: one sentence on whether this tool server can serve the request;
- clear: is the request clear and specific, with the details the tool calls need? ({words});
- realistic: would a real person send it? ({words}).{format}"""

SCORE_EXAMPLE = PromptExample(
    {"wanted": "<a few words>", "first_tool": "none", "covers": "no", "known_answer": "lookup", "needs_tools": "no",
     "reason": "<one sentence>", "clear": "no", "realistic": "no"}
)  # fmt: skip
"""The scoring format: no tool, no need of one, "no" everywhere: below every threshold."""


def score_schema(tool_names: Sequence[str]) -> dict[str, Any]:
    """The scorer's reply: `first_tool` one of `tool_names` or "none"."""
    note = {"type": "string", "minLength": 1, "maxLength": 200}
    yes_no = {"type": "string", "enum": ["yes", "no"]}
    return _object(
        {
            "wanted": note,
            "first_tool": {"type": "string", "enum": [*sorted(tool_names), "none"]},
            "covers": yes_no,
            "known_answer": note,
            "needs_tools": yes_no,
            "reason": {"type": "string", "minLength": 1, "maxLength": 300},
            "clear": verdict_schema(),
            "realistic": verdict_schema(),
        }
    )


_POINTS = {"yes": 5.0, "mostly": 4.0, "partly": 2.0, "no": 1.0}
"""A verdict as a 1-5 task score: "mostly" keeps a task (threshold 3), "partly" does not."""

Verdict = Literal["yes", "mostly", "partly", "no"]


class _ScoreReply(BaseModel):
    wanted: str = ""
    first_tool: str
    covers: Literal["yes", "no"] = "yes"
    known_answer: str = ""
    needs_tools: Literal["yes", "no"]
    reason: str = ""
    clear: Verdict
    realistic: Verdict

    def scores(self, reader: VerdictReader | None = None, tools: Sequence[str] = ()) -> TaskScores:
        """Tool necessity holds when a tool of the server does it and the request cannot be answered without one.

        Asked to rate necessity on a scale, the teacher wrote the same verdicts for a task and its
        off-server or trivial twin (10 of 10 pairs tied); naming the first tool, saying whether its
        description covers what is wanted and trying to answer without tools are smaller questions.
        With the reply's token probabilities (`reader`), each answer counts as the model's
        probability of it, and necessity is the least of the three (all must hold). Their product
        compounded the teacher's soft yeses (0.55-0.8 each) into a rejection of 191 of 196 tasks.
        """
        reader = reader or VerdictReader(None)
        named = reader.score("first_tool", self.first_tool, {**dict.fromkeys(tools, 1.0), "none": 0.0})
        if named is None:
            named = float(self.first_tool != "none")
        needed = min(named, reader.score("covers", self.covers, YES_NO) or 0.0, reader.score("needs_tools", self.needs_tools, YES_NO) or 0.0)
        return TaskScores(
            question_quality=reader.score("clear", self.clear, _POINTS) or 1, scenario_realism=reader.score("realistic", self.realistic, _POINTS) or 1,
            tool_necessity=1 + 4 * needed, reason=self.reason,
        )  # fmt: skip


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


_REQUEST = {"type": "string", "minLength": 8, "maxLength": 600}


def questions_example(n: int) -> PromptExample:
    """The chain-task format for `n` requests: placeholders only."""
    return PromptExample({"questions": [f"<request {i}>" for i in range(1, n + 1)]})


def questions_schema(n: int) -> dict[str, Any]:
    """One to `n` requests."""
    return _object({"questions": {"type": "array", "items": _REQUEST, "minItems": 1, "maxItems": max(1, n)}})


def server_tasks_example(k: int) -> PromptExample:
    """The server-task format: placeholders only."""
    return PromptExample({"tasks": [{"question": "<request>", "tools": ["<tool name>"] * max(2, k)}]})


def server_tasks_schema(names: set[str], n: int, k: int) -> dict[str, Any]:
    """One to `n` tasks, each naming at least `k` of the server's tools."""
    tools = {"type": "array", "items": {"enum": sorted(names)}, "minItems": k, "maxItems": max(k, len(names)), "uniqueItems": True}
    return _object({"tasks": {"type": "array", "items": _object({"question": _REQUEST, "tools": tools}), "minItems": 1, "maxItems": max(1, n)}})


REWRITE_EXAMPLE = PromptExample({"question": "<the rewritten request>"})
REWRITE_SCHEMA: dict[str, Any] = _object({"question": _REQUEST})


def _settings(max_tokens: int, temperature: float = 0.8) -> SamplingSettings:
    # No per-request seed: vLLM's CPU backend kills its engine on seeded requests
    # ("CPU Generator does not use offset"); the response cache already makes re-runs repeat.
    return SamplingSettings(temperature=temperature, max_tokens=max_tokens)


async def chain_tasks(
    model: object, server: ServerDoc, chain: list[str], sketches: list[str], *, n: int = 2, max_tokens: int = 700
) -> tuple[list[SynthTask], StructuredResult[_Questions]]:
    """Tasks that need exactly `chain`, each stating the values its steps need from the user (`chain_inputs`)."""
    inputs = chain_inputs(server, chain)
    example = questions_example(n)
    prompt = _CHAIN.format(
        n=n,
        name=server.name,
        description=server.description,
        chain=" -> ".join(chain),
        tools=tool_lines(server),
        sketches="; ".join(sketches) or "(none)",
        inputs=input_lines(inputs),
        language=_LANG.get(server.language, server.language),
        format=example.format_section(model, "replace every <...>"),
    )

    names = [t.name for t in server.tools]

    def check(value: _Questions) -> str | None:
        problems = [_question_problem(q, server.language, names, inputs) for q in value.questions]
        return None if any(p is None for p in problems) else problems[0]

    guard = ReplyCheck(example, check=check)
    result = await guard.ask(model, prompt, _Questions, settings=_settings(max_tokens), schema=questions_schema(n))
    tasks = []
    good = [q for q in (result.value.questions if result.value else []) if q.strip() and _question_problem(q, server.language, names, inputs) is None]
    for q in good[:n]:
        tasks.append(
            SynthTask(
                id=record_id([server.id, chain, q], "task-"),
                server_id=server.id,
                kind="chain",
                question=q.strip(),
                target_tools=list(dict.fromkeys(chain)),
                chain=chain,
                language=server.language,
            )
        )
    return tasks, result


async def server_tasks(
    model: object, server: ServerDoc, *, n: int = 2, k: int = 2, max_tokens: int = 700
) -> tuple[list[SynthTask], StructuredResult[_ServerTasks]]:
    """Tasks that need at least `k` of the server's tools."""
    names = {t.name for t in server.tools}
    example = server_tasks_example(k)
    prompt = _SERVER.format(
        n=n,
        name=server.name,
        description=server.description,
        tools=tool_lines(server),
        k=k,
        language=_LANG.get(server.language, server.language),
        format=example.format_section(model, "replace every <...>"),
    )

    def problem(t: _ServerTask) -> str | None:
        unknown = sorted(set(t.tools) - names)
        if unknown:
            return f"unknown tool names {unknown}; use only {sorted(names)}"
        if len(set(t.tools)) < k:
            return f"each task must need at least {k} different tools; {t.tools} has {len(set(t.tools))}"
        return _question_problem(t.question, server.language, sorted(names), chain_inputs(server, t.tools))

    def check(value: _ServerTasks) -> str | None:
        # Usable when at least one task passes; the others are dropped below, never kept.
        problems = [problem(t) for t in value.tasks]
        return None if any(p is None for p in problems) else next(p for p in problems if p)

    guard = ReplyCheck(example, check=check)
    result = await guard.ask(model, prompt, _ServerTasks, settings=_settings(max_tokens), schema=server_tasks_schema(names, n, k))
    valid = [t for t in (result.value.tasks if result.value else []) if problem(t) is None]
    tasks = [
        SynthTask(
            id=record_id([server.id, t.question], "task-"),
            server_id=server.id,
            kind="server",
            question=t.question.strip(),
            target_tools=list(dict.fromkeys(t.tools)),
            language=server.language,
        )
        for t in valid[:n]
    ]
    return tasks, result


async def augment(
    model: object, base: SynthTask, mode: Augmentation, *, persona: str | None = None, inputs: Sequence[ChainInput] = (), max_tokens: int = 700
) -> tuple[SynthTask | None, StructuredResult[_Rewrite]]:
    """Rewrite `base` by `mode`; None (with the failed result) when the model fails, switches language or
    drops a value of `inputs` the request must keep stating."""
    instruction = _AUGMENT[mode].format(persona=persona or "")
    prompt = (
        f"Original request: {base.question}\n{instruction}\n"
        f"Keep it answerable with the same tools ({', '.join(base.target_tools)}), stating the user's own values of: {input_lines(inputs)}; never mention tool names. "
        f"Write in {_LANG.get(base.language, base.language)}."
        + REWRITE_EXAMPLE.format_section(model, "replace <...>")
    )
    guard = ReplyCheck(REWRITE_EXAMPLE, check=lambda v: _question_problem(v.question, base.language, base.target_tools, inputs))
    result = await guard.ask(model, prompt, _Rewrite, settings=_settings(max_tokens), schema=REWRITE_SCHEMA)
    if result.value is None:
        return None, result
    task = base.model_copy(
        update={
            "id": record_id([base.id, mode, result.value.question], "task-"),
            "question": result.value.question.strip(),
            "augmentation": mode,
            "parent": base.id,
            "persona": persona,
        }
    )
    return task, result


def pick_persona(personas: list[str], task_id: str, seed: int) -> str | None:
    """A persona chosen deterministically for a task."""
    if not personas:
        return None
    return random.Random(f"{seed}:{task_id}").choice(personas)


async def score_task(model: object, server: ServerDoc, task: SynthTask, *, max_tokens: int = 300) -> StructuredResult[TaskScores]:
    """Score `task`: the first tool it needs (or none), whether it needs tools at all, and two word verdicts; a failed score is a `StructuredResult` with no value (the task is then rejected)."""
    prompt = _SCORE.format(
        name=server.name, tools=tool_lines(server), question=task.question, words=VERDICT_WORDS, format=SCORE_EXAMPLE.format_section(model),
    )  # fmt: skip
    names = [t.name for t in server.tools]
    guard = ReplyCheck(SCORE_EXAMPLE, check=lambda v: None if v.first_tool in [*names, "none"] else f"first_tool must be one of {names} or none")
    settings = _settings(max_tokens, temperature=0.0).model_copy(update={"top_logprobs": VERDICT_TOP_LOGPROBS})
    result = await guard.ask(model, prompt, _ScoreReply, settings=settings, schema=score_schema(names))
    scores = result.value.scores(VerdictReader(result.token_choices), names) if result.value is not None else None
    return dataclasses.replace(result, value=scores)  # type: ignore[arg-type]
