"""The tool emulator: a real MCP server answering doc-only tools with a model (a `FunctionModel`)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import anyio
import pytest
from mcp import Client

from agent_sdk import ChatMessage, FunctionModel
from mcp_servers._emulator import EmulatedTool, EmulatorConfig, ToolEmulator, injected_failure_kind

TOOLS = [
    EmulatedTool(
        name="create_order",
        description="Create an order for a product and return its order_id and total price.",
        input_schema={"type": "object", "properties": {"product": {"type": "string"}, "qty": {"type": "integer"}}, "required": ["product"]},
        output_schema={"type": "object", "properties": {"order_id": {"type": "string"}, "total": {"type": "number"}}, "required": ["order_id"]},
    ),
    EmulatedTool(
        name="get_order",
        description="Look up the status of an order by its order_id.",
        input_schema={"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]},
    ),
]


def _orders(messages: list[ChatMessage], tools: Any, settings: Any) -> str:
    """Answers like a consistent backend: ids count the calls already in this session's history."""
    prompt = messages[-1].content
    earlier = prompt.count("\n- ")
    if "Now respond to: create_order" in prompt:
        return json.dumps({"order_id": f"ORD-{earlier + 1}", "total": 9.5})
    return json.dumps({"status": "shipped", "seen_before": earlier})


def _emulator(model: Any, **config: Any) -> ToolEmulator:
    return ToolEmulator(TOOLS, model, name="shop", description="An online shop.", config=EmulatorConfig(**config), message_factory=ChatMessage)


@pytest.mark.anyio
async def test_answers_with_model_and_validates_arguments() -> None:
    model = FunctionModel(_orders)
    emulator = _emulator(model, failure_rate=0.0)
    with anyio.fail_after(30):
        async with Client(emulator.server, mode="legacy") as client:
            listed = await client.list_tools()
            assert [t.name for t in listed.tools] == ["create_order", "get_order"]
            result = await client.call_tool("create_order", {"product": "tea", "qty": 2})
            assert not result.is_error
            assert result.structured_content == {"order_id": "ORD-1", "total": 9.5}
            calls_before = len(model.requests)
            bad = await client.call_tool("create_order", {"qty": "two"})
            assert bad.is_error
            assert "Invalid arguments" in bad.content[0].text
            assert len(model.requests) == calls_before, "invalid arguments never reach the model"
            unknown = await client.call_tool("delete_everything", {})
            assert unknown.is_error and "Unknown tool" in unknown.content[0].text
    prompt = model.requests[0].messages[-1].content
    assert "create_order" in prompt and "order_id" in prompt, "the model sees the tool's documentation"


@pytest.mark.anyio
async def test_history_is_per_session() -> None:
    model = FunctionModel(_orders)
    emulator = _emulator(model, failure_rate=0.0)
    with anyio.fail_after(30):
        async with Client(emulator.server, mode="legacy") as first, Client(emulator.server, mode="legacy") as second:
            created = await first.call_tool("create_order", {"product": "tea"})
            looked_up = await first.call_tool("get_order", {"order_id": "ORD-1"})
            other = await second.call_tool("get_order", {"order_id": "ORD-1"})
    assert created.structured_content["order_id"] == "ORD-1"
    assert looked_up.structured_content["seen_before"] == 1
    assert other.structured_content["seen_before"] == 0, "a second session starts with an empty history"
    second_prompt = model.requests[1].messages[-1].content
    assert 'create_order({"product":"tea"}) -> {"order_id": "ORD-1"' in second_prompt


@pytest.mark.anyio
async def test_injected_failures_stay_out_of_the_history_the_model_sees() -> None:
    create, lookup = {"product": "tea"}, {"order_id": "ORD-1"}
    seed = next(
        s for s in range(1000)
        if _emulator(None, seed=s).draw_failure(0, "create_order", create) and not _emulator(None, seed=s).draw_failure(1, "get_order", lookup)
    )  # fmt: skip
    model = FunctionModel(_orders)
    emulator = _emulator(model, failure_rate=0.2, seed=seed)
    with anyio.fail_after(30):
        async with Client(emulator.server, mode="legacy") as client:
            failed = await client.call_tool("create_order", create)
            answered = await client.call_tool("get_order", lookup)
    assert injected_failure_kind(failed) is not None and injected_failure_kind(answered) is None
    (request,) = model.requests
    assert "Earlier calls in this session" not in request.messages[-1].content
    assert answered.structured_content["seen_before"] == 0, "the backend never saw the failed call"


