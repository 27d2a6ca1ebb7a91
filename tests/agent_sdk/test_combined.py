"""CombinedTools: several real MCP sessions as one source, colliding names prefixed by server."""

from __future__ import annotations

import anyio
import pytest

from agent_sdk import CombinedTools, McpTools, ToolboxError, UserError

pytestmark = pytest.mark.anyio


async def test_collisions_get_a_stable_server_prefix(helpers):
    async def hello(args):
        return "hello"

    async def first(args):
        return "from a"

    async def second(args):
        return "from b"

    a = McpTools(helpers.make_server("alpha", {"lookup": first, "hello": hello}))
    b = McpTools(helpers.make_server("beta", {"lookup": second}))
    async with CombinedTools([a, b]) as tools:
        listed = tools.list_tools()
        got_a = await tools.call_tool("alpha__lookup", {})
        got_b = await tools.call_tool("beta__lookup", {})
        bare = await tools.call_tool("lookup", {})
    assert [(t.name, t.server, t.tool) for t in listed] == [
        ("alpha__lookup", "alpha", "lookup"), ("hello", "alpha", "hello"), ("beta__lookup", "beta", "lookup"),
    ]  # fmt: skip
    assert listed[1].to_openai() == {
        "type": "function",
        "function": {"name": "hello", "description": "hello of alpha", "parameters": {"type": "object", "properties": {}}},
    }
    assert (got_a.text, got_a.server, got_a.tool) == ("from a", "alpha", "lookup")
    assert (got_b.text, got_b.server, got_b.tool) == ("from b", "beta", "lookup")
    assert not bare.ok and bare.error_kind == "unknown_tool" and "alpha__lookup, beta__lookup, hello" in bare.error


async def test_connect_failures_are_joined_and_the_healthy_sessions_closed(helpers):
    counter = helpers.SessionCounter()
    healthy = McpTools(helpers.make_server("svc", {}, counter))
    broken = [McpTools(f"no_such_program_{i} --flag", connect_timeout_s=5) for i in (1, 2)]
    with pytest.raises(ToolboxError) as caught:
        async with CombinedTools([healthy, *broken]):
            pass
    assert "no_such_program_1" in str(caught.value) and "no_such_program_2" in str(caught.value)
    assert counter.open == 0


async def test_cancellation_closes_every_session(helpers, stdio_command):
    counter = helpers.SessionCounter()

    async def block(args):
        await anyio.sleep(60)
        return "never"

    pids: list[int] = []
    entered = anyio.Event()

    async def episode():
        sources = [McpTools(helpers.make_server("svc", {"block": block}, counter)), McpTools(stdio_command, connect_timeout_s=120)]
        async with CombinedTools(sources) as tools:
            pids.append(int((await tools.call_tool("pid", {})).text))
            entered.set()
            await tools.call_tool("block", {})

    with anyio.fail_after(180):
        async with anyio.create_task_group() as tg:
            tg.start_soon(episode)
            await entered.wait()
            assert counter.open == 1 and helpers.pid_alive(pids[0])
            tg.cancel_scope.cancel()
    assert counter.open == 0 and counter.opened == 1
    await helpers.wait_until(lambda: not helpers.pid_alive(pids[0]))


async def test_closed_use_is_a_user_error(helpers):
    tools = CombinedTools([McpTools(helpers.make_server("svc", {}))])
    with pytest.raises(UserError, match="not open"):
        await tools.call_tool("x", {})
    with pytest.raises(UserError, match="at least one"):
        CombinedTools([])
