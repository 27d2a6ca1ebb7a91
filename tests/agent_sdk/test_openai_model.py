"""OpenAIChatModel against scripted replies over `httpx.MockTransport`; a real server only where sockets matter
(a refused connection, requests in flight at once)."""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import jsonschema
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from agent_sdk import (
    Agent,
    ChatMessage,
    ContextOverflowError,
    ModelError,
    ModelHTTPError,
    OpenAIChatModel,
    RetryPolicy,
    SamplingSettings,
    Toolbox,
    UserError,
)

pytestmark = pytest.mark.anyio

FAST_RETRY = RetryPolicy(max_attempts=3, initial_backoff_s=0.01, max_backoff_s=0.05)

Handler = Callable[[dict[str, Any], int], JSONResponse]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _completion(content: str | None = None, tool_calls: list[dict[str, Any]] | None = None) -> JSONResponse:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return JSONResponse(
        {
            "id": "x",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
        }
    )


@asynccontextmanager
async def llm_server(handler: Handler) -> AsyncIterator[tuple[str, list[dict[str, Any]], httpx.AsyncClient]]:
    """Answer `handler(body, request_number)` at /v1/chat/completions through `httpx.MockTransport`;
    yields (base_url, bodies, the client to give `OpenAIChatModel(http_client=...)`)."""
    bodies: list[dict[str, Any]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/models":
            reply = JSONResponse({"object": "list", "data": [{"id": "served-model", "object": "model"}]})
        else:
            bodies.append(json.loads(request.content))
            reply = handler(bodies[-1], len(bodies))
        return httpx.Response(reply.status_code, content=reply.body, headers=dict(reply.headers))

    async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as client:
        yield "http://llm.test/v1", bodies, client


async def test_retries_429_then_parses_text_tool_call_with_repair(helpers):
    def handler(body, n):
        if n == 1:
            return JSONResponse({"error": "slow down"}, status_code=429, headers={"retry-after": "0"})
        if n == 2:
            return _completion("{\"name\": \"add\", \"arguments\": {'k': 2,}}")
        return _completion("The total is 2.")

    state = {"n": 0}

    async def add(args):
        state["n"] += args["k"]
        return str(state["n"])

    async with llm_server(handler) as (base_url, bodies, http):
        model = OpenAIChatModel(base_url=base_url, http_client=http, retry=FAST_RETRY, settings=SamplingSettings(temperature=0.2))
        async with model:
            agent = Agent(model, Toolbox(helpers.make_server("calc", {"add": add})))
            trajectory = await agent.run("add 2")
    assert len(bodies) == 3
    assert bodies[0] == bodies[1]
    assert bodies[1]["model"] == "served-model" and bodies[1]["tool_choice"] == "auto"
    assert bodies[1]["temperature"] == 0.2 and bodies[1]["max_tokens"] == 1024
    assert bodies[1]["tools"][0]["function"]["name"] == "add"
    tool_message = bodies[2]["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["content"] == "2"
    assert bodies[2]["messages"][-2]["tool_calls"][0]["function"] == {"name": "add", "arguments": '{"k": 2}'}
    assert trajectory.stop_reason == "final_answer" and trajectory.final_answer == "The total is 2."
    assert trajectory.tool_calls[0].result.text == "2"
    assert [r.fixes for r in trajectory.repairs] == [["single_quotes", "trailing_commas"]]
    assert trajectory.usage.prompt_tokens == 22 and trajectory.usage.requests == 2
    assert trajectory.model == "served-model"


async def test_structured_tool_calls_and_tool_call_blocks():
    def handler(body, n):
        if n == 1:
            call = {"id": "abc", "type": "function", "function": {"name": "f", "arguments": '{"x": 1'}}
            return _completion(None, [call])
        return _completion('Let me check.\n<tool_call>\n{"name": "g", "arguments": {"y": true}}\n</tool_call>')

    async with llm_server(handler) as (base_url, _, http):
        async with OpenAIChatModel("m", base_url=base_url, http_client=http, retry=FAST_RETRY) as model:
            tools = [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}} for n in "fg"]
            first = await model.complete([ChatMessage(role="user", content="hi")], tools)
            second = await model.complete([ChatMessage(role="user", content="hi")], tools)
    assert first.message.tool_calls[0].id == "abc" and first.message.tool_calls[0].arguments == {"x": 1}
    assert first.repairs[0].fixes == ["truncated"] and first.finish_reason == "tool_calls"
    assert second.message.content == "Let me check."
    assert [(c.name, c.arguments) for c in second.message.tool_calls] == [("g", {"y": True})]