async def _failures(seed: int, calls: int, sessions: int) -> list[str | None]:
    emulator = _emulator(FunctionModel(_orders), failure_rate=0.2, seed=seed)
    kinds: list[str | None] = []
    for s in range(sessions):
        async with Client(emulator.server, mode="legacy") as client:
            for i in range(calls // sessions):
                result = await client.call_tool("create_order", {"product": f"item-{s}-{i}", "qty": i})
                kinds.append(injected_failure_kind(result))
    return kinds


@pytest.mark.anyio
async def test_failure_injection_rate_and_determinism() -> None:
    with anyio.fail_after(120):
        kinds = await _failures(seed=7, calls=600, sessions=3)
        again = await _failures(seed=7, calls=600, sessions=3)
        other = await _failures(seed=8, calls=600, sessions=3)
    rate = sum(k is not None for k in kinds) / len(kinds)
    assert 0.15 <= rate <= 0.25, f"injected failure rate {rate:.3f} is not within 0.2 +- 0.05"
    counts = Counter(k for k in kinds if k is not None)
    assert set(counts) == {"timeout", "unreachable", "malformed"}
    assert min(counts.values()) >= 20, counts
    assert kinds == again, "same seed, same calls: same failures"
    assert kinds != other, "another seed fails other calls"


@pytest.mark.anyio
async def test_injected_failures_look_real() -> None:
    emulator = _emulator(FunctionModel(_orders), failure_rate=1.0, seed=3)
    seen: dict[str, Any] = {}
    with anyio.fail_after(60):
        async with Client(emulator.server, mode="legacy") as client:
            for i in range(60):
                result = await client.call_tool("get_order", {"order_id": f"ORD-{i}"})
                seen.setdefault(injected_failure_kind(result), result)
    assert seen["timeout"].is_error and "timed out" in seen["timeout"].content[0].text
    assert seen["unreachable"].is_error and "unreachable" in seen["unreachable"].content[0].text
    malformed = seen["malformed"].content[0].text
    assert not seen["malformed"].is_error
    with pytest.raises(ValueError):
        json.loads(malformed)


@pytest.mark.anyio
async def test_bad_model_output_fails_closed_and_server_survives() -> None:
    replies = iter(["not json at all", '{"total": 3}', RuntimeError("backend down"), RuntimeError("still down")])
    model = FunctionModel(lambda messages, tools, settings: next(replies, '{"order_id": "ORD-9"}'))
    emulator = _emulator(model, failure_rate=0.0, attempts=2)
    with anyio.fail_after(30):
        async with Client(emulator.server, mode="legacy") as client:
            invalid = await client.call_tool("create_order", {"product": "tea"})
            crashed = await client.call_tool("create_order", {"product": "tea"})
            fine = await client.call_tool("create_order", {"product": "tea"})
    assert invalid.is_error and "internal error" in invalid.content[0].text
    assert "not valid JSON" in model.requests[1].messages[-1].content, "the retry feeds the problem back"
    assert crashed.is_error and "RuntimeError" not in crashed.content[0].text, "the agent never sees emulator internals"
    assert emulator.stats.last_model_failure == "model request failed: RuntimeError: still down"
    assert fine.structured_content == {"order_id": "ORD-9"}
    assert emulator.stats.model_failures == 2


@pytest.mark.anyio
async def test_a_placeholder_answer_is_sent_back_for_a_concrete_value() -> None:
    model = FunctionModel.from_replies(json.dumps({"order_id": "some_order_id_here", "total": 9.5}), json.dumps({"order_id": "ORD-7", "total": 9.5}))
    emulator = _emulator(model, failure_rate=0.0)
    with anyio.fail_after(30):
        async with Client(emulator.server, mode="legacy") as client:
            result = await client.call_tool("create_order", {"product": "tea"})
    assert result.structured_content == {"order_id": "ORD-7", "total": 9.5}
    assert '"some_order_id_here" is a placeholder' in model.requests[1].messages[-1].content
