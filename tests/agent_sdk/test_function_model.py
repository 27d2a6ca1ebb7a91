"""`FunctionModel`, the test double for a model: replies, records, usage, structured outputs."""

from __future__ import annotations

import pytest

from agent_sdk import ChatMessage, FunctionModel, ModelError, ModelResponse, SamplingSettings, ToolCall, Usage, UserError

pytestmark = pytest.mark.anyio

TOOL = {"type": "function", "function": {"name": "lookup", "parameters": {"type": "object", "properties": {}}}}
HELLO = [ChatMessage(role="user", content="hello there, model")]


async def test_the_function_sees_messages_tools_and_settings_and_each_request_is_kept():
    seen = []

    async def reply(messages, tools, settings):
        seen.append((messages, tools, settings))
        return ChatMessage(role="assistant", tool_calls=[ToolCall(id="c0", name="lookup")])

    model = FunctionModel(reply, name="m")
    settings = SamplingSettings(seed=3)
    response = await model.complete(HELLO, [TOOL], settings=settings)
    assert response.message.tool_calls[0].name == "lookup" and response.finish_reason == "tool_calls"
    assert seen == [(HELLO, [TOOL], settings)]
    (request,) = model.requests
    assert (request.messages, request.tool_names, request.settings) == (HELLO, ["lookup"], settings)
    await model.complete(HELLO)
    assert model.requests[1].tools == [] and model.requests[1].settings is None


async def test_text_is_a_final_answer_counted_by_estimate_or_as_given():
    response = await FunctionModel(lambda m, t, s: "x" * 40).complete(HELLO)
    assert (response.message.content, response.finish_reason) == ("x" * 40, "stop")
    assert response.usage == Usage(prompt_tokens=len("hello there, model") // 4, completion_tokens=10, requests=1)
    fixed = Usage(prompt_tokens=10, completion_tokens=5, requests=1)
    assert (await FunctionModel(lambda m, t, s: "ok", reply_usage=fixed).complete(HELLO)).usage == fixed
    whole = ModelResponse(message=ChatMessage(role="assistant", content="as is"), finish_reason="length")
    assert await FunctionModel(lambda m, t, s: whole).complete(HELLO) is whole


async def test_a_returned_or_raised_exception_is_raised():
    with pytest.raises(ModelError, match="gone"):
        await FunctionModel(lambda m, t, s: ModelError("gone")).complete(HELLO)

    def broken(messages, tools, settings):
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        await FunctionModel(broken).complete(HELLO)


async def test_canned_replies_come_in_order_and_running_out_is_a_clear_error():
    model = FunctionModel.from_replies("one", ModelError("down"), "three", name="canned")
    assert model.name == "canned"
    assert (await model.complete(HELLO)).message.content == "one"
    with pytest.raises(ModelError):
        await model.complete(HELLO)
    assert (await model.complete(HELLO)).message.content == "three"
    with pytest.raises(UserError, match="more than 3 replies"):
        await model.complete(HELLO)


async def test_it_claims_schema_enforcement_only_when_told_and_passes_the_schema_through():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    assert not FunctionModel(lambda m, t, s: "").profile.supports_output_schema
    model = FunctionModel(lambda m, t, s: '{"a": 1}' if s and s.output_schema == schema else "prose", supports_output_schema=True)
    assert model.profile.supports_output_schema
    assert (await model.complete(HELLO, settings=SamplingSettings(output_schema=schema))).message.content == '{"a": 1}'
