"""The `ChatModel` protocol: the one seam between the project and any LLM.

A model declares what it can do in its `profile` (pydantic-ai: `ModelProfile`), so callers read
capabilities instead of probing attributes. A model that adds behaviour around another one (a
cache, a meter) subclasses `WrapperModel`, which delegates everything by default.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from agent_sdk._messages import ChatMessage, ModelResponse, SamplingSettings

__all__ = ["ChatModel", "ModelProfile", "WrapperModel", "merge_settings"]


@dataclass(frozen=True, kw_only=True)
class ModelProfile:
    """What a model can do, declared by its implementation."""

    supports_output_schema: bool = False
    """`SamplingSettings.output_schema` is enforced while decoding (structured outputs): callers send
    the schema instead of describing it in the prompt."""


@runtime_checkable
class ChatModel(Protocol):
    """Messages + OpenAI-style tool schemas in, one assistant message (with tool_calls) out.

    Implementations: `OpenAIChatModel` (any OpenAI-compatible HTTP server), `LocalChatModel`
    (transformers); in tests, `FunctionModel` (replies from a function). Implementations raise `ModelError` on
    failures they could not recover from after their own retries.
    """

    name: str
    profile: ModelProfile

    async def complete(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[dict[str, Any]] | None = None,
        *,
        settings: SamplingSettings | None = None,
    ) -> ModelResponse:
        """Return the model's next assistant message."""
        ...


class WrapperModel:
    """A `ChatModel` around `inner` that delegates name, profile, requests and reply-syntax reports.

    Subclasses override what they add (`complete` for a cache or a meter, `record_reply_syntax`
    to count structured replies) and call `super()` to pass it on.
    """

    def __init__(self, inner: ChatModel) -> None:
        self.inner = inner

    @property
    def name(self) -> str:
        """The wrapped model's name."""
        return self.inner.name

    @property
    def profile(self) -> ModelProfile:
        """The wrapped model's capabilities."""
        return self.inner.profile

    async def complete(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[dict[str, Any]] | None = None,
        *,
        settings: SamplingSettings | None = None,
    ) -> ModelResponse:
        """The wrapped model's reply."""
        return await self.inner.complete(messages, tools, settings=settings)

    def record_reply_syntax(self, ok: bool) -> None:
        """A structured reply parsed and matched its schema (`ok`) or not: passed on to a wrapped wrapper."""
        if isinstance(self.inner, WrapperModel):
            self.inner.record_reply_syntax(ok)


def merge_settings(defaults: SamplingSettings, override: SamplingSettings | None) -> SamplingSettings:
    """`defaults` with the fields `override` sets explicitly (None: `defaults` unchanged)."""
    return defaults.model_copy(update=override.model_dump(exclude_unset=True)) if override is not None else defaults
