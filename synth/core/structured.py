"""Structured LLM output: ask for JSON, validate it with pydantic, retry with the error, fail closed.

Where the backend enforces a JSON Schema while decoding (`supports_output_schema`), the reply
is syntactically valid by construction and the prompt carries no schema or example for a small
model to copy; elsewhere the schema is described in the prompt and the reply parsed.
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

from agent_sdk import ChatMessage, ChatModel, ContextOverflowError, ModelHTTPError, SamplingSettings, TokenChoice, Usage, WrapperModel, format_validation_error
from mcp_servers import CheckCode
from synth.core.cache import LLMCache
from synth.core.llm import MeteredModel

__all__ = ["CHECK_CODES", "ReasonCode", "StructuredResult", "ask_structured", "enforces_schema", "extract_json"]

T = TypeVar("T", bound=BaseModel)

ReasonCode = Literal["model_error", "no_json", "invalid_output", "context_overflow"]
"""Why a structured request failed; each code is declared in `CHECK_CODES` (`astra checks --family reply`)."""

CHECK_CODES: tuple[CheckCode, ...] = CheckCode.load_declarations(__name__)
"""The codes of a structured request that failed (`ReasonCode`); `synth.core.checks` declares `copied_example`."""

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)
_ECHO_CHARS = 2000
_JSON_ONLY = "\n\nReply with a JSON object."
_SCHEMA_REFUSED = frozenset({400, 422})


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
        token_choices: the last reply's tokens with their likeliest alternatives, when asked for
            (`SamplingSettings.top_logprobs`) and returned (`VerdictReader` reads them).
    """

    value: T | None
    reason_code: ReasonCode | None = None
    detail: str = ""
    attempts: int = 0
    usage: Usage = field(default_factory=Usage)
    raw: str = ""
    token_choices: list[TokenChoice] | None = None

    @property
    def ok(self) -> bool:
        """Whether a valid value was obtained."""
        return self.value is not None


def enforces_schema(model: ChatModel) -> bool:
    """Whether `model`'s engine enforces output schemas (its profile; then prompts need no format example)."""
    return model.profile.supports_output_schema


def _record_syntax(model: ChatModel, *, ok: bool) -> None:
    """Tell a metering model whether a structured reply parsed and validated (content checks aside)."""
    if isinstance(model, WrapperModel):
        model.record_reply_syntax(ok)


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


def _schema_instruction(schema: dict[str, Any]) -> str:
    text = json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
    return f"\n\nReply with only one JSON object (no prose) that validates against this JSON Schema:\n{text}"


def _with_output_schema(settings: SamplingSettings | None, schema: dict[str, Any]) -> SamplingSettings:
    # Only the fields the caller set, so the backend's own defaults still fill the rest.
    fields = settings.model_dump(exclude_unset=True) if settings is not None else {}
    return SamplingSettings(**{**fields, "output_schema": schema})


def _append(messages: list[ChatMessage], text: str) -> list[ChatMessage]:
    if not messages or not text:
        return messages
    last = messages[-1]
    return messages[:-1] + [last.model_copy(update={"content": (last.content or "") + text})]


