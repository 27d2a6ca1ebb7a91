"""One rollout's MCP session to the arena, shared by the veRL agent loop and the TRL environment.

An `McpEpisode` opens one MCP session to `/envs/{env_id}/mcp?distractors=...` (a fresh
environment instance with the sample's distractors), lists its tools, calls them with a
per-call timeout and records every call, so the F1 reward can be computed from the session
alone. Failures are data: a bad argument string, an unknown tool, a timeout or a tool error
becomes the tool message the model reads, and still counts as a call.
"""

from __future__ import annotations

import json
import time
from contextlib import AsyncExitStack
from typing import Any
from urllib.parse import quote

from agent_sdk import ChatMessage, McpTools, RecordedTools, Step, ToolCall, ToolCallRecord, ToolResult, Trajectory
from rl.datasets import RlTask
from rl.reward import RewardParts, f1_reward


def episode_url(arena_url: str, task: RlTask) -> str:
    """The arena URL serving the task's environment together with its distractors."""
    url = f"{arena_url.rstrip('/')}/envs/{task.env_id}/mcp"
    if task.distractors:
        url += "?distractors=" + quote(",".join(task.distractors), safe=",.")
    return url


def _parse_arguments(name: str, arguments: str | dict[str, Any] | None) -> tuple[dict[str, Any], str | None]:
    """Arguments as a dict, or a message the model can act on."""
    if arguments is None:
        return {}, None
    if isinstance(arguments, dict):
        return arguments, None
    if not arguments.strip():
        return {}, None
    try:
        value = json.loads(arguments)
    except json.JSONDecodeError as exc:
        return {}, f"arguments for {name!r} are not valid JSON: {exc}"
    if not isinstance(value, dict):
        return {}, f"arguments for {name!r} must be a JSON object, got {type(value).__name__}"
    return value, None


class McpEpisode:
    """An MCP session for one trajectory, recording tool calls for the reward.

    A wrapper over the arena's tools: one `McpTools` session on the episode URL, recorded
    by `RecordedTools`, plus the F1 reward of what was recorded. Open it with `async with`.

    Args:
        arena_url: base URL of an `ArenaServer` (e.g. `http://127.0.0.1:8765`).
        task: the row being rolled out.
        call_timeout_s: limit per tool call (a timeout becomes an error tool message).
        connect_timeout_s: limit for connecting and listing tools.
        max_observation_chars: tool output longer than this is truncated for the model.
    """

    def __init__(
        self,
        arena_url: str,
        task: RlTask,
        *,
        call_timeout_s: float = 30.0,
        connect_timeout_s: float = 60.0,
        max_observation_chars: int = 8192,
    ) -> None:
        self.task = task
        self.url = episode_url(arena_url, task)
        self.max_observation_chars = max_observation_chars
        self._recorded = RecordedTools(McpTools(self.url, timeout_s=call_timeout_s, connect_timeout_s=connect_timeout_s))
        self._stack: AsyncExitStack | None = None
        self._started = time.monotonic()

    async def __aenter__(self) -> McpEpisode:
        stack = AsyncExitStack()
        await stack.enter_async_context(self._recorded)
        self._stack = stack
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        stack, self._stack = self._stack, None
        if stack is not None:
            await stack.aclose()

    @property
    def records(self) -> list[ToolCallRecord]:
        """Every tool call of the episode (refused ones included), in completion order."""
        return self._recorded.records

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The session's tools (environment + distractors) as OpenAI function schemas (none when closed)."""
        return [info.to_openai() for info in self._recorded.list_tools()] if self._stack is not None else []

    async def call(self, name: str, arguments: str | dict[str, Any] | None, *, turn: int, call_id: str | None = None) -> str:
        """Call a tool (arguments as the model wrote them) and return the tool message text."""
        call_id = call_id or f"call_{len(self.records)}"
        raw = arguments if isinstance(arguments, str) else None
        parsed, problem = _parse_arguments(name, arguments)
        call = ToolCall(id=call_id, name=name, arguments=parsed, raw_arguments=raw)
        if problem is None:
            result = await self._recorded.call(call, turn=turn)
        else:
            result = ToolResult(ok=False, text=problem, error=problem, error_kind="bad_arguments", tool=name)
            self._recorded.record(call, result, turn=turn)
        text = result.observation()
        if len(text) > self.max_observation_chars:
            text = text[: self.max_observation_chars] + "...(truncated)"
        return text

    def trajectory(self, messages: list[dict[str, Any]] | None = None) -> Trajectory:
        """The episode as a `Trajectory` (what the reward scores)."""
        turns = sorted({r.turn for r in self.records})
        steps = [Step(turn=t, message_index=0, calls=[r for r in self.records if r.turn == t]) for t in turns]
        chat = []
        for m in messages or []:
            if m.get("role") in ("system", "user", "assistant", "tool") and isinstance(m.get("content", ""), str):
                chat.append(ChatMessage(role=m["role"], content=m.get("content") or ""))
        return Trajectory(
            task=self.task.spec.task.question,
            messages=chat,
            tools=self.tools,
            steps=steps,
            wall_s=time.monotonic() - self._started,
            metadata={"env_id": self.task.env_id, "distractors": list(self.task.distractors)},
        )

    def reward(self, messages: list[dict[str, Any]] | None = None) -> RewardParts:
        """The F1 reward with its parts."""
        return f1_reward(self.trajectory(messages), self.task.spec, distractor_names=self.task.distractor_names)
