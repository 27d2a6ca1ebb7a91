"""New isolated session in the arena vs spawning a fresh stdio server (docs/design.md §3, §4).

A session here is: connect, initialize, list_tools and one call. Prints medians and the ratio.
Targets: arena <= 10 ms median, >= 90x faster than a fresh stdio server.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).parent))
from _envs import write_bench_env  # noqa: E402

from mcp_servers import SandboxConfig, load_env, serve_arena  # noqa: E402


async def one_session(target: object) -> float:
    start = time.perf_counter()
    async with Client(target) as client:
        await client.list_tools()
        await client.call_tool("bump", {})
    return time.perf_counter() - start


async def main(arena_sessions: int = 60, stdio_sessions: int = 5) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        env_dir = write_bench_env(Path(tmp))
        env = load_env(env_dir)
        async with serve_arena([env], SandboxConfig(workers=2), prestart=True) as arena:
            url = arena.url(env.spec.id)
            # A rollout worker keeps one HTTP client (a new one costs ~30 ms of TLS setup).
            async with httpx2.AsyncClient(timeout=30) as http:
                await one_session(streamable_http_client(url, http_client=http))
                arena_times = [
                    await one_session(streamable_http_client(url, http_client=http)) for _ in range(arena_sessions)
                ]
            stdio = StdioServerParameters(command=sys.executable, args=["-m", "astra_cli", "env", "serve", str(env_dir)])
            stdio_times = [await one_session(stdio) for _ in range(stdio_sessions)]
    arena_ms = statistics.median(arena_times) * 1000
    stdio_ms = statistics.median(stdio_times) * 1000
    print(f"arena session (connect+list+call): median {arena_ms:.1f} ms over {arena_sessions}")
    print(f"fresh stdio server (same):         median {stdio_ms:.1f} ms over {stdio_sessions}")
    print(f"ratio: {stdio_ms / arena_ms:.1f}x faster (target >= 90x, <= 10 ms)")


if __name__ == "__main__":
    anyio.run(main, backend_options={"use_uvloop": True})
