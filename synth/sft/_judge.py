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

Per-step dimensions are averaged over steps; the score is the mean of the seven. Fail closed:
when the judge errors, writes no JSON, or leaves a dimension missing or out of range (a
per-step list of the wrong length counts as missing), the trajectory is unjudged and
excluded, and every missing dimension is counted for `stats.json`.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from agent_sdk import ChatMessage, SamplingSettings
from synth.core import ask_structured, extract_json

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
    score: float | None = Field(default=None, description="Mean of the seven dimensions; None when unjudged.")
    reason: str = ""
    failure: str | None = Field(default=None, description="Why the judge failed (reason code: detail).")


def _scale(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) / 10.0 if 0 <= value <= 10 else None


def _steps(value: Any, n: int) -> float | None:
    if not isinstance(value, list) or len(value) != n or n == 0:
        return None
    scaled = [_scale(v) for v in value]
    return None if any(s is None for s in scaled) else sum(scaled) / n  # type: ignore[arg-type]


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


_PROMPT = """You are a strict judge of an AI assistant's tool-use conversation.

Conversation ({steps} tool steps):
{conversation}

Score each dimension from 0 (worst) to 10 (best):
- query_understanding: did the assistant understand the user's request?
- query_planning: was its overall plan to solve it sound?
- tool_response_understanding: a list of {steps} scores, one per tool step in order: did it read that tool output correctly (including noticing errors)?
- tool_call_planning: a list of {steps} scores, one per tool step in order: was that call the right tool with the right arguments at that point?
- conciseness: no unnecessary calls, repetition or chatter?
- final_answer: is the final answer relevant, complete and faithful to the tool outputs (no invented facts)?
Also give a short reason.
Reply with only a JSON object shaped like this example (values are illustrations):
{example}"""


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

    def evaluate(reply: _JudgeReply) -> tuple[dict[str, float], list[str]]:
        dims: dict[str, float] = {}
        for key in _SCALAR:
            v = _scale(getattr(reply, key))
            if v is not None:
                dims[key] = v
        for key in _PER_STEP:
            v = _steps(getattr(reply, key), n)
            if v is not None:
                dims[key] = v
        if success is not None:
            dims["tool_call_success"] = success
        return dims, [d for d in DIMENSIONS if d not in dims]

    def check(reply: _JudgeReply) -> str | None:
        _, missing = evaluate(reply)
        missing = [m for m in missing if m != "tool_call_success"]
        if missing:
            return f"missing or invalid scores for {missing} (numbers 0-10; per-step lists need exactly {n} numbers)"
        return None

    example = {
        "query_understanding": 7,
        "query_planning": 6,
        "tool_response_understanding": [5] * n,
        "tool_call_planning": [6] * n,
        "conciseness": 8,
        "final_answer": 4,
        "reason": "short justification",
    }
    prompt = _PROMPT.format(steps=n, conversation=render(messages), example=json.dumps(example))
    result = await ask_structured(
        model,
        [ChatMessage(role="user", content=prompt)],
        _JudgeReply,
        check=check,
        include_schema=False,
        settings=SamplingSettings(temperature=0.0, max_tokens=max_tokens),
    )
    reply = result.value
    if reply is None:
        try:
            reply = _JudgeReply.model_validate(extract_json(result.raw))
        except (ValueError, ValidationError):
            reply = _JudgeReply()
    dims, missing = evaluate(reply)
    reason = reply.reason if isinstance(reply.reason, str) else json.dumps(reply.reason)
    if missing or result.value is None:
        failure = f"{result.reason_code or 'missing_dimension'}: {result.detail}"[:500]
        return JudgeVerdict(judged=False, dimensions=dims, missing=missing or [], reason=reason, failure=failure)
    return JudgeVerdict(judged=True, dimensions=dims, score=sum(dims.values()) / len(DIMENSIONS), reason=reason)
