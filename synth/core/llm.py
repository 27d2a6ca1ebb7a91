"""`MeteredModel`: a `ChatModel` wrapper adding the cache, the concurrency limit and the counters.

Every pipeline wraps its model once; stages then call it like any `ChatModel`. It is an
`agent_sdk.WrapperModel`: name and profile are the wrapped backend's (HTTP, local, scripted).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import anyio
from pydantic import BaseModel

from agent_sdk import ChatMessage, ChatModel, ModelResponse, SamplingSettings, Usage, WrapperModel
from synth.core.cache import LLMCache, cache_key

__all__ = ["LLMCounts", "MeteredModel"]


class LLMCounts(BaseModel):
    """What a pipeline spent on its model: real calls, cache hits, failures and tokens."""

    calls: int = 0
    cache_hits: int = 0
    errors: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    structured_replies: int = 0
    """Replies to structured requests (cache hits included), each parsed and validated once."""
    syntax_failures: int = 0
    """Of those, replies that held no JSON (`no_json`) or broke the schema (`invalid_output`)."""

    def __add__(self, other: LLMCounts) -> LLMCounts:
        return LLMCounts(**{k: getattr(self, k) + getattr(other, k) for k in LLMCounts.model_fields})


class MeteredModel(WrapperModel):
    """A `ChatModel` that consults `cache` first, bounds concurrent calls and counts them.

    Args:
        model: the backend that answers cache misses.
        cache: where responses are stored (None: no caching).
        max_concurrency: at most this many requests in flight to `model`.
        timeout_s: a request running longer than this fails (counted in `errors`).
    """

    def __init__(
        self,
        model: ChatModel,
        *,
        cache: LLMCache | None = None,
        max_concurrency: int = 8,
        timeout_s: float = 600.0,
    ) -> None:
        super().__init__(model)
        self.cache = cache
        self.limiter = anyio.CapacityLimiter(max_concurrency)
        self.timeout_s = timeout_s
        self.counts = LLMCounts()

    async def complete(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[dict[str, Any]] | None = None,
        *,
        settings: SamplingSettings | None = None,
    ) -> ModelResponse:
        """Answer from the cache when possible, else from the wrapped model (then cache it)."""
        key = cache_key(self.name, messages, tools, settings) if self.cache is not None else None
        if key is not None and self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                self.counts.cache_hits += 1
                return hit
        async with self.limiter:
            self.counts.calls += 1
            try:
                with anyio.fail_after(self.timeout_s):
                    response = await self.inner.complete(messages, tools, settings=settings)
            except Exception:
                self.counts.errors += 1
                raise
        self.counts.prompt_tokens += response.usage.prompt_tokens
        self.counts.completion_tokens += response.usage.completion_tokens
        if key is not None and self.cache is not None:
            self.cache.put(key, response)
        return response

    def record_reply_syntax(self, ok: bool) -> None:
        """Count one structured reply, and whether it parsed and matched its schema (`ask_structured` calls this)."""
        self.counts.structured_replies += 1
        self.counts.syntax_failures += not ok
        super().record_reply_syntax(ok)

    @property
    def usage(self) -> Usage:
        """Tokens spent on real (uncached) calls."""
        c = self.counts
        return Usage(prompt_tokens=c.prompt_tokens, completion_tokens=c.completion_tokens, requests=c.calls)
