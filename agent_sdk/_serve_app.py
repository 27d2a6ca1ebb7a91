"""A minimal OpenAI-compatible HTTP app over any `ChatModel` (the fallback when vLLM is absent).

Serves `GET /v1/models` and `POST /v1/chat/completions` (non-streaming) so that clients written
for vLLM work unchanged, output schemas (`structured_outputs` or `response_format`) included;
a prompt that does not fit is a 400 worded like vLLM's. Tool calls are always returned structured in `tool_calls`, parsed
from the model's text by the backend. Concurrent requests reach the model concurrently, which
is what lets `LocalChatModel` batch them.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from agent_sdk._messages import ChatMessage, SamplingSettings
from agent_sdk._model import ChatModel
from agent_sdk._tool_parsing import parse_tool_calls
from agent_sdk.exceptions import ContextOverflowError, ModelError

__all__ = ["ChatCompletionRequest", "chat_app"]


class ChatCompletionRequest(BaseModel):
    """The subset of the OpenAI chat completions request this app honours (extra fields ignored)."""

    model_config = ConfigDict(extra="ignore")

    model: str | None = None
    messages: list[dict[str, Any]] = Field(min_length=1)
    tools: list[dict[str, Any]] | None = None
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = Field(default=None, ge=1)
    max_completion_tokens: int | None = Field(default=None, ge=1)
    seed: int | None = None
    stop: str | list[str] | None = None
    stream: bool = False
    structured_outputs: dict[str, Any] | None = Field(default=None, description="vLLM's form: `{json: schema}`.")
    response_format: dict[str, Any] | None = Field(default=None, description="OpenAI's form: json_schema.")

    def output_schema(self) -> dict[str, Any] | None:
        """The JSON Schema the reply must satisfy, in either request form."""
        if self.structured_outputs and isinstance(self.structured_outputs.get("json"), dict):
            return self.structured_outputs["json"]
        if self.response_format and self.response_format.get("type") == "json_schema":
            schema = (self.response_format.get("json_schema") or {}).get("schema")
            return schema if isinstance(schema, dict) else None
        return None

    def settings(self) -> SamplingSettings:
        """The request's sampling settings (only the fields it set)."""
        fields: dict[str, Any] = {
            "temperature": self.temperature,
            "top_p": self.top_p,
            "max_tokens": self.max_completion_tokens or self.max_tokens,
            "seed": self.seed,
            "stop": [self.stop] if isinstance(self.stop, str) else self.stop,
            "output_schema": self.output_schema(),
        }
        return SamplingSettings(**{k: v for k, v in fields.items() if v is not None})


def chat_app(model: ChatModel) -> Starlette:
    """A Starlette app serving `model` at `/v1/models` and `/v1/chat/completions`."""

    async def models(_: Request) -> JSONResponse:
        return JSONResponse({"object": "list", "data": [{"id": model.name, "object": "model", "owned_by": "astra"}]})

    async def chat(request: Request) -> JSONResponse:
        try:
            body = ChatCompletionRequest.model_validate(await request.json())
            messages = [_message(m, i) for i, m in enumerate(body.messages)]
        except (ValueError, ValidationError) as exc:
            return _error(400, f"invalid request: {exc}")
        if body.stream:
            return _error(400, "stream=true is not supported by this server")
        try:
            response = await model.complete(messages, body.tools, settings=body.settings())
        except ContextOverflowError as exc:
            return _error(400, str(exc))
        except ModelError as exc:
            return _error(500, str(exc))
        message: dict[str, Any] = {"role": "assistant", "content": response.message.content}
        if response.message.tool_calls:
            message["tool_calls"] = [c.to_openai() for c in response.message.tool_calls]
        usage = response.usage
        return JSONResponse(
            {
                "id": "chatcmpl-" + uuid.uuid4().hex,
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model.name,
                "choices": [{"index": 0, "message": message, "finish_reason": response.finish_reason or "stop"}],
                "usage": {
                    "prompt_tokens": usage.prompt_tokens,
                    "completion_tokens": usage.completion_tokens,
                    "total_tokens": usage.prompt_tokens + usage.completion_tokens,
                },
            }
        )

    return Starlette(routes=[Route("/v1/models", models), Route("/v1/chat/completions", chat, methods=["POST"])])


def _message(raw: dict[str, Any], index: int) -> ChatMessage:
    """An OpenAI request message as a `ChatMessage` (tool-call arguments parsed from JSON text)."""
    content = raw.get("content")
    if isinstance(content, list):
        content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
    try:
        calls = parse_tool_calls(None, raw.get("tool_calls") or None).calls
        return ChatMessage(
            role=raw.get("role"),  # type: ignore[arg-type]
            content=content,
            tool_calls=calls,
            tool_call_id=raw.get("tool_call_id"),
            name=raw.get("name"),
        )
    except ValidationError as exc:
        raise ValueError(f"messages[{index}]: {exc.errors()[0]['msg']}") from exc


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": "invalid_request_error" if status == 400 else "server_error"}}, status_code=status)
