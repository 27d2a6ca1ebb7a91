"""`OpenAIChatModel`: any OpenAI-compatible chat completions server (vLLM, SGLang, OpenAI, ...)."""

from __future__ import annotations

import logging
import os
import random
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal, get_args

import anyio
import anyio.lowlevel
import httpx
from pydantic import BaseModel, Field

from agent_sdk._messages import ChatMessage, ModelResponse, SampledTokens, SamplingSettings, TokenChoice, Usage
from agent_sdk._model import ModelProfile, merge_settings
from agent_sdk._schema_subset import enforceable_schema
from agent_sdk._tool_parsing import ParsedCalls, parse_tool_calls
from agent_sdk.exceptions import ContextOverflowError, ModelError, ModelHTTPError, UserError

__all__ = ["OpenAIChatModel", "RetryPolicy", "StructuredOutputMode"]

logger = logging.getLogger(__name__)

ENV_BASE_URL = "ASTRA_LLM_BASE_URL"
ENV_MODEL = "ASTRA_LLM_MODEL"
ENV_API_KEY = "ASTRA_LLM_API_KEY"
ENV_STRUCTURED_OUTPUT = "ASTRA_LLM_STRUCTURED_OUTPUT"

StructuredOutputMode = Literal["vllm", "openai", "none"]
"""How `OpenAIChatModel` sends `SamplingSettings.output_schema`: vLLM's `structured_outputs`
(whitespace bounded), OpenAI's `response_format` json_schema, or not at all."""

# How servers word "the prompt does not fit": vLLM's request validation and engine, OpenAI's
# error code, and `LocalChatModel` behind `astra model serve`.
_CONTEXT_OVERFLOW = re.compile(
    r"maximum context length|context_length_exceeded|longer than the maximum model length|exceeds the context",
    re.IGNORECASE,
)
_SCHEMA_NAME = re.compile(r"[^A-Za-z0-9_-]+")


