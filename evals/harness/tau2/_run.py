"""tau2 episodes over MCP: gold-action replay, and an agent talking to a simulated user."""

from __future__ import annotations

import time
import uuid
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Literal

from agent_sdk import ChatModel, SamplingSettings, Toolbox

from harness._conversation import Conversation, TurnResult
from harness.tau2._server import DONE_TOOL, Tau2Episode

__all__ = ["DOMAINS", "TaskOutcome", "load_tasks", "play_task", "replay_gold"]

DOMAINS = ("retail", "airline", "telecom")
_STOP_MARKERS = ("###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###")
SOLO_NUDGE = "Work on the ticket with your tools; call `done` when it is solved."


@dataclass(frozen=True, kw_only=True)
class TaskOutcome:
    """tau2's verdict on one episode: its native record, and the messages that record was judged on."""

    simulation: dict[str, Any]
    """tau2's `SimulationRun` as JSON: task id, termination, duration and `reward_info` (the reward's breakdown:
    database, actions, communication checks)."""
    messages: list[Any] = field(default_factory=list)
    """The episode's tau2 messages, in order, as the objects tau2's evaluator read."""

    @property
    def reward(self) -> float:
        """tau2's reward for the episode (1.0: every check of the task passed)."""
        return self.simulation["reward_info"]["reward"]

    @property
    def termination(self) -> str:
        """How the episode ended, as tau2 names it (`user_stop`, `agent_stop`, `max_steps`, ...)."""
        return self.simulation["termination_reason"]


def load_tasks(domain: str) -> list[Any]:
    """tau2's benchmark tasks for `domain` (the "base" split: 114 retail, 50 airline, 114 telecom).

    Raises:
        ValueError: for a domain other than retail, airline, telecom.
    """
    if domain not in DOMAINS:
        raise ValueError(f"unknown tau2 domain {domain!r}; expected one of {', '.join(DOMAINS)}")
    from tau2.run import load_tasks as tau2_load_tasks

    return tau2_load_tasks(domain, task_split_name="base")


def _evaluate(domain: str, task: Any, messages: list[Any], termination: str, solo_mode: bool, started: float) -> TaskOutcome:
    from tau2.data_model.simulation import SimulationRun, TerminationReason
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation

    now = datetime.now(timezone.utc).isoformat()
    simulation = SimulationRun(
        id=uuid.uuid4().hex, task_id=task.id, start_time=now, end_time=now, duration=time.perf_counter() - started,
        termination_reason=TerminationReason(termination), messages=messages,
    )
    info = evaluate_simulation(simulation, task, EvaluationType.ALL, solo_mode, domain)
    simulation.reward_info = info
    return TaskOutcome(simulation=simulation.model_dump(mode="json"), messages=messages)


def _tool_messages(requestor: Literal["user", "assistant"], content: str | None, calls: list[tuple[Any, Any]]) -> list[Any]:
    """tau2 messages for one model step: the message with its calls, then one tool message each.

    Calls that never reached the environment (unknown tools, `done`) are left out: tau2's
    evaluator re-executes every recorded call and demands the same tool message back.
    """
    from tau2.data_model.message import AssistantMessage, ToolCall, ToolMessage, UserMessage

    reached = [(c, r) for c, r in calls if r.server is not None and c.name != DONE_TOOL]
    if not reached:
        return []
    kind = UserMessage if requestor == "user" else AssistantMessage
    out: list[Any] = [kind(role=requestor, content=content or None, tool_calls=[
        ToolCall(id=c.id, name=c.name, arguments=dict(c.arguments), requestor=requestor) for c, _ in reached
    ])]
    out += [ToolMessage(id=c.id, role="tool", content=r.text, requestor=requestor, error=not r.ok) for c, r in reached]
    return out


