"""Helpers for the reply functions that stand in for the remote LLM in the eval tests.

The model itself is `agent_sdk.FunctionModel`; everything else the play loops touch is real:
the benchmarks' MCP servers, their executable backends and their checkers. A reply function
sees what a served model would see (the messages and the offered tools) and answers with text
or tool calls; these helpers build the calls and tell where in the dialogue it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_sdk import ChatMessage, ToolCall

__all__ = ["calls_this_turn", "tool_calls", "user_turn"]


def tool_calls(*calls: tuple[str, dict[str, Any]], prefix: str = "call") -> ChatMessage:
    """An assistant message making `calls` ((name, arguments) pairs) in one step."""
    return ChatMessage(role="assistant", tool_calls=[
        ToolCall(id=f"{prefix}_{index}", name=name, arguments=dict(arguments)) for index, (name, arguments) in enumerate(calls)
    ])


def user_turn(messages: Sequence[ChatMessage]) -> int:
    """Which user turn the model is in (0 for the first user message)."""
    return sum(m.role == "user" for m in messages) - 1


def calls_this_turn(messages: Sequence[ChatMessage]) -> int:
    """Tool calls the model has made since the last user message."""
    last_user = max((i for i, m in enumerate(messages) if m.role == "user"), default=-1)
    return sum(len(m.tool_calls or []) for m in messages[last_user + 1:] if m.role == "assistant")