class RetryPolicy(BaseModel):
    """When and how long to retry a failed request (exponential backoff with jitter).

    Retried: HTTP statuses in `retry_statuses` (429 and 5xx by default) and transport
    errors (connection refused or reset, timeouts). A `Retry-After` header is honoured up
    to `max_backoff_s`.
    """

    max_attempts: int = Field(default=5, ge=1, description="Attempts in total, the first included.")
    initial_backoff_s: float = Field(default=0.5, ge=0)
    max_backoff_s: float = Field(default=20.0, ge=0)
    multiplier: float = Field(default=2.0, ge=1)
    jitter: float = Field(default=0.1, ge=0, le=1, description="Random fraction added to each wait.")
    retry_statuses: frozenset[int] = frozenset({408, 429, 500, 502, 503, 504})

    def backoff(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before attempt `attempt + 1` (attempt counts from 1)."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_backoff_s)
        base = min(self.initial_backoff_s * self.multiplier ** (attempt - 1), self.max_backoff_s)
        return base * (1 + self.jitter * random.random())


class OpenAIChatModel:
    """A `ChatModel` over the OpenAI chat completions API (httpx, async).

    Settings come from the arguments, else from `ASTRA_LLM_BASE_URL`, `ASTRA_LLM_MODEL`
    and `ASTRA_LLM_API_KEY`. Without a model name the first model the server lists is used.
    Tool calls are taken from `tool_calls` or, when a server or small model writes them as
    text, parsed from the content (see `parse_tool_calls`).

    Args:
        model: model name to request.
        base_url: e.g. `http://127.0.0.1:8000/v1`.
        api_key: bearer token (servers that need none accept any).
        timeout_s: limit for one HTTP request.
        retry: retry policy.
        max_concurrency: requests in flight at once from this object.
        settings: default sampling settings (per-call settings override field by field).
        extra_body: extra JSON fields for every request (e.g. `{"top_k": 20}` for vLLM).
        structured_output: how an output schema is sent (`StructuredOutputMode`): "vllm"
            (`structured_outputs` with whitespace bounded, so a small model cannot pad a reply
            to `max_tokens`), "openai" (`response_format` json_schema, strict) or "none" (the
            endpoint cannot enforce one). Default: `$ASTRA_LLM_STRUCTURED_OUTPUT`, else "vllm".
        http_client: the `httpx.AsyncClient` to send requests with (its transport, pool and
            lifetime stay the caller's: `aclose` leaves it open); default: one of this object's own
            per event loop. Tests pass one over `httpx.MockTransport`.

    Attributes:
        profile: `supports_output_schema` when `SamplingSettings.output_schema` is enforced (not "none").

    Raises:
        UserError: when no base URL is given or configured, or it is not an http(s) URL, or the
            structured output mode is unknown.
    """

    def __init__(
        self,
        model: str | None = None,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout_s: float = 120.0,
        retry: RetryPolicy | None = None,
        max_concurrency: int = 16,
        settings: SamplingSettings | None = None,
        extra_body: Mapping[str, Any] | None = None,
        structured_output: StructuredOutputMode | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        base_url = base_url or os.environ.get(ENV_BASE_URL)
        if not base_url:
            raise UserError(f"no model endpoint: pass base_url or set {ENV_BASE_URL} (e.g. http://127.0.0.1:8000/v1)")
        if not base_url.startswith(("http://", "https://")):
            raise UserError(f"model base URL {base_url!r} must start with http:// or https://")
        self.base_url = base_url.rstrip("/")
        self.model = model or os.environ.get(ENV_MODEL) or None
        self.api_key = api_key or os.environ.get(ENV_API_KEY) or "EMPTY"
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy()
        self.max_concurrency = max_concurrency
        self.settings = settings or SamplingSettings()
        self.extra_body = dict(extra_body or {})
        mode = structured_output or os.environ.get(ENV_STRUCTURED_OUTPUT) or "vllm"
        if mode not in get_args(StructuredOutputMode):
            choices = ", ".join(get_args(StructuredOutputMode))
            raise UserError(f"structured output mode {mode!r} (argument or ${ENV_STRUCTURED_OUTPUT}): choose {choices}")
        self.structured_output: StructuredOutputMode = mode  # type: ignore[assignment]
        self.profile = ModelProfile(supports_output_schema=mode != "none")
        self._given_client = http_client
        self._client: httpx.AsyncClient | None = None
        self._limiter: anyio.CapacityLimiter | None = None
        self._loop_token: object | None = None

    @property
    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"}

    @classmethod
    def from_env(cls, **overrides: Any) -> OpenAIChatModel:
        """A model configured from `ASTRA_LLM_*` (keyword arguments override)."""
        return cls(**overrides)

    @property
    def name(self) -> str:
        """The model name (the base URL until the name is known)."""
        return self.model or self.base_url

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        client, self._client = self._client, None
        if client is not None and client is not self._given_client:
            await client.aclose()

    async def __aenter__(self) -> OpenAIChatModel:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.aclose()

    def _http(self) -> tuple[httpx.AsyncClient, anyio.CapacityLimiter]:
        # Pools and limiters belong to one event loop; `run_sync` starts a new loop per call.
        token = anyio.lowlevel.current_token()
        if self._client is None or self._limiter is None or self._loop_token != token:
            self._client = self._given_client or httpx.AsyncClient(
                timeout=self.timeout_s, limits=httpx.Limits(max_connections=self.max_concurrency)
            )
            self._limiter = anyio.CapacityLimiter(self.max_concurrency)
            self._loop_token = token
        return self._client, self._limiter

    async def complete(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[dict[str, Any]] | None = None,
        *,
        settings: SamplingSettings | None = None,
    ) -> ModelResponse:
        """Request the next assistant message.

        With `settings.output_schema` (and a mode other than "none") the reply is constrained to
        the schema, no tools are offered and the content is returned as written.

        Raises:
            ContextOverflowError: the server says the prompt does not fit the model's context.
            ModelHTTPError: for an error status that is not retryable, or still failing after retries.
            ModelError: for transport failures after retries, or a response that is not a chat completion.
        """
        if self.model is None:
            self.model = await self._first_model()
        body = self._body(messages, tools, settings)
        data = await self._post("/chat/completions", body)
        constrained = "structured_outputs" in body or "response_format" in body
        return self._response(data, None if constrained else tools, parse_calls=not constrained)

    def _body(
        self, messages: Sequence[ChatMessage], tools: Sequence[dict[str, Any]] | None, settings: SamplingSettings | None
    ) -> dict[str, Any]:
        merged = merge_settings(self.settings, settings)
        body: dict[str, Any] = {"model": self.model, "messages": [m.to_openai() for m in messages]}
        schema = merged.output_schema if self.profile.supports_output_schema else None
        if schema is not None:
            body.update(self._schema_fields(schema))
        elif tools:
            body["tools"] = list(tools)
            body["tool_choice"] = "auto"
        body.update({k: v for k, v in merged.model_dump(exclude={"output_schema", "return_tokens", "top_logprobs"}).items() if v is not None})
        if merged.return_tokens:
            body.update(return_token_ids=True, logprobs=True)
        if merged.top_logprobs:
            body.update(logprobs=True, top_logprobs=merged.top_logprobs)
        body.update(self.extra_body)
        return body

    def _schema_fields(self, schema: dict[str, Any]) -> dict[str, Any]:
        """The request fields that constrain the reply to `schema`, in this endpoint's dialect.

        Only the enforceable part of the schema is sent (`enforceable_schema`): an engine that
        cannot compile a keyword refuses the whole request. The caller validates the reply.
        """
        schema = enforceable_schema(schema)
        if self.structured_output == "vllm":
            # Without a whitespace bound a small model may pad the reply with newlines until
            # max_tokens. vLLM 0.32 takes the bound from its server config (`VllmOptions.compact_json`);
            # the request field asks for it where a server honours it per request.
            return {"structured_outputs": {"json": schema, "disable_any_whitespace": True}}
        name = _SCHEMA_NAME.sub("_", str(schema.get("title") or "output"))[:64] or "output"
        return {"response_format": {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}}}

    def _response(self, data: Any, tools: Sequence[dict[str, Any]] | None, *, parse_calls: bool = True) -> ModelResponse:
        try:
            choice = data["choices"][0]
            raw = choice["message"]
        except (KeyError, IndexError, TypeError) as exc:
            raise ModelError(f"{self.base_url}: not a chat completion response: {str(data)[:300]}") from exc
        known = {t.get("function", {}).get("name") for t in tools or []}
        if parse_calls:
            parsed = parse_tool_calls(raw.get("content"), raw.get("tool_calls"), known_tools=known or None)
        else:
            # A schema-constrained reply is the answer itself, even when it looks like a call.
            parsed = ParsedCalls(content_without_calls=raw.get("content"))
        usage_raw = data.get("usage") or {}
        usage = Usage(
            prompt_tokens=int(usage_raw.get("prompt_tokens") or 0),
            completion_tokens=int(usage_raw.get("completion_tokens") or 0),
            requests=1,
        )
        message = ChatMessage(role="assistant", content=parsed.content_without_calls, tool_calls=parsed.calls)
        return ModelResponse(
            message=message, usage=usage, finish_reason=choice.get("finish_reason"), repairs=parsed.repairs, tokens=_sampled(data, choice),
            token_choices=_token_choices(choice),
        )

    async def _first_model(self) -> str:
        data = await self._request("GET", "/models", None)
        try:
            return str(data["data"][0]["id"])
        except (KeyError, IndexError, TypeError) as exc:
            raise ModelError(f"{self.base_url}/models lists no model; pass a model name") from exc

    async def _post(self, path: str, body: dict[str, Any]) -> Any:
        return await self._request("POST", path, body)

    async def _request(self, method: str, path: str, body: dict[str, Any] | None) -> Any:
        client, limiter = self._http()
        url = self.base_url + path
        policy = self.retry
        for attempt in range(1, policy.max_attempts + 1):
            retry_after: float | None = None
            try:
                async with limiter:
                    response = await client.request(method, url, json=body, headers=self._headers, timeout=self.timeout_s)
            except httpx.TransportError as exc:
                if attempt == policy.max_attempts:
                    raise ModelError(f"{method} {url} failed after {attempt} attempts: {exc!r}") from exc
                failure = repr(exc)
            else:
                if response.status_code < 400:
                    try:
                        return response.json()
                    except ValueError as exc:
                        raise ModelError(f"{method} {url}: response is not JSON: {response.text[:300]}") from exc
                if response.status_code == 400 and _CONTEXT_OVERFLOW.search(response.text):
                    raise ContextOverflowError(f"{method} {url} -> HTTP 400: {response.text[:300]}")
                retryable = response.status_code in policy.retry_statuses
                if not retryable or attempt == policy.max_attempts:
                    tries = f" after {attempt} attempts" if retryable else ""
                    raise ModelHTTPError(
                        f"{method} {url} -> HTTP {response.status_code}{tries}: {response.text[:300]}",
                        status_code=response.status_code,
                        body=response.text[:2000],
                    )
                failure = f"HTTP {response.status_code}"
                retry_after = _retry_after(response)
            wait = policy.backoff(attempt, retry_after)
            logger.warning("%s %s: %s; retrying in %.2f s (attempt %d)", method, url, failure, wait, attempt)
            await anyio.sleep(wait)
        raise AssertionError("unreachable: the last attempt returns or raises")


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        return None


def _sampled(data: dict[str, Any], choice: dict[str, Any]) -> SampledTokens | None:
    """The prompt and completion token ids and the completion's logprobs of a vLLM reply; None when any is missing."""
    prompt, completion = data.get("prompt_token_ids"), choice.get("token_ids")
    content = (choice.get("logprobs") or {}).get("content")
    if not prompt or completion is None or content is None or len(content) != len(completion):
        return None
    return SampledTokens(prompt_ids=prompt, completion_ids=completion, logprobs=[float(t["logprob"]) for t in content])


def _token_choices(choice: dict[str, Any]) -> list[TokenChoice] | None:
    """The reply's tokens with their top alternatives (OpenAI `logprobs.content[].top_logprobs`); None when not returned."""
    content = (choice.get("logprobs") or {}).get("content")
    if not content or not any(t.get("top_logprobs") for t in content):
        return None
    return [
        TokenChoice(token=t["token"], logprob=float(t["logprob"]), top={a["token"]: float(a["logprob"]) for a in t.get("top_logprobs") or []})
        for t in content
    ]
