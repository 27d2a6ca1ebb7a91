"""list_tools / call_tool over in-process, stdio, HTTP and the arena with the real SDK client."""

import json
import sys
from pathlib import Path

import anyio
import httpx
import pytest
from mcp import Client, StdioServerParameters

from mcp_servers import ArenaServer, LocalSandbox, build_env_server, emit_env, serve_app

pytestmark = pytest.mark.anyio


async def _exercise(client: Client) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == {"add", "echo"}
    assert tools["echo"].input_schema["required"] == ["text"]
    first = await client.call_tool("add", {"amount": 4})
    second = await client.call_tool("add", {"amount": 4})
    assert (first.structured_content, second.structured_content) == ({"total": 4}, {"total": 8})
    assert json.loads(second.content[0].text) == {"total": 8}
    bad = await client.call_tool("add", {"amount": "x"})
    assert bad.is_error and "integer" in bad.content[0].text
    assert bad.meta["astra/error_kind"] == "invalid_arguments"


async def test_in_process_sessions_are_isolated(counter_env) -> None:
    async with LocalSandbox() as sandbox:
        server = build_env_server(counter_env, sandbox)
        async with Client(server, mode="legacy") as a, Client(server, mode="legacy") as b:
            await _exercise(a)
            assert (await b.call_tool("add", {})).structured_content == {"total": 1}


async def test_stdio_server(counter_dir: Path) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "astra_cli", "env", "serve", str(counter_dir)])
    with anyio.fail_after(60):
        async with Client(params) as client:
            await _exercise(client)


async def test_http_server(counter_env) -> None:
    async with LocalSandbox() as sandbox, anyio.create_task_group() as tg:
        app = build_env_server(counter_env, sandbox).streamable_http_app()
        port = await tg.start(serve_app, app)
        url = f"http://127.0.0.1:{port}/mcp"
        async with Client(url) as a, Client(url) as b:
            await _exercise(a)
            assert (await b.call_tool("add", {"amount": 2})).structured_content == {"total": 2}
        tg.cancel_scope.cancel()


async def test_arena_serves_many_envs_isolated(counter_env, hostile_env) -> None:
    async with LocalSandbox() as sandbox, anyio.create_task_group() as tg:
        arena = ArenaServer([counter_env, hostile_env], sandbox)
        port = await tg.start(serve_app, arena.app)
        base = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient() as http:
            index = (await http.get(f"{base}/index.json")).json()
            assert {e["id"] for e in index["environments"]} == {counter_env.spec.id, hostile_env.spec.id}
            missing = await http.post(f"{base}/envs/env-0000000000/mcp", json={})
            assert missing.status_code == 404 and "unknown environment" in missing.json()["error"]
        url = f"{base}/envs/{counter_env.spec.id}/mcp"
        async with Client(url) as a, Client(url) as b:
            await _exercise(a)
            assert (await b.call_tool("add", {})).structured_content == {"total": 1}
            assert arena.open_sessions == 2
        hostile_url = f"{base}/envs/{hostile_env.spec.id}/mcp"
        async with Client(hostile_url) as h:
            assert (await h.call_tool("crash", {})).is_error
            assert (await h.call_tool("read_outside", {"path": "/etc/hostname"})).is_error
        tg.cancel_scope.cancel()


async def test_arena_serves_callable_distractors(counter_env, hostile_env) -> None:
    async with LocalSandbox() as sandbox, anyio.create_task_group() as tg:
        arena = ArenaServer([counter_env, hostile_env], sandbox)
        port = await tg.start(serve_app, arena.app)
        url = f"http://127.0.0.1:{port}/envs/{counter_env.spec.id}/mcp?distractors={hostile_env.spec.id}.huge"
        async with Client(url) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            assert names == ["add", "echo", "huge"]
            result = await client.call_tool("huge", {})
            assert result.is_error and result.meta["astra/error_kind"] == "oversized_output"
            assert (await client.call_tool("add", {})).structured_content == {"total": 1}
        tg.cancel_scope.cancel()


async def test_emitted_directory_launches_from_its_config(counter_dir: Path, tmp_path: Path) -> None:
    config = emit_env(counter_dir, tmp_path / "emitted")
    assert json.loads((tmp_path / "emitted" / "mcp.json").read_text()) == config
    (entry,) = config["mcpServers"].values()
    with anyio.fail_after(60):
        async with Client(StdioServerParameters(command=entry["command"], args=entry["args"])) as client:
            await _exercise(client)
