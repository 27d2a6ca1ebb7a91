"""Test doubles and real MCP servers for the agent_sdk tests.

The only double is the model (`agent_sdk.FunctionModel`, driven by a callable); every MCP server is
real: low-level `mcp.server.Server`s connected in process, stdio subprocesses, and
environments from `examples/envs` served on a real sandbox.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.server import Server

from agent_sdk import ChatMessage, ToolCall

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_ENVS = REPO / "examples" / "envs"


def call(name: str, call_id: str | None = None, **arguments: Any) -> ToolCall:
    """A tool call as a model would make it."""
    return ToolCall(id=call_id or f"call_{name}_{len(arguments)}_{id(arguments)}", name=name, arguments=arguments)


def calls(*items: ToolCall, content: str | None = None) -> ChatMessage:
    """An assistant message making `items`."""
    return ChatMessage(role="assistant", content=content, tool_calls=list(items))


ToolFn = Callable[[dict[str, Any]], Awaitable[str | dict[str, Any]]]


class SessionCounter:
    """Counts the open MCP sessions of an in-process server (its lifespan runs once per session)."""

    def __init__(self) -> None:
        self.open = 0
        self.opened = 0


def make_server(name: str, tools: dict[str, ToolFn], counter: SessionCounter | None = None) -> Server:
    """A low-level MCP server exposing `tools` (each an async function of the arguments dict)."""
    counter = counter or SessionCounter()

    @asynccontextmanager
    async def lifespan(_server: Server) -> Any:
        counter.open += 1
        counter.opened += 1
        try:
            yield {}
        finally:
            counter.open -= 1

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(name=n, description=f"{n} of {name}", input_schema={"type": "object", "properties": {}})
                for n in tools
            ]
        )

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        fn = tools.get(params.name)
        if fn is None:
            return types.CallToolResult(content=[types.TextContent(type="text", text="no such tool")], is_error=True)
        try:
            out = await fn(dict(params.arguments or {}))
        except ValueError as exc:
            return types.CallToolResult(content=[types.TextContent(type="text", text=str(exc))], is_error=True)
        if isinstance(out, dict):
            import json

            text = json.dumps(out, sort_keys=True)
            return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=out)
        return types.CallToolResult(content=[types.TextContent(type="text", text=out)])

    return Server(name, on_list_tools=list_tools, on_call_tool=call_tool, lifespan=lifespan)


STDIO_SERVER = textwrap.dedent(
    '''
    import os
    import anyio
    import mcp_types as types
    from mcp.server import Server
    from mcp.server.stdio import stdio_server

    async def list_tools(ctx, params):
        schema = {"type": "object", "properties": {}}
        return types.ListToolsResult(tools=[
            types.Tool(name="pid", description="the server process id", input_schema=schema),
            types.Tool(name="sleep", description="sleep s seconds", input_schema=schema),
        ])

    async def call_tool(ctx, params):
        if params.name == "pid":
            text = str(os.getpid())
        else:
            await anyio.sleep(float((params.arguments or {}).get("s", 1)))
            text = "slept"
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    server = Server("stdio_test", on_list_tools=list_tools, on_call_tool=call_tool)

    async def main():
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
    '''
)


@pytest.fixture
def stdio_command(tmp_path: Path) -> str:
    """A command line launching a real MCP server over stdio (tools: pid, sleep)."""
    script = tmp_path / "stdio_server.py"
    script.write_text(STDIO_SERVER)
    return f"{sys.executable} {script}"


def pid_alive(pid: int) -> bool:
    """Whether process `pid` exists and is not a zombie."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "State:\tZ" not in status


async def wait_until(predicate: Callable[[], bool], timeout_s: float = 10.0) -> None:
    """Poll `predicate` until true, failing after `timeout_s`."""
    with anyio.fail_after(timeout_s):
        while not predicate():
            await anyio.sleep(0.02)


@pytest.fixture(scope="session")
def helpers() -> Any:
    """The helpers above, for test modules (tests import nothing from conftest directly)."""

    class _Helpers:
        SessionCounter = SessionCounter
        call = staticmethod(call)
        calls = staticmethod(calls)
        make_server = staticmethod(make_server)
        pid_alive = staticmethod(pid_alive)
        wait_until = staticmethod(wait_until)
        EXAMPLE_ENVS = EXAMPLE_ENVS

    return _Helpers
