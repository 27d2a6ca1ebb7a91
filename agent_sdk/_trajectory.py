"""`Trajectory`: the typed record of one episode, what rewards score and exporters write."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from agent_sdk._messages import ArgumentRepair, ChatMessage, SampledTokens, ToolCall, Usage
from agent_sdk._tool_source import ToolResult

__all__ = ["StopReason", "Step", "ToolCallRecord", "Trajectory"]

StopReason = Literal["final_answer", "max_turns", "token_budget", "model_error"]
"""Why an episode ended: the model answered without a call; it used all its turns; it used
its token budget; or the model backend failed after its retries (see `Trajectory.error`)."""


class ToolCallRecord(BaseModel):
    """One tool call of an episode and what it returned."""

    turn: int = Field(description="1-based turn (model request) that made the call.")
    call: ToolCall = Field(description="The call as the model made it (arguments after repair).")
    result: ToolResult = Field(description="What the tool source returned.")
    repair: ArgumentRepair | None = Field(default=None, description="How its arguments were repaired, if they were.")


class Step(BaseModel):
    """One turn: a model request and the tool calls it asked for."""

    turn: int = Field(description="1-based turn number.")
    message_index: int = Field(description="Index in `Trajectory.messages` of this turn's assistant message.")
    usage: Usage = Field(default_factory=Usage, description="Tokens of this model request.")
    finish_reason: str | None = None
    model_latency_s: float = Field(default=0.0, description="Wall time of the model request.")
    tools_latency_s: float = Field(default=0.0, description="Wall time of this turn's tool calls (run concurrently).")
    calls: list[ToolCallRecord] = Field(default_factory=list)
    tokens: SampledTokens | None = Field(default=None, description="The request's sampled tokens, when the backend returned them.")


class Trajectory(BaseModel):
    """A whole episode: the conversation, every call with its result, usage and why it stopped."""

    task: str = Field(description="The user's question.")
    messages: list[ChatMessage] = Field(default_factory=list, description="The conversation in OpenAI chat format.")
    tools: list[dict[str, Any]] = Field(default_factory=list, description="Tool schemas offered (OpenAI format).")
    steps: list[Step] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage, description="Tokens over all model requests.")
    stop_reason: StopReason | None = None
    final_answer: str | None = Field(default=None, description="Content of the last assistant message without calls.")
    error: str | None = Field(default=None, description="The model error that ended the episode, if any.")
    model: str | None = Field(default=None, description="Name of the model that played the episode.")
    wall_s: float = Field(default=0.0, description="Wall time of the whole episode.")
    metadata: dict[str, Any] = Field(default_factory=dict, description="Caller data, e.g. env id, seed, reward.")

    @property
    def tool_calls(self) -> list[ToolCallRecord]:
        """Every tool call of the episode, in order."""
        return [record for step in self.steps for record in step.calls]

    @property
    def repairs(self) -> list[ArgumentRepair]:
        """Every argument repair made during the episode."""
        return [record.repair for record in self.tool_calls if record.repair is not None]

    @property
    def turns(self) -> int:
        """Number of model requests."""
        return len(self.steps)

    def to_openai(self) -> dict[str, Any]:
        """`{"messages": [...], "tools": [...]}` in OpenAI chat format (arguments as JSON strings)."""
        return {"messages": [m.to_openai() for m in self.messages], "tools": list(self.tools)}
