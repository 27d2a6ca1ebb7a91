"""`FunctionModel`: a `ChatModel` whose replies come from a Python function (the test double for an LLM).

Tests, eval tests and benchmarks drive every model-facing part of the project with it: the
function sees what a served model would see (the messages, the offered tools and the sampling
settings) and answers with text, a message with tool calls, a whole `ModelResponse`, or an
exception to raise. Everything else a test touches stays real (MCP servers, sandboxes, files).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from agent_sdk._messages import ChatMessage, ModelResponse, SamplingSettings, Usage
from agent_sdk._model import ModelProfile
from agent_sdk.exceptions import UserError

__all__ = ["FunctionModel", "ModelRequest", "Reply", "ReplyFunction"]

Reply: TypeAlias = str | ChatMessage | ModelResponse | BaseException
"""What a reply function returns: final text, an assistant message (e.g. with tool calls), a
full response (usage and finish reason as given), or an exception for `complete` to raise."""

ReplyFunction: TypeAlias = Callable[
    [list[ChatMessage], list[dict[str, Any]], SamplingSettings | None], Reply | Awaitable[Reply]
]
"""`function(messages, tools, settings)`: the conversation, the OpenAI-style tool schemas
offered (empty when none) and the request's settings (None when the caller gave none)."""


@dataclass(frozen=True, kw_only=True)
class ModelRequest:
    """One request a `FunctionModel` received, kept for a test's assertions."""

    messages: list[ChatMessage]
    """The conversation as sent."""
    tools: list[dict[str, Any]]
    """The OpenAI-style tool schemas offered."""
    settings: SamplingSettings | None
    """The sampling settings as sent (None when the caller gave none)."""

    @property
    def tool_names(self) -> list[str]:
        """Names of the offered tools, in order."""
        return [t["function"]["name"] for t in self.tools]


class FunctionModel:
    """A `ChatModel` answering each request with `function(messages, tools, settings)`.

    The function may be async. Every request is appended to `requests`. A text or message
    reply is counted with `reply_usage` when given, else with a rough estimate (four characters a
    token), so token budgets and per-stage statistics see plausible numbers.

    Like a real backend, the model declares whether it enforces `SamplingSettings.output_schema`
    (`profile.supports_output_schema`); callers then send the schema in the settings instead of the
    prompt. It does not check replies against the schema: the function decides what comes back,
    so a test can also play a backend that breaks its promise or refuses the schema.

    Args:
        function: the reply function.
        name: the model name (what caches and statistics key on).
        supports_output_schema: claim to enforce output schemas (structured outputs).
        reply_usage: token counts of every text or message reply (None: estimated from the text).
    """

    def __init__(
        self,
        function: ReplyFunction,
        *,
        name: str = "function",
        supports_output_schema: bool = False,
        reply_usage: Usage | None = None,
    ) -> None:
        self.function = function
        self.name = name
        self.profile = ModelProfile(supports_output_schema=supports_output_schema)
        self.reply_usage = reply_usage
        self.requests: list[ModelRequest] = []

    @classmethod
    def from_replies(cls, *replies: Reply, **options: Any) -> FunctionModel:
        """A model giving `replies` in order, one per request (options as for the constructor).

        Raises:
            UserError: from `complete`, when asked for more replies than were given.
        """
        queue = list(replies)

        def next_reply(messages: list[ChatMessage], tools: Any, settings: Any) -> Reply:
            if not queue:
                last = messages[-1].content if messages else None
                raise UserError(f"FunctionModel.from_replies: asked for more than {len(replies)} replies; last prompt: {last!r:.300}")
            return queue.pop(0)

        return cls(next_reply, **options)

    async def complete(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[dict[str, Any]] | None = None,
        *,
        settings: SamplingSettings | None = None,
    ) -> ModelResponse:
        """The function's reply to this request.

        Raises:
            BaseException: whatever exception the function returned or raised.
        """
        request = ModelRequest(messages=list(messages), tools=list(tools or []), settings=settings)
        self.requests.append(request)
        reply = self.function(list(request.messages), list(request.tools), settings)
        if inspect.isawaitable(reply):
            reply = await reply
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, ModelResponse):
            return reply
        message = ChatMessage(role="assistant", content=reply) if isinstance(reply, str) else reply
        return ModelResponse(
            message=message,
            usage=self.reply_usage or _estimated_usage(request.messages, message),
            finish_reason="tool_calls" if message.tool_calls else "stop",
        )


def _estimated_usage(messages: Sequence[ChatMessage], reply: ChatMessage) -> Usage:
    prompt = sum(len(m.content or "") for m in messages) // 4
    completion = len(reply.content or "") // 4 + sum(len(c.name) + len(str(c.arguments)) for c in reply.tool_calls) // 4
    return Usage(prompt_tokens=prompt, completion_tokens=completion, requests=1)