async def replay_gold(domain: str, task: Any, *, solo_mode: bool = False) -> TaskOutcome:
    """Replay the task's gold actions through its MCP servers and score the trajectory with tau2.

    The replayed assistant ends with one message holding the task's `communicate_info`.
    """
    from tau2.data_model.message import AssistantMessage

    from agent_sdk import ToolCall

    started = time.perf_counter()
    episode = Tau2Episode(domain, task, solo_mode=solo_mode)
    messages: list[Any] = list(task.initial_state.message_history or []) if task.initial_state else []
    criteria = task.evaluation_criteria
    async with AsyncExitStack() as stack:
        agent = await stack.enter_async_context(Toolbox(episode.agent_server))
        user = await stack.enter_async_context(Toolbox(episode.user_server)) if episode.user_server else None
        for index, action in enumerate(criteria.actions or [] if criteria else []):
            requestor = "user" if action.requestor == "user" and not solo_mode else "assistant"
            toolbox = user if requestor == "user" and user is not None else agent
            call = ToolCall(id=f"gold_{index}", name=action.name, arguments=dict(action.arguments))
            result = await toolbox.call_tool(call.name, call.arguments)
            messages += _tool_messages(requestor, None, [(call, result)])
    info = list(criteria.communicate_info or []) if criteria else []
    messages.append(AssistantMessage(role="assistant", content=" ".join(info) if info else "Done."))
    return _evaluate(domain, task, messages, "agent_stop", solo_mode, started)


def _record(messages: list[Any], requestor: Literal["user", "assistant"], turn: TurnResult) -> None:
    for step in turn.steps:
        messages += _tool_messages(requestor, step.message.content, step.calls)


async def play_task(
    domain: str,
    task: Any,
    agent_model: ChatModel,
    user_model: ChatModel | None = None,
    *,
    solo_mode: bool = False,
    max_exchanges: int = 30,
    settings: SamplingSettings | None = None,
) -> TaskOutcome:
    """One tau2 episode: the agent (over MCP) with a simulated user (also a `ChatModel`), or solo.

    Raises:
        ValueError: without a user model outside solo mode.
    """
    from tau2.agent.llm_agent import LLMAgent, LLMSoloAgent
    from tau2.data_model.message import AssistantMessage, UserMessage
    from tau2.user.user_simulator import UserSimulator

    started = time.perf_counter()
    episode = Tau2Episode(domain, task, solo_mode=solo_mode)
    env = episode.env
    messages: list[Any] = list(task.initial_state.message_history or []) if task.initial_state else []
    termination = "max_steps"
    async with AsyncExitStack() as stack:
        agent_tb = await stack.enter_async_context(Toolbox(episode.agent_server))
        if solo_mode:
            tools = list(env.get_tools()) + list(env.get_user_tools() or [])
            prompt = LLMSoloAgent(tools=tools, domain_policy=env.get_policy(), task=task).system_prompt
            agent = Conversation(agent_model, system_prompt=prompt, settings=settings, max_steps=30)
            for _ in range(max_exchanges):
                turn = await agent.turn(SOLO_NUDGE, agent_tb)
                _record(messages, "assistant", turn)
                if turn.error:
                    termination = "agent_error"
                    break
                if episode.done:
                    termination = "agent_stop"
                    break
            return _evaluate(domain, task, messages, termination, solo_mode, started)
        if user_model is None:
            raise ValueError("tau2 needs a user model outside solo mode")
        user_tb = await stack.enter_async_context(Toolbox(episode.user_server)) if episode.user_server else None
        agent_prompt = LLMAgent(tools=list(env.get_tools()), domain_policy=env.get_policy()).system_prompt
        user_tools = list(env.get_user_tools()) if episode.user_server else None
        user_prompt = UserSimulator(tools=user_tools, instructions=task.user_scenario).system_prompt
        agent = Conversation(agent_model, system_prompt=agent_prompt, settings=settings, max_steps=30)
        user = Conversation(user_model, system_prompt=user_prompt, settings=settings, max_steps=10)
        greeting = "Hi! How can I help you today?"
        agent.messages.append(agent.messages[0].model_copy(update={"role": "assistant", "content": greeting}))
        messages.append(AssistantMessage(role="assistant", content=greeting))
        said = greeting
        for _ in range(max_exchanges):
            user_turn = await user.turn(said, user_tb)
            _record(messages, "user", user_turn)
            if user_turn.error or user_turn.reply is None:
                termination = "user_error"
                break
            messages.append(UserMessage(role="user", content=user_turn.reply))
            if any(marker in user_turn.reply for marker in _STOP_MARKERS):
                termination = "user_stop"
                break
            agent_turn = await agent.turn(user_turn.reply, agent_tb)
            _record(messages, "assistant", agent_turn)
            if agent_turn.error or agent_turn.reply is None:
                termination = "agent_error"
                break
            said = agent_turn.reply or "(no reply)"
            messages.append(AssistantMessage(role="assistant", content=said))
    return _evaluate(domain, task, messages, termination, solo_mode, started)
