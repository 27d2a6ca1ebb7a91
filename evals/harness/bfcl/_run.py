"""Playing BFCL entries over MCP: a model turn by turn, or the ground truth as a replay."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import anyio
from agent_sdk import ChatModel, SamplingSettings, Toolbox
from mcp import Client

from harness._conversation import Conversation
from harness.bfcl._data import BfclEntry
from harness.bfcl._server import BfclEpisode, parse_call_string

__all__ = ["EntryOutcome", "play_entry", "replay_ground_truth"]

MAX_STEPS_PER_TURN = 21
"""bfcl-eval force-quits an entry once a turn has gone past 20 steps with calls."""


@dataclass(kw_only=True)
class EntryOutcome:
    """The executed calls of one episode, per turn and step, and what the model used."""

    id: str
    turns: list[list[list[str]]] = field(default_factory=list)
    force_terminated: bool = False
    errors: list[str] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)
    wall_s: float = 0.0

    def result_row(self) -> dict[str, Any]:
        """The row `write_result_file` writes."""
        return {"id": self.id, "turns": self.turns, "wall_s": round(self.wall_s, 3), **self.usage}


def _user_text(entry: BfclEntry, episode: BfclEpisode, turn: int) -> str:
    from bfcl_eval.constants.default_prompts import DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC

    if episode.reveal(turn):
        return DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC
    return "\n\n".join(m["content"] for m in entry.question[turn] if m.get("role") == "user")


async def play_entry(
    entry: BfclEntry, model: ChatModel, *, settings: SamplingSettings | None = None, timeout_s: float = 60.0
) -> EntryOutcome:
    """Drive one entry with `model`: each turn is a user message, then model -> MCP tools until it stops.

    The toolbox is reopened every turn so a miss_func reveal shows up in the tool list; the
    episode's backends keep their state across those connections.
    """
    started = time.perf_counter()
    episode = BfclEpisode(entry)
    conversation = Conversation(model, settings=settings, max_steps=MAX_STEPS_PER_TURN)
    outcome = EntryOutcome(id=entry.id)
    for turn in range(len(entry.question)):
        user = _user_text(entry, episode, turn)
        visible = set(episode.visible_tools)
        async with Toolbox(episode.server, timeout_s=timeout_s) as toolbox:
            result = await conversation.turn(user, toolbox)
        steps: list[list[str]] = []
        cursor = len(episode.executed) - sum(1 for c, _ in result.calls if c.name in visible)
        for step in result.steps:
            reached = sum(1 for c, _ in step.calls if c.name in visible)
            steps.append(episode.executed[cursor : cursor + reached])
            cursor += reached
        outcome.turns.append(steps)
        if result.error:
            outcome.errors.append(f"turn {turn}: {result.error}")
        if result.hit_step_limit:
            outcome.force_terminated = True
            break
    outcome.usage = {
        "input_token_count": conversation.usage.prompt_tokens,
        "output_token_count": conversation.usage.completion_tokens,
        "requests": conversation.usage.requests,
    }
    outcome.wall_s = time.perf_counter() - started
    return outcome


async def replay_ground_truth(
    entry: BfclEntry, *, drop: tuple[int, int] | None = None, timeout_s: float = 60.0
) -> EntryOutcome:
    """Call the ground truth through the entry's MCP server (a plain MCP client), one step per turn.

    A plain client rather than a `Toolbox`: a toolbox only routes listed tools, and one miss_func
    ground truth calls a function before its reveal turn (see `BfclEpisode.execute`).

    `drop=(turn, index)` leaves that call out (to check that the checker notices).

    Raises:
        RuntimeError: when a ground-truth call did not reach a backend.
    """
    started = time.perf_counter()
    episode = BfclEpisode(entry)
    outcome = EntryOutcome(id=entry.id)
    for turn, calls in enumerate(entry.ground_truth):
        episode.reveal(turn)
        before = len(episode.executed)
        async with Client(episode.server, mode="legacy") as client:
            for index, call in enumerate(calls):
                if drop == (turn, index):
                    continue
                name, args, kwargs = parse_call_string(call)
                with anyio.fail_after(timeout_s):
                    await client.call_tool(name, episode.positional_to_keywords(name, args, kwargs))
        if len(episode.executed) - before != len(calls) - (drop is not None and drop[0] == turn):
            raise RuntimeError(f"{entry.id} turn {turn}: not every ground-truth call reached a backend")
        executed = episode.executed[before:]
        outcome.turns.append([executed] if executed else [])
    outcome.wall_s = time.perf_counter() - started
    return outcome
