"""The `ChatModel` protocol: the one seam between the project and any LLM."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from agent_sdk._messages import ChatMessage, ModelResponse, SamplingSettings


@runtime_checkable
class ChatModel(Protocol):
    """Messages + OpenAI-style tool schemas in, one assistant message (with tool_calls) out.

    Implementations: `OpenAIChatModel` (any OpenAI-compatible HTTP server), `LocalChatModel`
    (transformers); in tests, `FunctionModel` (replies from a function). Implementations raise `ModelError` on
    failures they could not recover from after their own retries.
    """

    name: str

    async def complete(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[dict[str, Any]] | None = None,
        *,
        settings: SamplingSettings | None = None,
    ) -> ModelResponse:
        """Return the model's next assistant message."""
        ...
