"""Asking a model an ACEBench normal/special question in the prompt format, and checking it."""

from __future__ import annotations

import json

from agent_sdk import ChatMessage, ChatModel, ModelError, SamplingSettings

from harness.acebench._checker import CheckResult, check_output
from harness.acebench._data import AceEntry

__all__ = ["play_entry", "system_prompt"]

_INSTRUCTIONS = """You are an assistant that calls functions to complete the user's request.
If you decide to call functions, reply with ONLY a list in this format and nothing else:
[FunctionName(param1=value1, param2=value2), OtherFunction(param=value)]
Use the exact function and parameter names below, Python literals for values, and one entry per call.
If none of the functions can solve the request, say so and make no call.
If a required parameter is missing from the conversation, make no call: name the function and the missing parameters.
If a value the user gave is invalid for its parameter, make no call: quote the incorrect value and its parameter."""


def system_prompt(entry: AceEntry) -> str:
    """The system message for `entry`: instructions, context (time, profile) and the function docs."""
    parts = [_INSTRUCTIONS]
    if entry.time:
        parts.append(f"Current time: {entry.time}")
    if entry.profile:
        parts.append(f"User profile: {entry.profile}")
    parts.append("Functions (JSON):\n" + json.dumps(entry.functions, ensure_ascii=False))
    return "\n\n".join(parts)


async def play_entry(entry: AceEntry, model: ChatModel, *, settings: SamplingSettings | None = None) -> tuple[str, CheckResult]:
    """One request to `model`; returns its reply and the check. A model error fails the entry."""
    messages = [ChatMessage(role="system", content=system_prompt(entry)), ChatMessage(role="user", content=entry.question)]
    try:
        response = await model.complete(messages, None, settings=settings)
    except ModelError as exc:
        return "", CheckResult(ok=False, error=f"model error: {exc}")
    reply = response.message.content or ""
    return reply, check_output(entry.category, reply, entry.ground_truth, entry.functions)
