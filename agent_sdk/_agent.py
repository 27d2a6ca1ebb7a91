"""`Agent`: a model plus a toolbox; `run(task)` plays one episode and returns its trajectory."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass
from functools import partial
from typing import Any

import anyio

from agent_sdk._loop import run_episode
from agent_sdk._messages import SamplingSettings
from agent_sdk._model import ChatModel
from agent_sdk._toolbox import Toolbox
from agent_sdk._trajectory import Trajectory
from agent_sdk.exceptions import UserError

__all__ = ["DEFAULT_SYSTEM_PROMPT", "Agent"]

DEFAULT_SYSTEM_PROMPT = (
    "You are a helpful assistant with access to tools. Call tools to look up every fact you need, "
    "one step at a time, then answer the question concisely."
)
"""The one system prompt of an episode: cold-start rows, GRPO rollouts, evaluation and the agent all
open with it, so the model is evaluated on the episode it was trained on. Kept short on purpose:
small local models are slow per prompt token."""


@dataclass(eq=False)
class Agent:
    """A model acting as an MCP client agent.

    Args:
        model: any `ChatModel`.
        toolbox: the tools; opened for the duration of `run` unless already open (an open
            toolbox is reused, so its sessions and their state carry over between runs).
        system_prompt: first message of every episode (None for none).
        max_turns: limit on model requests per episode.
        max_tokens_budget: stop before a request once prompt + completion tokens reach this.
        settings: sampling settings for every request.
        parallel_tool_calls: run every call of a reply (default), or only its first, the others
            dropped from the conversation (OpenAI's `parallel_tool_calls=false`, for any backend).
    """

    model: ChatModel
    toolbox: Toolbox
    _: KW_ONLY
    system_prompt: str | None = DEFAULT_SYSTEM_PROMPT
    max_turns: int = 32
    max_tokens_budget: int | None = None
    settings: SamplingSettings | None = None
    parallel_tool_calls: bool = True

    def __post_init__(self) -> None:
        if self.max_turns < 1:
            raise UserError(f"max_turns must be >= 1, got {self.max_turns}")

    async def run(self, task: str, *, metadata: Mapping[str, Any] | None = None) -> Trajectory:
        """Play one episode for `task`.

        Raises:
            ToolboxError: when the toolbox had to be opened and a server could not be reached.
        """
        episode = partial(
            run_episode,
            self.model,
            self.toolbox,
            task,
            system_prompt=self.system_prompt,
            max_turns=self.max_turns,
            max_tokens_budget=self.max_tokens_budget,
            settings=self.settings,
            metadata=metadata,
            parallel_tool_calls=self.parallel_tool_calls,
        )
        if self.toolbox.is_open:
            return await episode()
        async with self.toolbox:
            return await episode()

    def run_sync(self, task: str, *, metadata: Mapping[str, Any] | None = None) -> Trajectory:
        """`run` for scripts: starts an event loop, plays the episode, returns its trajectory."""
        return anyio.run(partial(self.run, task, metadata=metadata))
