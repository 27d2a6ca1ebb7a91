"""TRL reads tool calls with `agent_sdk`'s parser: a response parser on the tokenizer.

GRPOTrainer (environment mode) turns each generated turn into a message with
`trl.chat_template_utils.parse_response`, which calls `tokenizer.parse_response(ids)` (with
`prefix=`, and `tools=` from transformers 5.15) when the tokenizer has a `response_template` or
a `response_schema`. TRL itself sets one only for chat templates it knows (and fails on the
others), and those read only `<tool_call>` blocks, so the bare or fenced JSON calls a small
model writes were never calls in training. The agent and the evaluators read calls with
`agent_sdk.parse_tool_calls` (tagged, fenced or bare JSON, arguments repaired); while a run
lasts, `agent_response_parser` makes a `ResponseParser` the tokenizer's `parse_response`, so TRL
sees the calls an evaluator would see, whatever the chat template.

A repair cannot travel beside the arguments — TRL calls a tool method with the arguments as
keyword arguments and nothing else — so it travels inside them, under `REPAIR_KEY`, and the
environment (`rl.trl._env`) takes it out before the call reaches the arena. TRL never
re-renders a parsed message into tokens (it concatenates the generated ids), so the key never
reaches the policy.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from agent_sdk import ParsedCalls, parse_tool_calls

__all__ = ["REPAIR_KEY", "ResponseParser", "agent_response_parser", "trl_message"]

REPAIR_KEY = "__astra_argument_repair__"
"""Key of the arguments dict that carries a call's `ArgumentRepair` (as a dict) to the environment."""

# TRL only checks that one of these is set before it parses; the marker says who parses instead.
_MARKER = {"description": "tool calls are parsed by agent_sdk.parse_tool_calls (rl.trl.ResponseParser)"}
_ATTRIBUTES = ("parse_response", "response_schema", "response_template")


def trl_message(parsed: ParsedCalls) -> dict[str, Any]:
    """An assistant message as TRL's tool loop reads it: `tool_calls[].function.arguments` as dicts."""
    message: dict[str, Any] = {"role": "assistant", "content": parsed.content_without_calls or ""}
    repairs = {r.call_id: r for r in parsed.repairs}
    calls = []
    for call in parsed.calls:
        arguments = dict(call.arguments)
        if call.id in repairs:
            arguments[REPAIR_KEY] = repairs[call.id].model_dump()
        calls.append({"type": "function", "id": call.id, "function": {"name": call.name, "arguments": arguments}})
    if calls:
        message["tool_calls"] = calls
    return message


class ResponseParser:
    """`tokenizer.parse_response` for TRL: decode the generated ids, then `agent_sdk.parse_tool_calls`.

    Args:
        tokenizer: the policy's tokenizer (decodes the ids, special tokens dropped).
        known_tools: tool names a fenced or bare JSON object must name to count as a call, used
            when TRL does not pass the episode's own tools (transformers < 5.15 never does).
    """

    def __init__(self, tokenizer: Any, known_tools: Collection[str]) -> None:
        self._tokenizer = tokenizer
        self.known_tools = frozenset(known_tools)

    def __call__(
        self, response: Any, schema: Any = None, *, prefix: Any = None, tools: Sequence[Any] | None = None
    ) -> dict[str, Any] | list[dict[str, Any]]:
        """The message of one generated turn (a list of messages for a batch of turns)."""
        del schema, prefix  # the format is agent_sdk's; the prompt does not change how calls are read
        if isinstance(response, list) and response and not isinstance(response[0], int):
            return [self._parse(item, tools) for item in response]
        return self._parse(response, tools)

    def _parse(self, response: Any, tools: Sequence[Any] | None) -> dict[str, Any]:
        text = response if isinstance(response, str) else self._tokenizer.decode(response, skip_special_tokens=True)
        names = {name for name in map(_tool_name, tools or ()) if name} or self.known_tools
        return trl_message(parse_tool_calls(text, known_tools=names or None))


def _tool_name(tool: Any) -> str | None:
    """The name of a tool as TRL passes it: a callable (an environment method) or a function schema."""
    if callable(tool):
        return getattr(tool, "__name__", None)
    if isinstance(tool, dict):
        function = tool.get("function", tool)
        return function.get("name") if isinstance(function, dict) else None
    return None


@contextmanager
def agent_response_parser(tokenizer: Any, known_tools: Collection[str]) -> Iterator[ResponseParser]:
    """Make TRL parse `tokenizer`'s responses with `ResponseParser` for the duration of the block.

    The tokenizer's own parsing attributes come back on exit, so a tokenizer saved afterwards
    carries no marker.
    """
    missing = object()
    saved = {name: tokenizer.__dict__.get(name, missing) for name in _ATTRIBUTES}
    parser = ResponseParser(tokenizer, known_tools)
    tokenizer.parse_response = parser
    tokenizer.response_schema = _MARKER
    tokenizer.response_template = _MARKER
    try:
        yield parser
    finally:
        for name, value in saved.items():
            if value is missing:
                tokenizer.__dict__.pop(name, None)
            else:
                setattr(tokenizer, name, value)
