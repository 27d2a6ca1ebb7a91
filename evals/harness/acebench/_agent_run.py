"""ACEBench agent episodes: the agent over MCP, alone (multi_step) or with a simulated user (multi_turn)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from agent_sdk import ChatModel, SamplingSettings, Toolbox

from harness._conversation import Conversation
from harness.acebench._agent_env import AgentEpisode
from harness.acebench._agent_score import end_state_mismatches, process_accuracy
from harness.acebench._data import AceEntry

__all__ = ["AgentOutcome", "FINISH", "agent_system_prompt", "play_agent_entry", "user_system_prompt"]

FINISH = "finish conversation"
"""What the simulated user says when its task is done (ends the episode)."""

_AGENT = """You are an assistant that completes the user's tasks on their phone and accounts by calling the available functions.
Check what a step needs (Wi-Fi, being logged in, enough balance, free inbox space) from the functions' results and fix it before retrying.
Use exactly the values the user gave; never invent passwords, names or amounts."""
_AGENT_ALONE = "There is no one to ask: do the whole task yourself, then reply with a short summary."
_AGENT_DIALOGUE = "If something you need is missing, ask the user; when the task is done, tell the user."
_USER = """You are a user talking to an AI assistant who acts on your phone and accounts. Your situation and goal:
{instructions}

Speak only as this user, one short message at a time, in plain language. Start by stating what you want.
Answer the assistant's questions from the information above; do not volunteer more than is asked.
When the assistant has done everything you wanted, reply with exactly: {finish}"""


def agent_system_prompt(entry: AceEntry) -> str:
    """The agent's system message for `entry` (with or without a user to ask)."""
    alone = entry.category == "agent_multi_step"
    return f"{_AGENT}\n{_AGENT_ALONE if alone else _AGENT_DIALOGUE}"


def user_system_prompt(entry: AceEntry) -> str:
    """The simulated user's system message: the entry's question is the user's instructions."""
    return _USER.format(instructions=entry.question, finish=FINISH)


@dataclass(kw_only=True)
class AgentOutcome:
    """One agent episode, scored."""

    entry: str
    """The ACEBench entry id."""
    end_state_ok: bool
    """Whether the scenario's end state matches the entry's ground truth (ACEBench's end-to-end accuracy)."""
    process: float
    """The best gold path's share of milestones the agent's successful calls achieved in order (ACEBench's process accuracy)."""
    mismatches: list[str] = field(default_factory=list)
    """What differs between the end state and the ground truth (empty when equal)."""
    calls: list[dict[str, Any]] = field(default_factory=list)
    """The agent's tool calls, in order."""
    dialogue: list[dict[str, str]] = field(default_factory=list)
    """The episode's messages as role and content (the simulated user's turns included)."""
    error: str | None = None
    """Why the episode stopped early (a model or tool failure), if it did."""
    wall_s: float = 0.0
    """Seconds the episode took."""

    def record(self, trial: int) -> dict[str, Any]:
        """The JSON line written to the category's result file."""
        return {"id": self.entry, "trial": trial, "end_state_ok": self.end_state_ok, "process_accuracy": self.process,
                "mismatches": self.mismatches, "calls": self.calls, "dialogue": self.dialogue, "error": self.error,
                "wall_s": round(self.wall_s, 3)}


async def play_agent_entry(
    entry: AceEntry,
    agent_model: ChatModel,
    user_model: ChatModel | None = None,
    *,
    max_exchanges: int = 10,
    max_steps: int = 20,
    settings: SamplingSettings | None = None,
) -> AgentOutcome:
    """Play one agent entry and score its end state and process.

    multi_step: the question is the one user message and the agent works until it answers.
    multi_turn: a simulated user (`user_model`, the same `ChatModel` protocol) holds the
    question as its instructions and talks with the agent until it says `FINISH` (after the
    agent's first reply) or `max_exchanges` user messages have been sent.

    Raises:
        ValueError: for a multi_turn entry without a user model, or a non-agent entry.
    """
    if entry.category not in ("agent_multi_step", "agent_multi_turn"):
        raise ValueError(f"{entry.id}: not an agent entry ({entry.category})")
    if entry.category == "agent_multi_turn" and user_model is None:
        raise ValueError("agent_multi_turn needs a user model")
    started = time.perf_counter()
    episode = AgentEpisode(entry)
    agent = Conversation(agent_model, system_prompt=agent_system_prompt(entry), settings=settings, max_steps=max_steps)
    dialogue: list[dict[str, str]] = []
    error = None
    async with Toolbox(episode.server) as toolbox:
        if entry.category == "agent_multi_step":
            dialogue.append({"role": "user", "content": entry.question})
            turn = await agent.turn(entry.question, toolbox)
            error = turn.error
            dialogue.append({"role": "assistant", "content": turn.reply or ""})
        else:
            user = Conversation(user_model, system_prompt=user_system_prompt(entry), settings=settings, max_steps=1)
            said = "Hello! What can I do for you?"
            for _ in range(max_exchanges):
                user_turn = await user.turn(said, None)
                if user_turn.error or user_turn.reply is None:
                    error = f"user: {user_turn.error or 'no reply'}"
                    break
                dialogue.append({"role": "user", "content": user_turn.reply})
                # A user that "finishes" before the agent has spoken has asked for nothing yet.
                if FINISH in user_turn.reply.lower() and len(dialogue) > 1:
                    break
                agent_turn = await agent.turn(user_turn.reply, toolbox)
                if agent_turn.error:
                    error = f"agent: {agent_turn.error}"
                    break
                said = agent_turn.reply or "(no reply)"
                dialogue.append({"role": "assistant", "content": said})
    mismatches = end_state_mismatches(entry, episode.end_state())
    return AgentOutcome(
        entry=entry.id, end_state_ok=not mismatches, process=process_accuracy(entry, episode.calls), mismatches=mismatches,
        calls=[{"name": c.name, "arguments": c.arguments, "ok": c.ok} for c in episode.calls], dialogue=dialogue,
        error=error, wall_s=time.perf_counter() - started,
    )
