"""Toolbox, the composition of the tool-source pieces, against real MCP servers and environments."""

from __future__ import annotations

import anyio
import pytest

from agent_sdk import Toolbox, ToolboxError, ToolSource, UserError

pytestmark = pytest.mark.anyio


async def test_the_constructor_composes_prefixes_filters_and_timeouts(helpers):
    async def lookup(args):
        return "found"

    async def slow(args):
        await anyio.sleep(30)
        return "late"

    a = helpers.make_server("alpha", {"lookup": lookup, "slow": slow, "delete_all": lookup})
    b = helpers.make_server("beta", {"lookup": lookup})
    box = Toolbox([a, b], timeout_s=10, tool_timeouts={"slow": 0.2}, deny=["delete_*"])
    assert box.tools == [] and not box.is_open
    async with box:
        assert box.is_open and isinstance(box, ToolSource)
        assert [t.name for t in box.list_tools()] == ["alpha__lookup", "slow", "beta__lookup"]
        assert [t["function"]["name"] for t in box.openai_tools()] == ["alpha__lookup", "slow", "beta__lookup"]
        found = await box.call_tool("beta__lookup", {})
        hidden = await box.call_tool("delete_all", {})
        with anyio.fail_after(60):  # a guard against a hang, not a timing check
            timed_out = await box.call_tool("slow", {})
    assert (found.text, found.server, found.tool) == ("found", "beta", "lookup")
    assert hidden.error_kind == "unknown_tool"
    assert timed_out.error_kind == "timeout" and "0.2 s" in timed_out.error


async def test_repeated_servers_get_numbered_names(helpers):
    async def hello(args):
        return "hello"

    async with Toolbox([helpers.make_server("svc", {"hello": hello}), helpers.make_server("svc", {"hello": hello})]) as box:
        assert [(t.name, t.server) for t in box.tools] == [("svc__hello", "svc"), ("svc_2__hello", "svc_2")]


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
    with pytest.raises(UserError, match="not open"):
        box.list_tools()
    async with box:
        with pytest.raises(UserError, match="already open"):
            async with box:
                pass


async def test_example_environment_directory(helpers):
    env_dir = helpers.EXAMPLE_ENVS / "weather_forecast"
    async with Toolbox(env_dir) as box:
        assert [t.name for t in box.tools] == ["get_forecast"]
        result = await box.call_tool("get_forecast", {"city": "Oslo", "date": "2025-06-14"})
        invalid = await box.call_tool("get_forecast", {"city": "Oslo"})
    assert result.ok and "light rain" in result.text.lower()
    assert result.server == "weather_forecast"
    assert not invalid.ok and invalid.error_kind in {"tool_error", "bad_arguments"}