async def test_non_retryable_status_fails_at_once():
    async with llm_server(lambda body, n: JSONResponse({"error": "bad"}, status_code=400)) as (base_url, bodies, http):
        async with OpenAIChatModel("m", base_url=base_url, http_client=http, retry=FAST_RETRY) as model:
            with pytest.raises(ModelHTTPError) as info:
                await model.complete([ChatMessage(role="user", content="x")])
    assert info.value.status_code == 400 and len(bodies) == 1


async def test_5xx_retried_until_attempts_run_out():
    async with llm_server(lambda body, n: JSONResponse({"error": "down"}, status_code=503)) as (base_url, bodies, http):
        async with OpenAIChatModel("m", base_url=base_url, http_client=http, retry=FAST_RETRY) as model:
            with pytest.raises(ModelHTTPError, match="after 3 attempts"):
                await model.complete([ChatMessage(role="user", content="x")])
    assert len(bodies) == 3


async def test_connection_refused_is_retried_then_a_model_error():
    model = OpenAIChatModel("m", base_url=f"http://127.0.0.1:{_free_port()}/v1", retry=FAST_RETRY)
    async with model:
        with pytest.raises(ModelError, match="failed after 3 attempts"):
            await model.complete([ChatMessage(role="user", content="x")])


async def test_concurrency_limit_bounds_requests_in_flight():
    in_flight = {"now": 0, "max": 0}

    async def slow_chat(request: Request) -> JSONResponse:
        in_flight["now"] += 1
        in_flight["max"] = max(in_flight["max"], in_flight["now"])
        await anyio.sleep(0.05)
        in_flight["now"] -= 1
        return _completion("ok")

    app = Starlette(routes=[Route("/v1/chat/completions", slow_chat, methods=["POST"])])
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off"))
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve)
        with anyio.fail_after(10):
            while not server.started:
                await anyio.sleep(0.01)
        async with OpenAIChatModel("m", base_url=f"http://127.0.0.1:{port}/v1", max_concurrency=2) as model:
            async with anyio.create_task_group() as requests:
                for _ in range(6):
                    requests.start_soon(model.complete, [ChatMessage(role="user", content="x")])
        server.should_exit = True
    assert in_flight["max"] == 2


SCHEMA = {"type": "object", "title": "Tool call?", "properties": {"name": {"type": "string"}, "arguments": {"type": "object"}}}
TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
CALL_LIKE = '{"name": "f", "arguments": {}}'


async def test_output_schema_is_sent_as_vllm_structured_outputs_instead_of_tools(monkeypatch):
    monkeypatch.delenv("ASTRA_LLM_STRUCTURED_OUTPUT", raising=False)
    async with llm_server(lambda body, n: _completion(CALL_LIKE)) as (base_url, bodies, http):
        async with OpenAIChatModel("m", base_url=base_url, http_client=http, retry=FAST_RETRY) as model:
            assert model.profile.supports_output_schema and model.structured_output == "vllm"
            settings = SamplingSettings(max_tokens=32, output_schema=SCHEMA)
            response = await model.complete([ChatMessage(role="user", content="x")], TOOLS, settings=settings)
            plain = await model.complete([ChatMessage(role="user", content="x")], TOOLS)
    constrained, free = bodies
    assert constrained["structured_outputs"] == {"json": SCHEMA, "disable_any_whitespace": True}
    assert "tools" not in constrained and "tool_choice" not in constrained and "output_schema" not in constrained
    assert constrained["max_tokens"] == 32
    assert response.message.content == CALL_LIKE and response.message.tool_calls == []
    assert "structured_outputs" not in free and free["tools"] == TOOLS
    assert [c.name for c in plain.message.tool_calls] == ["f"]


