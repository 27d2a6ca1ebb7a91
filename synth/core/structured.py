"""Structured LLM output: ask for JSON, validate it with pydantic, retry with the error, fail closed.

`ask_structured` never invents a value. When the model errors, writes no JSON, or writes JSON
that does not validate (or fails the caller's own `check`) on every attempt, the result has
`value=None` and a `reason_code` the pipeline records as the rejection reason.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from agent_sdk import ChatMessage, SamplingSettings, Usage
from synth.core.cache import LLMCache
from synth.core.llm import MeteredModel

__all__ = ["ReasonCode", "StructuredResult", "ask_structured", "extract_json", "format_validation_error"]

T = TypeVar("T", bound=BaseModel)

ReasonCode = Literal["model_error", "no_json", "invalid_output"]
"""Why a structured request failed: the model raised; no JSON in its reply; JSON that did not validate."""

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)
_ECHO_CHARS = 3000


@dataclass(frozen=True, kw_only=True)
class StructuredResult(Generic[T]):
    """The outcome of `ask_structured`.

    Attributes:
        value: the validated object, or None when every attempt failed.
        reason_code: None on success, else why the last attempt failed.
        detail: the last error message (kept for rejected.jsonl).
        attempts: model replies requested (1 + retries used).
        usage: tokens of the replies used (cached replies included).
        raw: the text of the last reply.
    """

    value: T | None
    reason_code: ReasonCode | None = None
    detail: str = ""
    attempts: int = 0
    usage: Usage = field(default_factory=Usage)
    raw: str = ""

    @property
    def ok(self) -> bool:
        """Whether a valid value was obtained."""
        return self.value is not None


def extract_json(text: str) -> Any:
    """The first JSON value in a model reply: a fenced block, the whole text, or an embedded object.

    Raises:
        ValueError: when the text holds no parseable JSON object or array.
    """
    text = _THINK.sub("", text or "").strip()
    candidates = [m.group(1).strip() for m in _FENCE.finditer(text)] + [text]
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except ValueError:
            pass
    decoder = json.JSONDecoder()
    for i, ch in enumerate(text):
        if ch in "{[":
            try:
                value, _ = decoder.raw_decode(text, i)
            except ValueError:
                continue
            return value
    raise ValueError("no JSON object found in the reply")


def format_validation_error(exc: ValidationError, limit: int = 8) -> str:
    """A compact `field.path: message` list, short enough to feed back to a model."""
    lines = []
    for err in exc.errors()[:limit]:
        loc = ".".join(str(p) for p in err["loc"]) or "(root)"
        lines.append(f"{loc}: {err['msg']}")
    more = len(exc.errors()) - limit
    if more > 0:
        lines.append(f"... and {more} more")
    return "; ".join(lines)


def _schema_instruction(output_type: type[BaseModel]) -> str:
    schema = json.dumps(output_type.model_json_schema(), ensure_ascii=False, separators=(",", ":"))
    return f"\n\nReply with only one JSON object (no prose) that validates against this JSON Schema:\n{schema}"


async def ask_structured(
    model: Any,
    messages: Sequence[ChatMessage],
    output_type: type[T],
    *,
    retries: int = 2,
    cache: LLMCache | None = None,
    settings: SamplingSettings | None = None,
    check: Callable[[T], str | None] | None = None,
    include_schema: bool = True,
    parse: Callable[[str], Any] = extract_json,
    schema: dict[str, Any] | None = None,
) -> StructuredResult[T]:
    """Ask `model` for an `output_type` object; retry with the error fed back; fail with a reason.

    Args:
        model: a `ChatModel` (wrap it in `MeteredModel` for counting and a concurrency limit).
        messages: the prompt; the JSON Schema is appended to the last message when
            `include_schema` is true.
        output_type: the pydantic model the reply must validate against.
        retries: extra attempts after the first failure.
        cache: a response cache, used when `model` is not already a cached `MeteredModel`.
        settings: sampling settings passed through.
        check: a semantic check on the validated value; a returned string is an error that is
            fed back like a validation error.
        include_schema: append the output schema to the prompt.
        parse: turns the reply text into data to validate (default `extract_json`); raises
            `ValueError` when the reply holds nothing usable (reason `no_json`).
        schema: a JSON Schema built for this call (accepted, not yet sent: engine enforcement
            lands with structured-output support).
    """
    if cache is not None and not (isinstance(model, MeteredModel) and model.cache is not None):
        model = MeteredModel(model, cache=cache)
    convo = list(messages)
    if include_schema and convo:
        last = convo[-1]
        convo[-1] = last.model_copy(update={"content": (last.content or "") + _schema_instruction(output_type)})
    usage = Usage()
    reason: ReasonCode = "model_error"
    detail = ""
    raw = ""
    attempts = 0
    for _ in range(retries + 1):
        attempts += 1
        try:
            response = await model.complete(convo, settings=settings)
        except Exception as exc:  # any backend failure is data: retry, then reject
            reason, detail = "model_error", f"{type(exc).__name__}: {exc}"
            continue
        usage = usage + response.usage
        raw = response.message.content or ""
        try:
            data = parse(raw)
        except ValueError as exc:
            reason, detail = "no_json", str(exc)
        else:
            try:
                value = output_type.model_validate(data)
            except ValidationError as exc:
                reason, detail = "invalid_output", format_validation_error(exc)
            else:
                problem = check(value) if check is not None else None
                if problem is None:
                    return StructuredResult(value=value, attempts=attempts, usage=usage, raw=raw)
                reason, detail = "invalid_output", problem
        convo = convo + [
            # a long bad reply would crowd a small context window out; its start is what the feedback is about
            ChatMessage(role="assistant", content=raw if len(raw) <= _ECHO_CHARS else raw[:_ECHO_CHARS] + " ...[truncated]"),
            ChatMessage(
                role="user",
                content=f"Your reply could not be used: {detail}\nReply again with only the corrected JSON object.",
            ),
        ]
    return StructuredResult(value=None, reason_code=reason, detail=detail, attempts=attempts, usage=usage, raw=raw)
