"""Tool calls from a model's message: structured `tool_calls` or calls written as text.

Servers with a tool-call parser return structured `tool_calls`; small models and servers
without one write the call into the content, as `<tool_call>{...}</tool_call>` blocks
(Hermes/Qwen style, possibly several), a fenced ```json block, or a bare JSON object
`{"name": ..., "arguments": ...}` (what Qwen2.5-Coder does under vLLM's hermes parser with
`tool_choice="auto"`). Every path from raw text to calls runs `parse_tool_calls`: the local
backend, the OpenAI client (served GRPO's rollouts read through it), veRL's rollouts
(`rl.verl.AstraToolParser`), and, inside `astra model serve`, vLLM's tool-call parser
(`_vllm_tool_parser.py`, which hands on `structured_calls`).

That plugin loads this module in vLLM's own environment, without the `agent_sdk` package: it
and the two modules it imports (`_json_repair`, `_messages`) import only the standard library
and pydantic.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field

from agent_sdk._json_repair import loads_repaired
from agent_sdk._messages import ArgumentRepair, ToolCall

__all__ = ["ParsedCalls", "arguments_text", "parse_arguments", "parse_tool_calls", "structured_calls"]

_TAG_RE = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL)
_FENCE_RE = re.compile(r"```[ \t]*(?:json|JSON|tool_call)?[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)
_NAME_RE = re.compile(r"""["']name["']\s*:\s*["']([^"']+)["']""")


class ParsedCalls(BaseModel):
    """The result of `parse_tool_calls`."""

    calls: list[ToolCall] = Field(default_factory=list, description="Calls in the order the model wrote them.")
    content_without_calls: str | None = Field(default=None, description="The content with text-form calls removed.")
    repairs: list[ArgumentRepair] = Field(default_factory=list, description="One per call whose arguments needed repair.")


def new_call_id() -> str:
    """A fresh call id, unique within any episode."""
    return "call_" + uuid.uuid4().hex[:16]


def parse_arguments(raw: str | Mapping[str, Any] | None) -> tuple[dict[str, Any], list[str]]:
    """Parse one call's arguments (a JSON string, a dict, or nothing) into a dict.

    Returns:
        The arguments and the repairs applied (`double_encoded`, `single_quotes`, ...).

    Raises:
        ValueError: when the arguments are not an object (a list, a number, text that is not one
            even after repair).
    """
    if raw is None:
        return {}, []
    if isinstance(raw, Mapping):
        return dict(raw), []
    if not isinstance(raw, str):  # a list or a number written where the object belongs
        raise ValueError(f"arguments must be a JSON object, got {type(raw).__name__}")
    if not raw.strip():
        return {}, []
    value, fixes = loads_repaired(raw)
    if isinstance(value, str):
        value, more = loads_repaired(value)
        fixes = [*fixes, "double_encoded", *more]
    if not isinstance(value, dict):
        raise ValueError(f"arguments must be a JSON object, got {type(value).__name__}")
    return value, fixes


def parse_tool_calls(
    content: str | None,
    structured: Sequence[Mapping[str, Any]] | None = None,
    *,
    known_tools: Collection[str] | None = None,
) -> ParsedCalls:
    """Extract the tool calls of one assistant message.

    Args:
        content: the message text.
        structured: OpenAI-style `tool_calls` items (`{"id", "function": {"name", "arguments"}}`);
            when non-empty they are the calls and `content` is left as is.
        known_tools: if given, a fenced or bare JSON object counts as a call only when its
            name is one of these (so a final answer that happens to be JSON is not a call);
            `<tool_call>` blocks always count.

    Returns:
        The calls, the content without them, and the argument repairs. A call whose
        arguments cannot be parsed is kept with empty arguments and a repair with `ok=False`,
        so the agent can answer it with an error observation.
    """
    if structured:
        return _from_structured(content, structured)
    if not content:
        return ParsedCalls(content_without_calls=content)
    tagged = list(_TAG_RE.finditer(content))
    if tagged:
        spans = [(m.start(), m.end(), m.group(1)) for m in tagged]
        return _from_spans(content, spans, known_tools=None, tagged=True)
    fenced = [(m.start(), m.end(), m.group(1)) for m in _FENCE_RE.finditer(content)]
    parsed = _from_spans(content, fenced, known_tools=known_tools, tagged=False) if fenced else ParsedCalls()
    if parsed.calls:
        return parsed
    bare = _from_spans(content, _json_objects(content), known_tools=known_tools, tagged=False)
    if bare.calls:
        return bare
    return ParsedCalls(content_without_calls=content)


def structured_calls(content: str | None, *, known_tools: Collection[str] | None) -> ParsedCalls | None:
    """The calls a server's tool-call parser returns as structured `tool_calls` for `content`, or None.

    A server hands each call on with its arguments as the model wrote them (`arguments_text`), so
    a client reading the reply with `parse_tool_calls` gets the same calls, content and argument
    repairs as from the text itself. A repair the argument text cannot carry (one made on the
    whole call, such as quotes fixed across it, or a call that did not parse) would be lost, so
    for such a reply this returns None: the server hands on the text, and the client parses it
    and records the repair.

    Args:
        content: the model's raw reply.
        known_tools: the request's tool names (see `parse_tool_calls`).
    """
    parsed = parse_tool_calls(content, None, known_tools=known_tools)
    if not parsed.calls:
        return None
    written = {call.id: call.raw_arguments or "" for call in parsed.calls}
    if any(not repair.ok or repair.raw != written[repair.call_id] for repair in parsed.repairs):
        return None
    return parsed


def arguments_text(call: ToolCall) -> str:
    """A call's arguments as the model wrote them; a call written without arguments gets `{}`."""
    return call.raw_arguments if call.raw_arguments is not None else json.dumps(call.arguments, ensure_ascii=False)


def _from_structured(content: str | None, structured: Sequence[Mapping[str, Any]]) -> ParsedCalls:
    calls: list[ToolCall] = []
    repairs: list[ArgumentRepair] = []
    for item in structured:
        function = item.get("function") or {}
        name = str(function.get("name") or "")
        call_id = str(item.get("id") or new_call_id())
        raw = function.get("arguments")
        raw_text = raw if isinstance(raw, str) else json.dumps(raw) if raw is not None else None
        calls.append(_make_call(call_id, name, raw, raw_text, repairs))
    return ParsedCalls(calls=calls, content_without_calls=content, repairs=repairs)


def _from_spans(
    content: str, spans: list[tuple[int, int, str]], *, known_tools: Collection[str] | None, tagged: bool
) -> ParsedCalls:
    calls: list[ToolCall] = []
    repairs: list[ArgumentRepair] = []
    kept: list[tuple[int, int]] = []
    for start, end, body in spans:
        found = _calls_in_body(body.strip(), known_tools=known_tools, tagged=tagged, repairs=repairs)
        if found:
            calls.extend(found)
            kept.append((start, end))
    if not calls:
        return ParsedCalls(content_without_calls=content)
    rest, last = [], 0
    for start, end in kept:
        rest.append(content[last:start])
        last = end
    rest.append(content[last:])
    remaining = "".join(rest).strip()
    return ParsedCalls(calls=calls, content_without_calls=remaining or None, repairs=repairs)


def _calls_in_body(
    body: str, *, known_tools: Collection[str] | None, tagged: bool, repairs: list[ArgumentRepair]
) -> list[ToolCall]:
    """The calls written in one text span (an object, or a list of objects)."""
    if not body:
        return []
    try:
        value, outer_fixes = loads_repaired(body)
    except ValueError as exc:
        match = _NAME_RE.search(body)
        if not tagged or match is None:
            return []
        call_id = new_call_id()
        repairs.append(ArgumentRepair(call_id=call_id, tool=match.group(1), raw=body, ok=False, error=str(exc)))
        return [ToolCall(id=call_id, name=match.group(1), arguments={}, raw_arguments=body)]
    items = value if isinstance(value, list) else [value]
    calls: list[ToolCall] = []
    for item in items:
        parts = _call_parts(item, known_tools)
        if parts is None:
            continue
        name, args = parts
        raw_text = args if isinstance(args, str) else json.dumps(args) if args is not None else None
        call = _make_call(new_call_id(), name, args, raw_text, repairs, outer_fixes=outer_fixes, body=body)
        calls.append(call)
    return calls


def _call_parts(item: Any, known_tools: Collection[str] | None) -> tuple[str, Any] | None:
    """(name, arguments) of an object written as a call, or None.

    Besides `{"name", "arguments" | "parameters"}`, Qwen2.5-Coder names the tool under "function"
    (`{"function": "find_station", "arguments": {...}}`, 1 of 13 unread teacher rollouts) or
    nests the OpenAI shape (`{"function": {"name", "arguments"}}`).
    """
    if not isinstance(item, dict):
        return None
    function = item.get("function")
    if isinstance(function, dict) and "name" not in item:
        item = function
    elif isinstance(function, str) and "name" not in item:
        item = {**item, "name": function}
    name = item.get("name")
    if not isinstance(name, str) or ("arguments" not in item and "parameters" not in item):
        return None
    if known_tools is not None and name not in known_tools:
        return None
    return name, item.get("arguments", item.get("parameters"))


def _make_call(
    call_id: str,
    name: str,
    raw: Any,
    raw_text: str | None,
    repairs: list[ArgumentRepair],
    *,
    outer_fixes: list[str] | None = None,
    body: str | None = None,
) -> ToolCall:
    outer_fixes = outer_fixes or []
    try:
        arguments, fixes = parse_arguments(raw)
    except ValueError as exc:
        repairs.append(ArgumentRepair(call_id=call_id, tool=name, raw=raw_text or "", ok=False, error=str(exc)))
        return ToolCall(id=call_id, name=name, arguments={}, raw_arguments=raw_text)
    all_fixes = [*outer_fixes, *(f for f in fixes if f not in outer_fixes)]
    if all_fixes:
        raw_seen = body if outer_fixes else raw_text
        repairs.append(ArgumentRepair(call_id=call_id, tool=name, raw=raw_seen or "", fixes=all_fixes))
    return ToolCall(id=call_id, name=name, arguments=arguments, raw_arguments=raw_text)


def _json_objects(content: str) -> list[tuple[int, int, str]]:
    """Top-level `{...}` spans of `content` (string-aware); an unclosed last one runs to the end.

    A span opened with doubled braces (`{{"name": ...}}`, a template's escaping copied) counts
    them as one and runs through the closing braces right after it: such a call closes with two
    braces (`{{"name": "f", "arguments": {"x": 1}}`) or four.
    """
    spans: list[tuple[int, int, str]] = []
    depth, start, quote, escaped, skip = 0, -1, "", False, -1
    for i, ch in enumerate(content):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
            continue
        if ch == '"' and depth > 0:
            quote = ch
        elif ch == "{":
            if i == skip:
                continue
            if depth == 0:
                start = i
                skip = i + 1 if content.startswith("{{", i) else -1  # `{{` opens one object
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                end = i + 1
                if content.startswith("{{", start):
                    end += len(content[end:]) - len(content[end:].lstrip("}"))
                spans.append((start, end, content[start:end]))
    if depth > 0:
        spans.append((start, len(content), content[start:]))
    return spans
