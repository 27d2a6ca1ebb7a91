"""A multi-turn conversation between a `ChatModel` and the tools of an `agent_sdk.Toolbox`.

`agent_sdk.Agent.run` plays one task from a fresh context; the benchmarks here need several
user turns over one growing context (BFCL's turns, tau2's simulated user, ACEBench's
multi-turn agent), so this loop keeps the messages between `turn` calls. It calls the same
`ChatModel` protocol and the same `Toolbox.call_tool` as the agent, so what a model meets
here is what it meets in training rollouts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_sdk import ChatMessage, ChatModel, ModelError, SamplingSettings, ToolCall, Toolbox, ToolResult, Usage

__all__ = ["Conversation", "TurnResult", "TurnStep"]


@dataclass(kw_only=True)
class TurnStep:
    """One model response inside a turn and the calls it made, with their results."""

    message: ChatMessage
    calls: list[tuple[ToolCall, ToolResult]] = field(default_factory=list)


@dataclass(kw_only=True)
class TurnResult:
    """What happened in one user turn."""

    steps: list[TurnStep] = field(default_factory=list)
    reply: str | None = None
    error: str | None = None
    hit_step_limit: bool = False

    @property
    def calls(self) -> list[tuple[ToolCall, ToolResult]]:
        """Every call of the turn, in order."""
        return [c for s in self.steps for c in s.calls]


class Conversation:
    """Messages kept across turns; each `turn` runs model -> tools until the model answers.

    Args:
        model: the assistant.
        system_prompt: first message (None for none).
        settings: sampling settings for every request.
        max_steps: model requests allowed per turn (BFCL uses 20).
    """

    def __init__(
        self,
        model: ChatModel,
        *,
        system_prompt: str | None = None,
        settings: SamplingSettings | None = None,
        max_steps: int = 20,
    ) -> None:
        self.model = model
        self.settings = settings
        self.max_steps = max_steps
        self.messages: list[ChatMessage] = []
        self.usage = Usage()
        if system_prompt:
            self.messages.append(ChatMessage(role="system", content=system_prompt))

    async def turn(self, user: str | None, toolbox: Toolbox | None, tools: Sequence[dict[str, Any]] | None = None) -> TurnResult:
        """Add `user` (if any) and let the model act until it replies without calls.

        `tools` overrides the schemas shown to the model (default: all of the toolbox's).
        A `ModelError` ends the turn with `error` set; tool failures are observations.
        """
        if user is not None:
            self.messages.append(ChatMessage(role="user", content=user))
        offered = list(tools) if tools is not None else (toolbox.openai_tools() if toolbox is not None else [])
        result = TurnResult()
        for _ in range(self.max_steps):
            try:
                response = await self.model.complete(self.messages, offered or None, settings=self.settings)
            except ModelError as exc:
                result.error = f"{type(exc).__name__}: {exc}"
                return result
            self.usage = self.usage + response.usage
            message = response.message.model_copy(update={"role": "assistant"})
            self.messages.append(message)
            step = TurnStep(message=message)
            result.steps.append(step)
            if not message.tool_calls:
                result.reply = message.content or ""
                return result
            for call in message.tool_calls:
                outcome = await _call(toolbox, call)
                step.calls.append((call, outcome))
                self.messages.append(
                    ChatMessage(role="tool", content=outcome.observation(), tool_call_id=call.id, name=call.name)
                )
        result.hit_step_limit = True
        return result


async def _call(toolbox: Toolbox | None, call: ToolCall) -> ToolResult:
    if toolbox is None:
        return ToolResult(ok=False, error=f"no tools are available (asked for {call.name!r})", error_kind="unknown_tool", tool=call.name)
    return await toolbox.call_tool(call.name, call.arguments)
