"""Toolbox against real MCP servers: in-process, stdio subprocesses, example environments."""

from __future__ import annotations

import os
import signal

import anyio
import pytest

from agent_sdk import Toolbox, ToolboxError, UserError

pytestmark = pytest.mark.anyio


async def test_collisions_get_a_stable_server_prefix(helpers):
    async def hello(args):
        return "hello"

    async def first(args):
        return "from a"

    async def second(args):
        return "from b"

    a = helpers.make_server("alpha", {"lookup": first, "hello": hello})
    b = helpers.make_server("beta", {"lookup": second})
    async with Toolbox([a, b]) as box:
        names = [t.name for t in box.tools]
        assert names == ["alpha__lookup", "hello", "beta__lookup"]
        schemas = box.openai_tools()
        assert schemas[1] == {
            "type": "function",
            "function": {"name": "hello", "description": "hello of alpha", "parameters": {"type": "object", "properties": {}}},
        }
        got_a = await box.call_tool("alpha__lookup", {})
        got_b = await box.call_tool("beta__lookup", {})
    assert (got_a.text, got_a.server, got_a.tool) == ("from a", "alpha", "lookup")
    assert (got_b.text, got_b.server, got_b.tool) == ("from b", "beta", "lookup")


async def test_allow_and_deny_filter_tools(helpers):
    async def noop(args):
        return "ok"

    server = helpers.make_server("svc", {"get_a": noop, "get_b": noop, "delete_all": noop})
    async with Toolbox(server, allow=["get_*", "delete_*"], deny=["delete_*"]) as box:
        assert [t.name for t in box.tools] == ["get_a", "get_b"]
        hidden = await box.call_tool("delete_all", {})
    assert not hidden.ok and hidden.error_kind == "unknown_tool"
    assert "get_a" in hidden.error


async def test_tool_error_and_structured_results(helpers):
    async def divide(args):
        if args["b"] == 0:
            raise ValueError("division by zero")
        return {"quotient": args["a"] / args["b"]}

    async with Toolbox(helpers.make_server("calc", {"divide": divide})) as box:
        good = await box.call_tool("divide", {"a": 6, "b": 3})
        bad = await box.call_tool("divide", {"a": 1, "b": 0})
    assert good.ok and good.structured == {"quotient": 2.0} and good.text == '{"quotient": 2.0}'
    assert not bad.ok and bad.error_kind == "tool_error" and bad.error == "division by zero"
    assert bad.observation() == "Error: division by zero"


async def test_timeout_per_tool_then_session_still_usable(helpers):
    async def slow(args):
        await anyio.sleep(30)
        return "late"

    async def fast(args):
        return "quick"

    server = helpers.make_server("svc", {"slow": slow, "fast": fast})
    async with Toolbox(server, timeout_s=10, tool_timeouts={"slow": 0.2}) as box:
        with anyio.fail_after(5):
            timed_out = await box.call_tool("slow", {})
        after = await box.call_tool("fast", {})
    assert not timed_out.ok and timed_out.error_kind == "timeout"
    assert 0.2 <= timed_out.latency_s < 2
    assert after.ok and after.text == "quick"


async def test_reconnects_after_stdio_server_is_killed(helpers, stdio_command):
    async with Toolbox(stdio_command, timeout_s=10) as box:
        first = await box.call_tool("pid", {})
        pid = int(first.text)
        os.kill(pid, signal.SIGKILL)
        await helpers.wait_until(lambda: not helpers.pid_alive(pid))
        lost = await box.call_tool("pid", {})
        again = await box.call_tool("pid", {})
        assert box.reconnects == 1
    assert not lost.ok and lost.error_kind == "transport"
    assert again.ok and int(again.text) != pid


async def test_connect_failure_names_the_server():
    with pytest.raises(ToolboxError, match="no_such_program_xyz"):
        async with Toolbox("no_such_program_xyz --flag", connect_timeout_s=5):
            pass


def test_targets_are_classified(tmp_path, stdio_command):
    from agent_sdk import McpServer, server_from_target

    assert isinstance(server_from_target("http://127.0.0.1:1/envs/env-1/mcp").target, str)
    assert server_from_target("http://127.0.0.1:1/envs/env-abc/mcp").display_name() == "env-abc"
    assert server_from_target(str(tmp_path)).target == tmp_path
    stdio = server_from_target(stdio_command)
    assert stdio.display_name() == "stdio_server" and stdio.target.args[0].endswith("stdio_server.py")
    with pytest.raises(UserError, match="no such environment directory"):
        server_from_target(str(tmp_path / "typo"))
    with pytest.raises(UserError, match="empty"):
        server_from_target("  ")
    assert server_from_target(McpServer(target="http://x/mcp", name="n")).display_name() == "n"


async def test_cancellation_closes_every_session(helpers, stdio_command):
    counter = helpers.SessionCounter()

    async def block(args):
        await anyio.sleep(60)
        return "never"

    server = helpers.make_server("svc", {"block": block}, counter)
    pids: list[int] = []
    entered = anyio.Event()

    async def episode():
        async with Toolbox([server, stdio_command]) as box:
            pids.append(int((await box.call_tool("pid", {})).text))
            entered.set()
            await box.call_tool("block", {})

    with anyio.fail_after(20):
        async with anyio.create_task_group() as tg:
            tg.start_soon(episode)
            await entered.wait()
            assert counter.open == 1 and helpers.pid_alive(pids[0])
            tg.cancel_scope.cancel()
    assert counter.open == 0 and counter.opened == 1
    await helpers.wait_until(lambda: not helpers.pid_alive(pids[0]))


async def test_errors_in_the_body_propagate_unwrapped(helpers):
    counter = helpers.SessionCounter()
    with pytest.raises(KeyError, match="boom"):
        async with Toolbox(helpers.make_server("svc", {}, counter)):
            raise KeyError("boom")
    assert counter.open == 0


async def test_call_outside_context_is_a_user_error(helpers):
    box = Toolbox(helpers.make_server("svc", {}))
    with pytest.raises(UserError, match="not open"):
        await box.call_tool("x", {})


async def test_example_environment_directory(helpers):
    env_dir = helpers.EXAMPLE_ENVS / "weather_forecast"
    async with Toolbox(env_dir) as box:
        assert [t.name for t in box.tools] == ["get_forecast"]
        result = await box.call_tool("get_forecast", {"city": "Oslo", "date": "2025-06-14"})
        invalid = await box.call_tool("get_forecast", {"city": "Oslo"})
    assert result.ok and "light rain" in result.text.lower()
    assert result.server == "weather_forecast"
    assert not invalid.ok and invalid.error_kind in {"tool_error", "bad_arguments"}
