"""Agent-loop overhead per turn, excluding model and tool time (target: <= 1 ms).

An instant `FunctionModel` makes one tool call per turn against an in-process MCP server
whose tool returns at once. Per turn, overhead = episode wall time - model time - tool time
(the loop's bookkeeping: messages, records, parsing, dispatch). Printed against two
baselines measured in the same run: a raw `mcp.Client.call_tool` round trip, and
`Toolbox.call_tool` (what the loop pays per call on top of raw MCP).

    python bench/agent_loop_overhead.py [--turns 200] [--episodes 20] [--parallel 1]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import mcp_types as types
from mcp import Client
from mcp.server import Server

from agent_sdk import Agent, ChatMessage, FunctionModel, Toolbox, ToolCall, Usage


def _server() -> Server:
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        schema = {"type": "object", "properties": {"k": {"type": "integer"}}}
        return types.ListToolsResult(tools=[types.Tool(name="echo", description="echo k", input_schema=schema)])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text=str((params.arguments or {}).get("k")))])

    return Server("bench", on_list_tools=list_tools, on_call_tool=call_tool)


def instant_model(turns: int, parallel: int) -> FunctionModel:
    """Calls `echo` `parallel` times per turn for `turns` turns, then answers; no compute."""

    def reply(messages: list[ChatMessage], tools: Any, settings: Any) -> ChatMessage | str:
        turn = sum(m.role == "assistant" for m in messages)
        if turn >= turns:
            return "done"
        return ChatMessage(role="assistant", tool_calls=[ToolCall(id=f"c{turn}_{i}", name="echo", arguments={"k": turn}) for i in range(parallel)])

    return FunctionModel(reply, name="instant", reply_usage=Usage(prompt_tokens=1, completion_tokens=1, requests=1))


async def median_call_s(call: Callable[[str, dict[str, Any]], Awaitable[Any]], calls: int) -> float:
    """Median seconds of one `call("echo", ...)` round trip."""
    samples = []
    for k in range(calls):
        started = time.perf_counter()
        await call("echo", {"k": k})
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


async def raw_mcp_call_s(server: Server, calls: int) -> float:
    """Median seconds of one `Client.call_tool` round trip."""
    async with Client(server, mode="legacy") as client:
        return await median_call_s(client.call_tool, calls)


async def toolbox_call_s(server: Server, calls: int) -> float:
    """Median seconds of one `Toolbox.call_tool`."""
    async with Toolbox(server) as box:
        return await median_call_s(box.call_tool, calls)


async def loop_overhead_s(server: Server, turns: int, episodes: int, parallel: int) -> tuple[float, float]:
    """(per-turn overhead: median over episodes of its mean; median tool time of one turn)."""
    overheads, tool_times = [], []
    async with Toolbox(server) as box:
        agent = Agent(instant_model(turns, parallel), box, max_turns=turns + 1)
        for _ in range(episodes):
            trajectory = await agent.run("go")
            model_s = sum(s.model_latency_s for s in trajectory.steps)
            tools_s = sum(s.tools_latency_s for s in trajectory.steps)
            overheads.append((trajectory.wall_s - model_s - tools_s) / trajectory.turns)
            tool_times.extend(s.tools_latency_s for s in trajectory.steps if s.calls)
    return statistics.median(overheads), statistics.median(tool_times)


async def main(turns: int, episodes: int, parallel: int) -> None:
    server = _server()
    raw = await raw_mcp_call_s(server, 500)
    boxed = await toolbox_call_s(server, 500)
    overhead, tools = await loop_overhead_s(server, turns, episodes, parallel)
    print(f"turns/episode={turns} episodes={episodes} calls/turn={parallel}")
    print(f"baseline raw MCP call (in-process Client.call_tool): {raw * 1e3:8.3f} ms")
    print(f"Toolbox.call_tool:                                   {boxed * 1e3:8.3f} ms  ({boxed / raw:.2f}x raw MCP)")
    print(f"tool time per turn inside the loop:                  {tools * 1e3:8.3f} ms  ({tools / raw:.2f}x raw MCP)")
    print(f"loop overhead per turn (excl. model and tool time):  {overhead * 1e3:8.3f} ms  ({overhead / raw:.2f}x raw MCP)")
    verdict = "meets" if overhead <= 1e-3 else "MISSES"
    print(f"target <= 1 ms per turn: {verdict}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--episodes", type=int, default=10)
    parser.add_argument("--parallel", type=int, default=1, help="tool calls per turn (run concurrently)")
    args = parser.parse_args()
    anyio.run(main, args.turns, args.episodes, args.parallel)
