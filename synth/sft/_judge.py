"""Stage 5: judge each trajectory on seven dimensions; fail closed.

Dimensions (each scaled to [0, 1]):

1. query_understanding — did the agent grasp what the user wants;
2. query_planning — is its overall plan sound;
3. tool_response_understanding — per tool step: did it read the tool output correctly;
4. tool_call_planning — per tool step: was this call the right one with the right arguments;
5. tool_call_success — per tool step: 1 when the call succeeded, 0 when it failed (read from
   the trajectory itself, not from the judge);
6. conciseness — no needless calls or chatter;
7. final_answer — relevant, complete and faithful to the tool outputs.

The judge writes one sentence of reason, then answers each dimension on the word scale
(`synth.core.VERDICTS`: yes / mostly / partly / no). Each verdict scores as the expectation of the
scale under the judge's own probabilities of the four words where the endpoint returns them
(`VerdictReader`). Read by the word, the 1.5B teacher tied 2 of 20 calibration twins and ranked 13
right; read by its probabilities, with no notes before the reason, 16 right and no ties. What the
conversation shows about itself (`_grounding`: repeated calls, values in the answer that no tool
returned, errors ignored, refusals unreported) is put in the prompt and applied to the verdict: a
repeated call zeroes that step's planning and conciseness, an ungrounded value zeroes
final_answer, an ignored error or unreported refusal zeroes that step's response understanding and
caps final_answer at "partly", an invented id zeroes that step's call planning, a last message that answers nobody or states nothing the
successful calls returned zeroes final_answer, debris beside a call zeroes conciseness. Per-step dimensions
are averaged over steps; the score is the mean of the seven, halved when the conversation proves the
answer wrong (a value no tool returned, an error ignored, a refusal unreported, a call with an id
nobody gave): on twins that differ in one sentence the judge's other six verdicts drift as far as
the one that saw the flaw (5 of 8 such calibration pairs misranked with final_answer zeroed alone),
and such a trajectory is not training data whatever they say. It is 0 when the last message answers
nobody (`_answer_shape`), which the rollout stage rejects outright: halved, a repeated tool error
still outscored a good twin that told the user the failure in words, which the teacher scores
0.08-0.14 (it reads a failed call as the assistant's failure; telling it otherwise did not help). On the
calibration set these findings fire on 26 of the 32 planted twins (all but the 4 wrong tools and
2 of 4 unfaithful answers) and on none of the 32 good ones. Fail closed: when the judge
errors, writes no JSON, or leaves a dimension missing or not a verdict word (a per-step list of the
wrong length counts as missing), the trajectory is unjudged and excluded, and every missing
dimension is counted for `stats.json`.

The prompt's format example answers "no" everywhere (it fails the export bar), and a reply
that copies it is rejected as `copied_example`. The JSON Schema is built per call: exactly one
verdict per tool step.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from agent_sdk import SamplingSettings
from mcp_servers import CheckCode
from synth.core import VERDICT_TOP_LOGPROBS, VERDICT_WORDS, VERDICTS, PromptExample, ReplyCheck, VerdictReader, extract_json, verdict_schema
from synth.sft._grounding import Grounding, grounding

CHECK_CODES: tuple[CheckCode, ...] = CheckCode.load_declarations(__name__)
"""The judge's own failure code (`JudgeVerdict.failure_code`; a failed request keeps its `reply` code)."""

DIMENSIONS = (
    "query_understanding",
    "query_planning",
    "tool_response_understanding",
    "tool_call_planning",
    "tool_call_success",
    "conciseness",
    "final_answer",
)
"""The seven judge dimensions, in report order."""

_SCALAR = ("query_understanding", "query_planning", "conciseness", "final_answer")
_PER_STEP = ("tool_response_understanding", "tool_call_planning")
_PROVEN_FLAW_FACTOR = 0.5
"""A trajectory whose answer the conversation proves wrong keeps half its score: below any useful bar."""


class _JudgeReply(BaseModel):
    query_understanding: Any = None
    query_planning: Any = None
    tool_response_understanding: Any = None
    tool_call_planning: Any = None
    conciseness: Any = None
    final_answer: Any = None
    reason: Any = ""


