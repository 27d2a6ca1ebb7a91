"""A scripted `ChatModel` for tests: the one test double allowed, standing in for a remote LLM.

Tests use it through the fixtures of `tests/synth/conftest.py`; a subprocess started by a
test imports it directly (with this directory on `sys.path`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from agent_sdk import ChatMessage, ModelResponse, SamplingSettings, Usage

Reply = str | ModelResponse | BaseException


class ScriptedModel:
    """A `ChatModel` whose replies come from `fn(messages, tools, settings)`.

    `fn` returns the reply text, a full `ModelResponse`, or an exception to raise (it may be
    async). Every request is recorded in `requests` for assertions.
    """

    def __init__(self, fn: Callable[[list[ChatMessage], Any, SamplingSettings | None], Any], name: str = "scripted") -> None:
        self.fn = fn
        self.name = name
        self.requests: list[list[ChatMessage]] = []

    async def complete(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[dict[str, Any]] | None = None,
        *,
        settings: SamplingSettings | None = None,
    ) -> ModelResponse:
        self.requests.append(list(messages))
        out = self.fn(list(messages), tools, settings)
        if inspect.isawaitable(out):
            out = await out
        if isinstance(out, BaseException):
            raise out
        if isinstance(out, ModelResponse):
            return out
        prompt = sum(len(m.content or "") for m in messages) // 4
        return ModelResponse(
            message=ChatMessage(role="assistant", content=out),
            usage=Usage(prompt_tokens=prompt, completion_tokens=len(out) // 4, requests=1),
            finish_reason="stop",
        )


def replies(*items: Reply) -> Callable[..., Reply]:
    """A script that returns `items` in order (and fails the test if asked for more)."""
    queue = list(items)

    def next_reply(messages: list[ChatMessage], tools: Any, settings: Any) -> Reply:
        assert queue, f"scripted model asked for more replies than scripted; last prompt: {messages[-1].content!r:.300}"
        return queue.pop(0)

    return next_reply
