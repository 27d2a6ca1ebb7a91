"""McpTools, the connection layer: one real MCP session, error mapping, reconnect."""

from __future__ import annotations

import os
import signal

import anyio
import pytest

from agent_sdk import McpServer, McpTools, ToolboxError, ToolSource, UserError

pytestmark = pytest.mark.anyio


async def test_lists_tools_under_their_server_names(helpers):
    async def noop(args):
        return "ok"

    tools = McpTools(helpers.make_server("svc", {"b_tool": noop, "a_tool": noop}))
    assert isinstance(tools, ToolSource)
    async with tools:
        listed = tools.list_tools()
    assert [(t.name, t.server, t.tool) for t in listed] == [("b_tool", "svc", "b_tool"), ("a_tool", "svc", "a_tool")]
    assert listed[0].description == "b_tool of svc"


async def test_tool_errors_and_structured_results_are_results(helpers):
    async def divide(args):
        if args["b"] == 0:
            raise ValueError("division by zero")
        return {"quotient": args["a"] / args["b"]}

    async with McpTools(helpers.make_server("calc", {"divide": divide})) as tools:
        good = await tools.call_tool("divide", {"a": 6, "b": 3})
        bad = await tools.call_tool("divide", {"a": 1, "b": 0})
        unknown = await tools.call_tool("multiply", {})
    assert good.ok and good.structured == {"quotient": 2.0} and good.text == '{"quotient": 2.0}'
    assert (good.server, good.tool) == ("calc", "divide")
    assert not bad.ok and bad.error_kind == "tool_error" and bad.error == "division by zero"
    assert bad.observation() == "Error: division by zero"
    assert not unknown.ok and unknown.error_kind == "unknown_tool" and "available tools: divide" in unknown.error


async def test_a_timed_out_call_is_a_result_and_the_session_goes_on(helpers):
    async def slow(args):
        await anyio.sleep(30)
        return "late"

    async def fast(args):
        return "quick"

    async with McpTools(helpers.make_server("svc", {"slow": slow, "fast": fast}), timeout_s=0.2) as tools:
        with anyio.fail_after(60):  # a guard against a hang, not a timing check
            by_default = await tools.call_tool("slow", {})
            by_call = await tools.call_tool("slow", {}, timeout_s=0.1)
        after = await tools.call_tool("fast", {})
    assert not by_default.ok and by_default.error_kind == "timeout" and "0.2 s" in by_default.error
    assert not by_call.ok and by_call.error_kind == "timeout" and "0.1 s" in by_call.error
    assert after.ok and after.text == "quick"


async def test_reconnects_after_the_stdio_server_is_killed(helpers, stdio_command):
    # Generous limits: a fresh Python subprocess can take long to answer on a loaded machine.
    async with McpTools(stdio_command, timeout_s=60, connect_timeout_s=120) as tools:
        first = await tools.call_tool("pid", {})
        pid = int(first.text)
        os.kill(pid, signal.SIGKILL)
        await helpers.wait_until(lambda: not helpers.pid_alive(pid))
        lost = await tools.call_tool("pid", {})
        again = await tools.call_tool("pid", {})
        assert tools.reconnects == 1
    assert not lost.ok and lost.error_kind == "transport"
    assert again.ok and int(again.text) != pid


async def test_connect_failure_names_the_server():
    with pytest.raises(ToolboxError, match="no_such_program_xyz"):
        async with McpTools("no_such_program_xyz --flag", connect_timeout_s=5):
            pass


async def test_closed_use_is_a_user_error_and_a_session_opens_once(helpers):
    tools = McpTools(helpers.make_server("svc", {}))
    with pytest.raises(UserError, match="not open"):
        await tools.call_tool("x", {})
    with pytest.raises(UserError, match="not open"):
        tools.list_tools()
    async with tools:
        with pytest.raises(UserError, match="already open"):
            async with tools:
                pass
    with pytest.raises(UserError, match="environment directory"):
        McpTools(McpServer(target=helpers.EXAMPLE_ENVS / "weather_forecast"))


async def test_errors_in_the_body_propagate_unwrapped_and_close_the_session(helpers):
    counter = helpers.SessionCounter()
    with pytest.raises(KeyError, match="boom"):
        async with McpTools(helpers.make_server("svc", {}, counter)):
            assert counter.open == 1
            raise KeyError("boom")
    assert counter.open == 0 and counter.opened == 1