async def test_output_schema_as_openai_response_format_chosen_by_environment(monkeypatch):
    monkeypatch.setenv("ASTRA_LLM_STRUCTURED_OUTPUT", "openai")
    async with llm_server(lambda body, n: _completion('{"name": "x"}')) as (base_url, bodies, http):
        async with OpenAIChatModel("m", base_url=base_url, http_client=http, retry=FAST_RETRY) as model:
            await model.complete([ChatMessage(role="user", content="x")], settings=SamplingSettings(output_schema=SCHEMA))
    assert bodies[0]["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "Tool_call_", "schema": SCHEMA, "strict": True},
    }
    assert "structured_outputs" not in bodies[0]


async def test_output_schema_is_not_sent_to_an_endpoint_without_enforcement():
    async with llm_server(lambda body, n: _completion("ok")) as (base_url, bodies, http):
        async with OpenAIChatModel("m", base_url=base_url, http_client=http, structured_output="none") as model:
            assert not model.profile.supports_output_schema
            await model.complete([ChatMessage(role="user", content="x")], TOOLS, settings=SamplingSettings(output_schema=SCHEMA))
    assert bodies[0]["tools"] == TOOLS
    assert not {"structured_outputs", "response_format", "output_schema"} & set(bodies[0])


def test_unknown_structured_output_mode_is_a_user_error(monkeypatch):
    monkeypatch.setenv("ASTRA_LLM_STRUCTURED_OUTPUT", "xml")
    with pytest.raises(UserError, match="ASTRA_LLM_STRUCTURED_OUTPUT"):
        OpenAIChatModel("m", base_url="http://h/v1")


VLLM_TOO_LONG = (
    "This model's maximum context length is 4096 tokens. However, your prompt contains 5000 input tokens, "
    "which exceeds this limit even without any output tokens. Please reduce the length of the input prompt."
)


async def test_prompt_too_long_is_a_context_overflow_and_not_retried():
    error = {"error": {"message": VLLM_TOO_LONG, "type": "BadRequestError", "param": "input_tokens", "code": 400}}
    async with llm_server(lambda body, n: JSONResponse(error, status_code=400)) as (base_url, bodies, http):
        async with OpenAIChatModel("m", base_url=base_url, http_client=http, retry=FAST_RETRY) as model:
            with pytest.raises(ContextOverflowError, match="maximum context length is 4096"):
                await model.complete([ChatMessage(role="user", content="x" * 100)])
    assert len(bodies) == 1


def test_configuration_from_environment(monkeypatch):
    monkeypatch.setenv("ASTRA_LLM_BASE_URL", "http://example.invalid/v1/")
    monkeypatch.setenv("ASTRA_LLM_MODEL", "qwen")
    monkeypatch.setenv("ASTRA_LLM_API_KEY", "sk-test")
    model = OpenAIChatModel.from_env()
    assert (model.base_url, model.model, model.api_key) == ("http://example.invalid/v1", "qwen", "sk-test")
    assert OpenAIChatModel("other", base_url="http://h/v1").model == "other"
    monkeypatch.delenv("ASTRA_LLM_BASE_URL")
    with pytest.raises(UserError, match="ASTRA_LLM_BASE_URL"):
        OpenAIChatModel()


def test_retry_policy_backoff_grows_and_honours_retry_after():
    policy = RetryPolicy(initial_backoff_s=1, multiplier=2, max_backoff_s=5, jitter=0)
    assert [policy.backoff(a) for a in (1, 2, 3, 4)] == [1, 2, 4, 5]
    assert policy.backoff(1, retry_after=3) == 3 and policy.backoff(1, retry_after=60) == 5
    assert json.loads(RetryPolicy().model_dump_json())["max_attempts"] == 5


UNENFORCEABLE = {
    "type": "object",
    "properties": {
        "ids": {"type": "array", "items": {"enum": ["q1", "q2"]}, "uniqueItems": True, "contains": {"const": "q1"}},
        "n": {"type": "integer", "multipleOf": 2},
        "both": {"allOf": [{"type": "string"}, {"maxLength": 3}]},
    },
    "required": ["ids"],
    "minProperties": 1,
}


