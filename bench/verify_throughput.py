"""Verify throughput: environments verified per second (target: >= 50 envs/s).

Measured: `verify_paths` over every example in examples/envs, repeated, through in-process
MCP sessions against one sandbox. Each verification is the full check: two replays of all
golden calls in fresh sessions plus one fresh session per argument perturbation.

Baseline, in the same run: for each example, a fresh stdio server subprocess
(`python -m astra_cli env serve DIR`) that lists its tools and replays the golden calls
once — the least a verifier that spawns a server per environment must do. The baseline
does less work per environment than the measured path, so the ratio understates the gain.

Usage: python bench/verify_throughput.py [--repeat 5] [--concurrency 8] [--baseline-envs 6]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

from mcp_servers import SandboxConfig, answer_in_output, find_envs, golden_order, load_env, verify_paths

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "envs"


async def stdio_verify(env_dir: Path) -> bool:
    """List tools and replay the golden calls through a fresh stdio server; True if every answer came back."""
    env = load_env(env_dir)
    params = StdioServerParameters(command=sys.executable, args=["-m", "astra_cli", "env", "serve", str(env_dir)])
    ok = True
    with anyio.fail_after(120):
        async with Client(params) as client:
            await client.list_tools()
            for subtask in golden_order(env.spec):
                assert subtask.golden_call is not None
                result = await client.call_tool(subtask.golden_call.tool, subtask.golden_call.arguments)
                text = "\n".join(getattr(c, "text", "") for c in result.content)
                ok = ok and not result.is_error and answer_in_output(subtask.answer, text)
    return ok


async def main(repeat: int, concurrency: int, baseline_envs: int, baseline_concurrency: int) -> None:
    dirs = find_envs(EXAMPLES)
    async with SandboxConfig(workers=2).build() as sandbox:
        await sandbox.prestart(512)
        await verify_paths(dirs[:2], sandbox=sandbox, concurrency=concurrency)  # warm-up
        cpu_start, start = time.process_time(), time.perf_counter()
        report = await verify_paths(dirs * repeat, sandbox=sandbox, concurrency=concurrency)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    assert report.passed, [r.codes for r in report.envs if not r.passed]
    rate = len(report.envs) / elapsed

    chosen = dirs[:baseline_envs]
    results: list[bool] = []
    limiter = anyio.CapacityLimiter(baseline_concurrency)

    async def one(d: Path) -> None:
        async with limiter:
            results.append(await stdio_verify(d))

    start = time.perf_counter()
    async with anyio.create_task_group() as tg:
        for d in chosen:
            tg.start_soon(one, d)
    base_elapsed = time.perf_counter() - start
    assert all(results), "the stdio baseline did not reproduce the golden answers"
    base_rate = len(chosen) / base_elapsed

    print(f"verify (in-process MCP, full checks): {len(report.envs)} envs in {elapsed:.2f} s = {rate:.1f} envs/s "
          f"(concurrency {concurrency})")
    print(f"  CPU per env in this process: {cpu / len(report.envs) * 1000:.1f} ms "
          f"(1-minute load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
    print(f"baseline (fresh stdio server per env, one replay): {len(chosen)} envs in {base_elapsed:.2f} s = "
          f"{base_rate:.2f} envs/s (concurrency {baseline_concurrency})")
    print(f"ratio: {rate / base_rate:.1f}x (target >= 50 envs/s: {'met' if rate >= 50 else 'NOT met'})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--baseline-envs", type=int, default=6)
    parser.add_argument("--baseline-concurrency", type=int, default=2)
    args = parser.parse_args()
    anyio.run(main, args.repeat, args.concurrency, args.baseline_envs, args.baseline_concurrency)
