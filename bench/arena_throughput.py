"""Tool calls/s through the arena over HTTP vs the SDK's default Streamable HTTP server.

Both servers run the same tool and are driven by the same SDK client with C concurrent
sessions. The arena runs the tool in the sandbox (an extra process hop); the baseline
runs it in process, unsandboxed. Also holds 1,000 concurrent arena sessions and reports
failures and memory per idle session. Targets: >= 1,000 calls/s, >= 4x the baseline.
"""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path

import anyio
import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server import Server

sys.path.insert(0, str(Path(__file__).parent))
from _envs import SCHEMA, bench_env, bump_directly  # noqa: E402

from mcp_servers import ArenaServer, SandboxConfig, serve_app, serve_arena  # noqa: E402


def baseline_server() -> Server:
    async def list_tools(ctx, params):  # noqa: ANN001, ANN202
        return types.ListToolsResult(tools=[types.Tool(name="bump", description="Increment.", input_schema=SCHEMA)])

    async def call_tool(ctx, params):  # noqa: ANN001, ANN202
        value = bump_directly(**(params.arguments or {}))
        return types.CallToolResult(content=[types.TextContent(type="text", text=str(value))], structured_content=value)

    return Server("baseline", on_list_tools=list_tools, on_call_tool=call_tool)


async def calls_per_second(url: str, http: httpx2.AsyncClient, sessions: int, calls: int) -> float:
    async def worker() -> None:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            for _ in range(calls):
                result = await client.call_tool("bump", {})
                assert not result.is_error

    start = time.perf_counter()
    async with anyio.create_task_group() as tg:
        for _ in range(sessions):
            tg.start_soon(worker)
    return sessions * calls / (time.perf_counter() - start)


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def hold_sessions(url: str, http: httpx2.AsyncClient, arena: ArenaServer, count: int) -> tuple[int, float]:
    failures = 0
    ready = anyio.Event()
    opened = 0
    release = anyio.Event()

    async def holder() -> None:
        nonlocal failures, opened
        try:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                await client.call_tool("bump", {})
                opened += 1
                if opened == count:
                    ready.set()
                await release.wait()
        except Exception:  # noqa: BLE001 — counted, not raised: the bench reports failures
            failures += 1
            opened += 1
            if opened == count:
                ready.set()

    before = rss_mb()
    async with anyio.create_task_group() as tg:
        limiter = anyio.CapacityLimiter(50)

        async def start_one() -> None:
            async with limiter:
                tg.start_soon(holder)
                await anyio.sleep(0)

        for _ in range(count):
            await start_one()
        with anyio.fail_after(600):
            await ready.wait()
        held = arena.open_sessions
        after = rss_mb()
        release.set()
    print(f"held {held} concurrent arena sessions, {failures} failures")
    return failures, (after - before) * 1024 / max(held, 1)


async def main(sessions: int = 8, calls: int = 50, hold: int = 1000) -> None:
    env = bench_env()
    limits = httpx2.Limits(max_connections=hold + 10, max_keepalive_connections=hold + 10)
    async with serve_arena([env], SandboxConfig(workers=2)) as arena, httpx2.AsyncClient(timeout=120, limits=limits) as http:
        async with anyio.create_task_group() as tg:
            arena_url = arena.url(env.spec.id)
            base_port = await tg.start(serve_app, baseline_server().streamable_http_app())
            base_url = f"http://127.0.0.1:{base_port}/mcp"
            await calls_per_second(arena_url, http, 2, 5)
            await calls_per_second(base_url, http, 2, 5)
            arena_rate = await calls_per_second(arena_url, http, sessions, calls)
            base_rate = await calls_per_second(base_url, http, sessions, calls)
            print(f"arena (sandboxed):      {arena_rate:8.0f} calls/s  ({sessions} sessions x {calls} calls)")
            print(f"SDK default server:     {base_rate:8.0f} calls/s  (same tool in process)")
            print(f"ratio: {arena_rate / base_rate:.2f}x (target >= 4x, >= 1,000 calls/s)")
            failures, kib = await hold_sessions(arena_url, http, arena.server, hold)
            print(f"memory per idle session: {kib:.1f} KiB (client and server in this process)")
            tg.cancel_scope.cancel()


if __name__ == "__main__":
    anyio.run(main, backend_options={"use_uvloop": True})