class JudgeVerdict(BaseModel):
    """The judge's outcome for one trajectory."""

    judged: bool = Field(description="False when any dimension is missing: the trajectory is excluded.")
    dimensions: dict[str, float] = Field(default_factory=dict, description="Dimension -> score in [0, 1] (valid ones).")
    missing: list[str] = Field(default_factory=list, description="Dimensions the judge failed to provide.")
    score: float | None = Field(default=None, description="Mean of the seven dimensions, halved for a proven flaw; None when unjudged.")
    reason: str = ""
    findings: list[str] = Field(default_factory=list, description="What the conversation shows about itself (`_grounding`), applied to the scores.")
    failure: str | None = Field(default=None, description="Why the judge failed (reason code: detail).")
    failure_code: str | None = Field(
        default=None, description="The judge request's reason code when it failed (copied_example, context_overflow, ...)."
    )


def _steps(reader: VerdictReader, key: str, value: Any, n: int) -> list[float] | None:
    if not isinstance(value, list) or len(value) != n or n == 0:
        return None
    return reader.scores(key, value)


def _apply(found: Grounding, scalar: dict[str, float], per_step: dict[str, list[float]]) -> None:
    """Lower the judge's verdicts where the conversation itself shows the flaw (in place)."""
    for step in found.repeated_steps:
        if "tool_call_planning" in per_step:
            per_step["tool_call_planning"][step - 1] = 0.0
    if found.repeated_steps and "conciseness" in scalar:
        scalar["conciseness"] = 0.0
    for step in found.ignored_errors:
        if "tool_response_understanding" in per_step:
            per_step["tool_response_understanding"][step - 1] = 0.0
    for step in found.invented_arguments:
        if "tool_call_planning" in per_step:
            per_step["tool_call_planning"][step - 1] = 0.0
    for step in found.unreported_refusals:
        if "tool_response_understanding" in per_step:
            per_step["tool_response_understanding"][step - 1] = 0.0
    if (found.ignored_errors or found.unreported_refusals) and "final_answer" in scalar:
        scalar["final_answer"] = min(scalar["final_answer"], VERDICTS["partly"])
    if (found.ungrounded_values or found.answer_problem or found.states_no_result) and "final_answer" in scalar:
        scalar["final_answer"] = 0.0
    if found.debris_steps and "conciseness" in scalar:
        scalar["conciseness"] = 0.0