async def test_only_the_enforceable_part_of_a_schema_is_sent(monkeypatch):
    # xgrammar (vLLM's default engine) refuses the whole request over one of these keywords,
    # and the unconstrained fallback invites a small model to copy the schema.
    monkeypatch.delenv("ASTRA_LLM_STRUCTURED_OUTPUT", raising=False)
    async with llm_server(lambda body, n: _completion('{"ids": ["q1"]}')) as (base_url, bodies, http):
        async with OpenAIChatModel("m", base_url=base_url, http_client=http, retry=FAST_RETRY) as model:
            await model.complete([ChatMessage(role="user", content="x")], settings=SamplingSettings(output_schema=UNENFORCEABLE))
    sent = bodies[0]["structured_outputs"]["json"]
    assert sent == {
        "type": "object",
        "properties": {"ids": {"type": "array", "items": {"enum": ["q1", "q2"]}}, "n": {"type": "integer"}, "both": {"type": "string", "maxLength": 3}},
        "required": ["ids"],
    }
    # weaker, never stronger: what the full schema admits, the sent one admits too
    for value in ({"ids": ["q1"]}, {"ids": ["q1", "q2"], "n": 4, "both": "abc"}):
        jsonschema.validate(value, UNENFORCEABLE)
        jsonschema.validate(value, sent)
    jsonschema.validate({"ids": ["q2", "q2"]}, sent)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"ids": ["q2", "q2"]}, UNENFORCEABLE)


async def test_a_given_http_client_carries_the_key_and_stays_open():
    async with llm_server(lambda body, n: _completion("ok")) as (base_url, bodies, http):
        seen: list[str] = []
        http.event_hooks["request"].append(lambda request: _record(seen, request))
        async with OpenAIChatModel("m", base_url=base_url, api_key="sk-test", http_client=http) as model:
            assert (await model.complete([ChatMessage(role="user", content="hi")])).message.content == "ok"
        assert seen == ["Bearer sk-test"] and not http.is_closed


async def _record(seen: list[str], request: httpx.Request) -> None:
    seen.append(request.headers["authorization"])


async def test_top_logprobs_are_asked_for_and_read_per_token():
    def handler(body, n):
        reply = _completion('{"ok": "yes"}')
        data = json.loads(reply.body)
        tokens = [("{\"ok\": \"", -0.01, {}), ("yes", -0.4, {"yes": -0.4, "no": -1.1}), ("\"}", -0.02, {})]
        data["choices"][0]["logprobs"] = {
            "content": [{"token": t, "logprob": lp, "top_logprobs": [{"token": a, "logprob": v} for a, v in top.items()]} for t, lp, top in tokens]
        }
        return JSONResponse(data)

    async with llm_server(handler) as (base_url, bodies, http):
        model = OpenAIChatModel(base_url=base_url, http_client=http)
        plain = await model.complete([ChatMessage(role="user", content="ok?")])
        scored = await model.complete([ChatMessage(role="user", content="ok?")], settings=SamplingSettings(top_logprobs=3))
    assert "logprobs" not in bodies[0] and "top_logprobs" not in bodies[0]
    assert bodies[1]["logprobs"] is True and bodies[1]["top_logprobs"] == 3
    assert plain.token_choices is not None, "the backend returned them unasked: they are kept"
    assert [c.token for c in scored.token_choices] == ['{"ok": "', "yes", '"}']
    assert scored.token_choices[1].top == {"yes": -0.4, "no": -1.1} and scored.token_choices[0].top == {}
    assert "".join(c.token for c in scored.token_choices) == scored.message.content


async def test_a_reply_without_top_logprobs_has_no_token_choices():
    async with llm_server(lambda body, n: _completion("fine")) as (base_url, bodies, http):
        model = OpenAIChatModel(base_url=base_url, http_client=http)
        reply = await model.complete([ChatMessage(role="user", content="ok?")], settings=SamplingSettings(top_logprobs=2))
    assert reply.token_choices is None and reply.message.content == "fine"
