"""The one-behaviour wrappers (filtering, per-tool timeouts, recording) over real MCP sessions."""

from __future__ import annotations

import anyio
import pytest

from agent_sdk import (
    ArgumentRepair,
    CombinedTools,
    FilteredTools,
    McpTools,
    RecordedTools,
    TimeLimitedTools,
    ToolCall,
    ToolResult,
    ToolSource,
    UserError,
)

pytestmark = pytest.mark.anyio


async def _noop(args):
    return "ok"


async def _echo(args):
    return f"echo {args.get('text', '')}"


async def _slow(args):
    await anyio.sleep(30)
    return "late"


async def test_allow_and_deny_filter_tools(helpers):
    server = helpers.make_server("svc", {"get_a": _noop, "get_b": _noop, "delete_all": _noop})
    tools = FilteredTools(McpTools(server), allow=["get_*", "delete_*"], deny=["delete_*"])
    assert isinstance(tools, ToolSource)
    async with tools:
        assert [t.name for t in tools.list_tools()] == ["get_a", "get_b"]
        hidden = await tools.call_tool("delete_all", {})
        shown = await tools.call_tool("get_a", {})
    assert not hidden.ok and hidden.error_kind == "unknown_tool"
    assert "get_a, get_b" in hidden.error and "delete_all;" not in hidden.error
    assert shown.ok and shown.text == "ok"


async def test_patterns_match_server_side_and_qualified_names(helpers):
    a = McpTools(helpers.make_server("alpha", {"lookup": _noop, "hello": _noop}))
    b = McpTools(helpers.make_server("beta", {"lookup": _noop}))
    # "hello" is let through by its qualified name alpha__hello; both lookups are hidden by their server-side name.
    async with FilteredTools(CombinedTools([a, b]), allow=["alpha__*"], deny=["lookup"]) as tools:
        names = [t.name for t in tools.list_tools()]
    assert names == ["hello"]


async def test_limits_by_exposed_or_server_side_name_and_a_call_limit_wins(helpers):
    a = McpTools(helpers.make_server("alpha", {"slow": _slow, "fast": _echo}), timeout_s=10)
    b = McpTools(helpers.make_server("beta", {"slow": _slow}), timeout_s=10)
    tools = TimeLimitedTools(CombinedTools([a, b]), {"slow": 0.3, "beta__slow": 0.1})
    async with tools:
        assert (tools.timeout_for("alpha__slow"), tools.timeout_for("beta__slow"), tools.timeout_for("fast")) == (0.3, 0.1, None)
        with anyio.fail_after(60):  # a guard against a hang, not a timing check
            by_tool = await tools.call_tool("alpha__slow", {})
            by_name = await tools.call_tool("beta__slow", {})
            by_call = await tools.call_tool("alpha__slow", {}, timeout_s=0.05)
        fast = await tools.call_tool("fast", {"text": "hi"})
    assert by_tool.error_kind == "timeout" and "0.3 s" in by_tool.error
    assert by_name.error_kind == "timeout" and "0.1 s" in by_name.error
    assert by_call.error_kind == "timeout" and "0.05 s" in by_call.error
    assert fast.ok and fast.text == "echo hi"


async def test_recording_keeps_every_call_with_its_turn_and_repair(helpers):
    recorded = RecordedTools(McpTools(helpers.make_server("svc", {"echo": _echo})))
    repair = ArgumentRepair(call_id="c1", tool="echo", raw="{'text': 'b'}", fixes=["single_quotes"])
    async with recorded:
        first = await recorded.call(ToolCall(id="c0", name="echo", arguments={"text": "a"}), turn=1)
        await recorded.call(ToolCall(id="c1", name="echo", arguments={"text": "b"}), turn=1, repair=repair)
        refused = ToolResult(ok=False, error="not JSON", error_kind="bad_arguments", tool="echo")
        recorded.record(ToolCall(id="c2", name="echo", raw_arguments="{"), refused, turn=2)
        plain = await recorded.call_tool("missing", {})
    assert first.text == "echo a"
    rows = [(r.turn, r.call.id, r.call.name, r.result.ok, r.repair) for r in recorded.records]
    assert rows == [(1, "c0", "echo", True, None), (1, "c1", "echo", True, repair), (2, "c2", "echo", False, None),
                    (4, "call_3", "missing", False, None)]  # fmt: skip
    assert recorded.records[-1].result == plain and plain.error_kind == "unknown_tool"


async def test_a_chain_of_wrappers_opens_and_closes_as_one(helpers):
    counter = helpers.SessionCounter()
    inner = McpTools(helpers.make_server("svc", {"echo": _echo}, counter))
    chain = RecordedTools(TimeLimitedTools(FilteredTools(inner, allow=["echo"]), {"echo": 5}))
    with pytest.raises(UserError, match="not open"):
        chain.list_tools()
    async with chain:
        assert counter.open == 1
        result = await chain.call_tool("echo", {"text": "x"})
    assert counter.open == 0
    assert result.ok and [r.result for r in chain.records] == [result]
