"""The agent loop: model -> tool calls (concurrently) -> model, until an answer or a limit."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import anyio

from agent_sdk._messages import ArgumentRepair, ChatMessage, SamplingSettings, ToolCall, Usage
from agent_sdk._model import ChatModel
from agent_sdk._tool_source import ToolResult, ToolSource
from agent_sdk._trajectory import Step, StopReason, ToolCallRecord, Trajectory
from agent_sdk.exceptions import ModelError

__all__ = ["first_call_only", "run_episode"]


async def run_episode(
    model: ChatModel,
    toolbox: ToolSource,
    task: str,
    *,
    system_prompt: str | None,
    max_turns: int,
    max_tokens_budget: int | None,
    settings: SamplingSettings | None,
    metadata: Mapping[str, Any] | None = None,
    parallel_tool_calls: bool = True,
) -> Trajectory:
    """Play one episode on an open tool source and return its trajectory.

    Tool failures become error observations; a `ModelError` ends the episode with
    `stop_reason="model_error"`; cancellation propagates. With `parallel_tool_calls` false a
    reply's first call runs and the others are dropped from the message (`first_call_only`).
    """
    started = time.perf_counter()
    messages: list[ChatMessage] = []
    if system_prompt:
        messages.append(ChatMessage(role="system", content=system_prompt))
    messages.append(ChatMessage(role="user", content=task))
    tools = [info.to_openai() for info in toolbox.list_tools()]
    trajectory = Trajectory(task=task, tools=tools, model=model.name, metadata=dict(metadata or {}))
    trajectory.messages = messages
    usage = Usage()
    stop: StopReason = "max_turns"
    for turn in range(1, max_turns + 1):
        if max_tokens_budget is not None and usage.prompt_tokens + usage.completion_tokens >= max_tokens_budget:
            stop = "token_budget"
            break
        requested = time.perf_counter()
        try:
            response = await model.complete(messages, tools, settings=settings)
        except ModelError as exc:
            trajectory.error = f"{type(exc).__name__}: {exc}"
            stop = "model_error"
            break
        message = response.message
        if message.role != "assistant":
            message = message.model_copy(update={"role": "assistant"})
        tokens = response.tokens
        if not parallel_tool_calls and len(message.tool_calls) > 1:
            message, tokens = first_call_only(message), None  # the sampled tokens hold the dropped calls too
        step = Step(
            turn=turn,
            message_index=len(messages),
            usage=response.usage,
            finish_reason=response.finish_reason,
            model_latency_s=time.perf_counter() - requested,
            tokens=tokens,
        )
        messages.append(message)
        usage = usage + response.usage
        trajectory.steps.append(step)
        if not message.tool_calls:
            trajectory.final_answer = message.content
            stop = "final_answer"
            break
        calls_started = time.perf_counter()
        repairs = {r.call_id: r for r in response.repairs}
        results = await _call_tools(toolbox, message.tool_calls, repairs)
        step.tools_latency_s = time.perf_counter() - calls_started
        for call, result in zip(message.tool_calls, results, strict=True):
            step.calls.append(ToolCallRecord(turn=turn, call=call, result=result, repair=repairs.get(call.id)))
            messages.append(ChatMessage(role="tool", content=result.observation(), tool_call_id=call.id, name=call.name))
    trajectory.usage = usage
    trajectory.model = model.name  # a backend may learn its name on the first request
    trajectory.stop_reason = stop
    trajectory.wall_s = time.perf_counter() - started
    return trajectory


def first_call_only(message: ChatMessage) -> ChatMessage:
    """`message` with its first tool call alone, as OpenAI's `parallel_tool_calls=false` answers.

    A later call of one reply cannot use what an earlier one returns: a small model that writes a whole
    chain at once fills the later calls' ids in itself. Run one at a time, it reads each result first.
    """
    return message.model_copy(update={"tool_calls": message.tool_calls[:1]})


async def _call_tools(
    toolbox: ToolSource, calls: list[ToolCall], repairs: Mapping[str, ArgumentRepair]
) -> list[ToolResult]:
    """Run one turn's calls concurrently; results in call order."""
    if len(calls) == 1:
        return [await _call_one(toolbox, calls[0], repairs.get(calls[0].id))]
    results: list[ToolResult | None] = [None] * len(calls)

    async def run(index: int, call: ToolCall) -> None:
        results[index] = await _call_one(toolbox, call, repairs.get(call.id))

    async with anyio.create_task_group() as tg:
        for index, call in enumerate(calls):
            tg.start_soon(run, index, call)
    return [r for r in results if r is not None]


async def _call_one(toolbox: ToolSource, call: ToolCall, repair: ArgumentRepair | None) -> ToolResult:
    if repair is not None and not repair.ok:
        return ToolResult(ok=False, error=repair.failure_message(), error_kind="bad_arguments", tool=call.name)
    return await toolbox.call_tool(call.name, call.arguments)
