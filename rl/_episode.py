"""One rollout's MCP session to the arena, shared by the veRL agent loop and the TRL environment.

An `McpEpisode` opens one MCP session to `/envs/{env_id}/mcp?distractors=...` (a fresh
environment instance with the sample's distractors), lists its tools, calls them with a
per-call timeout and records every call, so the F1 reward can be computed from the session
alone. Failures are data: an unknown tool, a timeout or a tool error becomes the tool message
the model reads, and still counts as a call.

Arguments are treated as the agent loop treats them (one decision for training and evaluation):
argument text that is not strict JSON is repaired with `agent_sdk.parse_arguments`, and every
repair is recorded on the call as an `ArgumentRepair`; text that cannot be repaired becomes the
agent's error message for it (`ArgumentRepair.failure_message`) and still counts as a call.
"""

from __future__ import annotations

import time
from typing import Any

from agent_sdk import (
    ArgumentRepair,
    ChatMessage,
    McpTools,
    RecordedTools,
    Step,
    ToolCall,
    ToolCallRecord,
    ToolResult,
    Trajectory,
    WrapperTools,
    parse_arguments,
)
from mcp_servers import arena_env_url
from rl.datasets import RlTask
from rl.reward import RewardParts, f1_reward


def episode_url(arena_url: str, task: RlTask) -> str:
    """The arena URL serving the task's environment together with its distractors."""
    return arena_env_url(arena_url, task.env_id, distractors=task.distractors)


def _repaired(call_id: str, name: str, raw: str) -> tuple[dict[str, Any], ArgumentRepair | None]:
    """Argument text as a dict, repaired as the agent's parser repairs it, with the repair made (if any)."""
    try:
        arguments, fixes = parse_arguments(raw)
    except ValueError as exc:
        return {}, ArgumentRepair(call_id=call_id, tool=name, raw=raw, ok=False, error=str(exc))
    return arguments, ArgumentRepair(call_id=call_id, tool=name, raw=raw, fixes=fixes) if fixes else None


class McpEpisode(WrapperTools):
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
        super().__init__(self._recorded)
        self._started = time.monotonic()

    @property
    def records(self) -> list[ToolCallRecord]:
        """Every tool call of the episode (refused ones included), in completion order."""
        return self._recorded.records

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The session's tools (environment + distractors) as OpenAI function schemas (none when closed)."""
        return [info.to_openai() for info in self._recorded.list_tools()] if self._stack is not None else []

    async def call(
        self,
        name: str,
        arguments: str | dict[str, Any] | None,
        *,
        turn: int,
        call_id: str | None = None,
        repair: ArgumentRepair | None = None,
    ) -> str:
        """Call a tool and return the tool message text.

        Args:
            name: the tool the model named.
            arguments: the arguments as the model wrote them (text, repaired here) or as a
                parser already made them (a dict).
            turn: the model turn that made the call.
            call_id: the call's id (default: its index in the episode).
            repair: how a parser repaired `arguments` (`agent_sdk.parse_tool_calls` reports
                it); an `ok=False` repair means the arguments could not be parsed.
        """
        call_id = call_id or (repair.call_id if repair is not None else None) or f"call_{len(self.records)}"
        raw = arguments if isinstance(arguments, str) else repair.raw if repair is not None else None
        if isinstance(arguments, str):
            parsed, found = _repaired(call_id, name, arguments)
            if found is not None:  # what the text itself needed outranks a parser's note
                repair = found
        else:
            parsed = dict(arguments or {})
        call = ToolCall(id=call_id, name=name, arguments=parsed, raw_arguments=raw)
        if repair is not None and not repair.ok:
            message = repair.failure_message()
            result = ToolResult(ok=False, error=message, error_kind="bad_arguments", tool=name)
            self._recorded.record(call, result, turn=turn, repair=repair)
        else:
            result = await self._recorded.call(call, turn=turn, repair=repair)
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
