"""The remote-LLM double of the eval tests: a `ChatModel` that plays a script.

Everything else the play loops touch is real: the benchmarks' MCP servers, their executable
backends and their checkers. A script sees what a served model would see (the messages and
the offered tools) and answers with text or tool calls.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from agent_sdk import ChatMessage, ModelResponse, SamplingSettings, ToolCall, Usage

__all__ = ["Reply", "ScriptedModel", "calls_this_turn", "tool_calls", "user_turn"]

Reply = ChatMessage | str
Script = Callable[[list[ChatMessage], list[dict[str, Any]]], Reply]


class ScriptedModel:
    """A `ChatModel` whose replies come from `script(messages, tools)`: text, or a message with calls.

    Every request is kept in `requests` (messages and offered tool names) so a test can assert
    what the play loop showed the model.
    """

    def __init__(self, script: Script, name: str = "scripted") -> None:
        self.script = script
        self.name = name
        self.requests: list[tuple[list[ChatMessage], list[str]]] = []

    async def complete(self, messages: Sequence[ChatMessage], tools: Sequence[dict[str, Any]] | None = None, *,
                       settings: SamplingSettings | None = None) -> ModelResponse:
        offered = list(tools or [])
        self.requests.append((list(messages), [t["function"]["name"] for t in offered]))
        reply = self.script(list(messages), offered)
        message = ChatMessage(role="assistant", content=reply) if isinstance(reply, str) else reply
        return ModelResponse(message=message, usage=Usage(prompt_tokens=1, completion_tokens=1, requests=1))


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
