"""env_servers: environment directories become in-process MCP servers on a real sandbox."""

from __future__ import annotations

import shutil

import pytest
from mcp.server import Server

from agent_sdk import McpServer, McpTools, UserError, env_servers
from mcp_servers import LocalSandbox

pytestmark = pytest.mark.anyio


async def test_one_server_per_environment_named_by_directory(helpers, tmp_path):
    for name in ("weather_forecast", "currency_convert"):
        shutil.copytree(helpers.EXAMPLE_ENVS / name, tmp_path / name)
    other = McpServer(target="http://127.0.0.1:1/mcp", name="remote")
    single = McpServer(target=helpers.EXAMPLE_ENVS / "weather_forecast", name="weather")
    async with env_servers([McpServer(target=tmp_path), other, single]) as servers:
        assert [s.name for s in servers] == ["currency_convert", "weather_forecast", "remote", "weather"]
        assert servers[2] is other and all(isinstance(s.target, Server) for s in servers[:2] + servers[3:])
        async with McpTools(servers[1]) as tools:
            result = await tools.call_tool("get_forecast", {"city": "Oslo", "date": "2025-06-14"})
    assert result.ok and "light rain" in result.text.lower()


async def test_a_given_sandbox_is_used_and_other_targets_pass_through(helpers):
    remote = [McpServer(target="http://127.0.0.1:1/mcp")]
    async with env_servers(remote) as servers:
        assert servers == remote
    weather = [McpServer(target=helpers.EXAMPLE_ENVS / "weather_forecast")]
    async with LocalSandbox() as real:
        sandbox = _CountingSandbox(real)
        async with env_servers(weather, sandbox=sandbox) as servers, McpTools(servers[0]) as tools:
            assert [t.name for t in tools.list_tools()] == ["get_forecast"]
            assert (await tools.call_tool("get_forecast", {"city": "Oslo", "date": "2025-06-14"})).ok
    assert sandbox.sessions == 1


class _CountingSandbox:
    """A real sandbox, counting the sessions opened on it."""

    def __init__(self, real: LocalSandbox) -> None:
        self.real, self.sessions = real, 0

    async def open_session(self, *args, **kwargs):
        self.sessions += 1
        return await self.real.open_session(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.real, name)


async def test_a_directory_without_environments_is_a_user_error(tmp_path):
    with pytest.raises(UserError, match="no environment"):
        async with env_servers([McpServer(target=tmp_path)]):
            pass