def _feedback(convo: list[ChatMessage], raw: str, detail: str) -> list[ChatMessage]:
    """`convo` with the last failed reply and its error, for one retry.

    The reply is echoed whole, or not at all when it is too long to fit a small context: echoed cut
    off ("What is t ...[truncated]"), it was copied, cut-off text and all, into 72 of 574 of the
    teacher's next decompositions.
    """
    again = "Reply again with only the corrected JSON object."
    if len(raw) > _ECHO_CHARS:
        return _append(convo, f"\n\nYour last reply ({len(raw)} characters) could not be used: {detail}\n{again} Keep it short.")
    return [*convo, ChatMessage(role="assistant", content=raw), ChatMessage(role="user", content=f"Your reply could not be used: {detail}\n{again}")]


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
    enforce: bool = True,
) -> StructuredResult[T]:
    """Ask `model` for an `output_type` object; retry with the error fed back; fail with a reason.

    When the model enforces output schemas (`supports_output_schema`), the schema is sent as
    `settings.output_schema` and the prompt only says to reply with JSON; otherwise the schema
    is pasted into the prompt. Either way the reply is parsed and validated (and `check`ed),
    and a failure is retried with the last reply and its error appended (only the last: the
    prompt does not grow with the retries). An endpoint that refuses the schema (HTTP 400/422)
    is asked again the unenforced way. A prompt that does not fit the model's context is
    returned at once with reason `context_overflow`: retrying cannot help.

    Args:
        model: a `ChatModel` (wrap it in `MeteredModel` for counting and a concurrency limit).
        messages: the prompt; the format instruction is appended to the last message when
            `include_schema` is true.
        output_type: the pydantic model the reply must validate against.
        retries: extra attempts after the first failure.
        cache: a response cache, used when `model` is not already a cached `MeteredModel`.
        settings: sampling settings passed through.
        check: a semantic check on the validated value; a returned string is an error that is
            fed back like a validation error.
        include_schema: append the format instruction (the schema, or one line when enforced).
        parse: turns the reply text into data to validate (default `extract_json`); raises
            `ValueError` when the reply holds nothing usable (reason `no_json`).
        schema: the JSON Schema to enforce or show (default `output_type.model_json_schema()`);
            built per call where the shape depends on the input (exactly n items, a range).
        enforce: send the schema for enforcement where the backend can; False for a reply that
            is not JSON (code in a fenced block, read by `parse`), which a JSON grammar would
            force into an escaped string.
    """
    if cache is not None and not (isinstance(model, MeteredModel) and model.cache is not None):
        model = MeteredModel(model, cache=cache)
    json_schema = schema if schema is not None else output_type.model_json_schema()
    enforced = enforce and enforces_schema(model)
    base = list(messages)

    def prompt() -> list[ChatMessage]:
        if not include_schema:
            return base
        return _append(base, _JSON_ONLY if enforced else _schema_instruction(json_schema))

    convo = prompt()
    usage = Usage()
    reason: ReasonCode = "model_error"
    detail = ""
    raw = ""
    attempts = 0
    for _ in range(retries + 1):
        attempts += 1
        request_settings = _with_output_schema(settings, json_schema) if enforced else settings
        try:
            response = await model.complete(convo, settings=request_settings)
        except ContextOverflowError as exc:
            return StructuredResult(
                value=None, reason_code="context_overflow", detail=str(exc), attempts=attempts, usage=usage, raw=raw
            )
        except ModelHTTPError as exc:
            reason, detail = "model_error", f"{type(exc).__name__}: {exc}"
            if enforced and exc.status_code in _SCHEMA_REFUSED:
                enforced = False
                convo = prompt()
            continue
        except Exception as exc:  # noqa: BLE001 - any backend failure is data: retry, then reject
            reason, detail = "model_error", f"{type(exc).__name__}: {exc}"
            continue
        usage = usage + response.usage
        raw = response.message.content or ""
        try:
            data = parse(raw)
        except ValueError as exc:
            reason, detail = "no_json", str(exc)
            _record_syntax(model, ok=False)
        else:
            try:
                value = output_type.model_validate(data)
            except ValidationError as exc:
                reason, detail = "invalid_output", format_validation_error(exc)
                _record_syntax(model, ok=False)
            else:
                _record_syntax(model, ok=True)
                problem = check(value) if check is not None else None
                if problem is None:
                    return StructuredResult(value=value, attempts=attempts, usage=usage, raw=raw, token_choices=response.token_choices)
                reason, detail = "invalid_output", problem
        convo = _feedback(prompt(), raw, detail)
    return StructuredResult(value=None, reason_code=reason, detail=detail, attempts=attempts, usage=usage, raw=raw)