def tool_steps(messages: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
    """(tool call, its tool message or None) for every tool call of an OpenAI-format conversation."""
    replies = {m.get("tool_call_id"): m for m in messages if m.get("role") == "tool"}
    return [(c, replies.get(c.get("id"))) for m in messages if m.get("role") == "assistant" for c in m.get("tool_calls") or []]


def call_succeeded(reply: dict[str, Any] | None, errors: set[str]) -> bool:
    """A call succeeded when it got a reply that is not marked as an error."""
    return reply is not None and reply.get("tool_call_id") not in errors


def render(messages: list[dict[str, Any]], limit: int = 1200) -> str:
    """The conversation as numbered text for the judge (long tool outputs cut)."""
    lines, step = [], 0
    for m in messages:
        role = m.get("role")
        if role == "assistant" and m.get("tool_calls"):
            if m.get("content"):
                lines.append(f"ASSISTANT: {m['content'][:limit]}")
            for c in m["tool_calls"]:
                step += 1
                fn = c.get("function", {})
                lines.append(f"[step {step}] ASSISTANT CALLS {fn.get('name')}({fn.get('arguments')})")
        elif role == "tool":
            lines.append(f"TOOL RESULT ({m.get('name', '')}): {str(m.get('content'))[:limit]}")
        else:
            lines.append(f"{str(role).upper()}: {str(m.get('content'))[:limit]}")
    return "\n".join(lines)


_PROMPT = """You check the work of an AI assistant that calls tools.

Conversation ({steps} tool steps):
{conversation}
{findings}
reason: one sentence on what went right and what went wrong.
Then answer each with {words}:
- query_understanding: did the assistant work on exactly what the user asked?
- query_planning: were its calls, in order, a sound way to get what was asked?
- tool_call_planning: {steps} verdicts, one per tool step: does that tool return what the user asked for, called with the right arguments?
- tool_response_understanding: {steps} verdicts, one per tool step: did the assistant read that result correctly (errors included)?
- conciseness: did it avoid needless or repeated calls and chatter?
- final_answer: does the final answer say the same as the tool results about what was asked (nothing contradicted, nothing added) and answer the whole request?{format}"""


def judge_example(steps: int) -> PromptExample:
    """The format example for `steps` tool steps: "no" everywhere, which no trajectory passes with."""
    return PromptExample(
        {
            "reason": "<one sentence>",
            "query_understanding": "no",
            "query_planning": "no",
            "tool_call_planning": ["no"] * steps,
            "tool_response_understanding": ["no"] * steps,
            "conciseness": "no",
            "final_answer": "no",
        }
    )


def judge_schema(steps: int) -> dict[str, Any]:
    """The judge's reply for `steps` tool steps: verdict words, exactly `steps` per list."""
    verdict = verdict_schema()
    per_step = {"type": "array", "items": verdict, "minItems": steps, "maxItems": steps}
    # The reason comes first, then the verdicts. Written notes on what was asked and what the tools said, which
    # helped when verdicts were read as words, set a mood the verdicts followed once read by probability (15 of
    # 20 calibration twins ranked right with the notes, 16 without).
    properties: dict[str, Any] = {"reason": {"type": "string", "minLength": 1, "maxLength": 300}}
    properties |= {key: verdict for key in _SCALAR[:2]}
    properties |= {key: per_step for key in ("tool_call_planning", "tool_response_understanding")}
    properties |= {key: verdict for key in _SCALAR[2:]}
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


async def judge_trajectory(
    model: object, messages: list[dict[str, Any]], *, error_call_ids: set[str] | None = None, max_tokens: int = 800
) -> JudgeVerdict:
    """Judge one trajectory (OpenAI-format messages); never raises for judge failures.

    Args:
        model: the judge `ChatModel`.
        messages: the conversation, with `tool_calls` and `tool` messages.
        error_call_ids: ids of tool calls whose results were errors (tool_call_success = 0).
        max_tokens: the judge's reply budget.
    """
    steps = tool_steps(messages)
    n = len(steps)
    errors = error_call_ids or set()
    success = sum(call_succeeded(reply, errors) for _, reply in steps) / n if n else None
    found = grounding(messages, errors)

    def evaluate(reply: _JudgeReply, reader: VerdictReader | None = None) -> tuple[dict[str, float], list[str]]:
        reader = reader or VerdictReader(None)
        scalar = {key: v for key in _SCALAR if (v := reader.score(key, getattr(reply, key))) is not None}
        per_step = {key: v for key in _PER_STEP if (v := _steps(reader, key, getattr(reply, key), n)) is not None}
        _apply(found, scalar, per_step)
        dims = scalar | {key: sum(v) / n for key, v in per_step.items()}
        if success is not None:
            dims["tool_call_success"] = success
        return dims, [d for d in DIMENSIONS if d not in dims]

    def check(reply: _JudgeReply) -> str | None:
        _, missing = evaluate(reply)
        missing = [m for m in missing if m != "tool_call_success"]
        if missing:
            return f"missing or invalid verdicts for {missing} (yes, mostly, partly or no; per-step lists need exactly {n})"
        return None

    example = judge_example(n)
    guard = ReplyCheck(example, check=check)
    shown = found.lines()
    findings = ("Found in the conversation itself:\n" + "\n".join(f"- {line}" for line in shown) + "\n") if shown else ""
    prompt = _PROMPT.format(
        steps=n, conversation=render(messages), findings=findings, words=VERDICT_WORDS, format=example.format_section(model)
    )
    result = await guard.ask(model, prompt, _JudgeReply, settings=SamplingSettings(temperature=0.0, max_tokens=max_tokens, top_logprobs=VERDICT_TOP_LOGPROBS), schema=judge_schema(n))
    reply = result.value
    if reply is None:
        try:
            reply = _JudgeReply.model_validate(extract_json(result.raw))
        except (ValueError, ValidationError):
            reply = _JudgeReply()
    dims, missing = evaluate(reply, VerdictReader(result.token_choices))
    reason = reply.reason if isinstance(reply.reason, str) else json.dumps(reply.reason)
    if missing or result.value is None:
        code = result.reason_code or "missing_dimension"
        failure = f"{code}: {result.detail}"[:500]
        return JudgeVerdict(
            judged=False, dimensions=dims, missing=missing or [], reason=reason, findings=shown, failure=failure, failure_code=code
        )  # fmt: skip
    proven = bool(found.ungrounded_values or found.ignored_errors or found.unreported_refusals or found.invented_arguments)
    # a last message that answers nobody is no conversation to learn from: the rollout stage rejects it outright
    score = 0.0 if found.answer_problem else sum(dims.values()) / len(DIMENSIONS) * (_PROVEN_FLAW_FACTOR if proven else 1.0)
    return JudgeVerdict(judged=True, dimensions=dims, score=score, reason=reason, findings=shown)
