"""Stage 4: roll tasks out with agent_sdk's `Agent` against real MCP servers, or the emulator.

`RolloutServers` holds one MCP server per `ServerDoc` for the duration of the stage:

- `env` sources: an `mcp_servers.EnvServer` on a shared sandbox (`ASTRA_SANDBOX`), serving the first
  environment plus the other grouped environments' tools (each call runs in the sandboxed
  instance of its own environment; every MCP connection gets fresh instances);
- `mcp_http` / `mcp_stdio` sources: the live server itself;
- doc-only sources: a `ToolEmulator` answering with the generator model.

Every rollout opens its own MCP connection (a fresh session), so rollouts never share state.
Full multi-turn trajectories are kept, never split into single steps.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from contextlib import AsyncExitStack
from typing import Any

from mcp import StdioServerParameters
from mcp.server import Server
from pydantic import BaseModel, Field

from agent_sdk import Agent, ChatMessage, SamplingSettings, Toolbox, Trajectory
from mcp_servers import Binding, CheckCode, EmulatedTool, EmulatorConfig, EnvServer, Sandbox, SandboxConfig, ToolEmulator, load_env
from synth.sft._answer_shape import ASKS_USER, call_text_problem, final_answer_problem, states_a_result
from synth.sft._docs import ServerDoc
from synth.sft._grounding import invented_steps
from synth.sft._ingest import mcp_target
from synth.sft._tasks import SynthTask

Target = str | StdioServerParameters | Server

CHECK_CODES: tuple[CheckCode, ...] = CheckCode.load_declarations(__name__)
"""The codes of an unusable rollout (`rollout_problem`, `stops_short`); `_answer_shape` declares the text shapes, and a failed model or overflowing context ends one with its `reply` code."""


class RolloutConfig(BaseModel):
    """How rollouts run."""

    max_turns: int = Field(default=8, ge=1, description="Model requests per episode.")
    attempts: int = Field(
        default=4, ge=1, le=5,
        description="Rollouts of a task until one ends in a usable answer (`rollout_problem`, `stops_short`): the teacher as "
        "agent ended 13 of 21 rollouts of a run without one (a call it wrote as text, no call, an empty answer), and "
        "of the 15 usable rollouts of another, 8 came on the fourth attempt.",
    )  # fmt: skip
    tool_timeout_s: float = Field(default=30.0, gt=0, description="Client-side limit of one call to an env or live server.")
    temperature: float = 0.7
    max_tokens: int = Field(default=768, ge=16, description="Agent reply budget per turn.")
    emulator_max_tokens: int = Field(default=600, ge=16, description="Emulated tool response budget.")
    emulator: EmulatorConfig = Field(default_factory=EmulatorConfig)
    system_prompt: str = Field(
        default=(
            "You are a helpful assistant with tools. Call the tools to look up or do what the user asks, with the "
            "values the user gave and the values earlier results returned; never make up an id. When a call "
            "returns an error (a timeout, an unreachable service) or a result you cannot read, call the same tool "
            "again; if it fails again, tell the user what could not be done. Then give a short final answer that "
            "states the values the tools returned."
        ),
        description="The agent's instructions. The teacher, told only to 'retry or work around errors', answered "
        "right after an injected timeout in 7 of 18 judged rollouts.",
    )
    parallel_tool_calls: bool = Field(
        default=False,
        description="Run every call of an agent reply; off, the first runs and the others are dropped from the row "
        "(`agent_sdk.Agent.parallel_tool_calls`). Off by default: the teacher as agent wrote whole chains in one reply, "
        "the later calls' ids made up (`get_refill_status(refill_id='12345')` beside the refill that returns one).",
    )
    plan_hint: bool = Field(
        default=True,
        description="Tell the agent, during the rollout only, which tools the task was written for (`plan_hint`); the "
        "stored conversation opens with `system_prompt` alone, so the row teaches planning without the hint. With one "
        "call per reply it makes the chain run in order: on the same 65 tasks a teacher run exported 7 rows with it "
        "(4 attempts) and 4 without (2 attempts), where the agent called every tool of its task in 0 of 38 usable "
        "rollouts. Calling whole chains at once with made-up ids is what `parallel_tool_calls` prevents.",
    )


def plan_hint(task: SynthTask) -> str:
    """The sentence added to the rollout's system prompt: the tools `task` was generated from, in chain order."""
    tools = task.chain or task.target_tools
    if not tools:
        return ""
    order = " in this order" if task.chain and len(tools) > 1 else ""
    return (
        f" This request is answered with these tools{order}: {', '.join(tools)}. Call each with values the user "
        "gave or an earlier result returned."
    )


class TrajectoryRecord(BaseModel):
    """One rollout, as stored in `rollouts.jsonl`."""

    id: str
    task_id: str
    server_id: str
    backend: str = Field(description="env | live | emulator")
    trajectory: Trajectory
    error_call_ids: list[str] = Field(default_factory=list, description="Tool calls whose result was an error.")
    attempt: int = Field(default=1, ge=1, description="Which rollout of the task this is (`RolloutConfig.attempts`).")

    @property
    def calls(self) -> int:
        """Number of tool calls."""
        return len(self.trajectory.tool_calls)

    def openai_messages(self) -> list[dict[str, Any]]:
        """The conversation in OpenAI chat format."""
        return [m.to_openai() for m in self.trajectory.messages]


class RolloutServers:
    """The MCP servers rollouts connect to, one per `ServerDoc`; an async context manager.

    Args:
        servers: the servers rollouts will need.
        emulator_model: the model answering doc-only tools.
        config: rollout configuration (the emulator's included).
        sandbox: an open sandbox to reuse (else one is opened when an env source is present).
    """

    def __init__(self, servers: list[ServerDoc], emulator_model: Any, config: RolloutConfig, *, sandbox: Sandbox | None = None) -> None:
        self._servers = {s.id: s for s in servers}
        self._model = emulator_model
        self._config = config
        self._sandbox = sandbox
        self._targets: dict[str, tuple[Target, str]] = {}
        self.emulators: dict[str, ToolEmulator] = {}
        self._stack = AsyncExitStack()

    async def __aenter__(self) -> RolloutServers:
        needs_sandbox = any(s.source.kind == "env" for s in self._servers.values())
        if needs_sandbox and self._sandbox is None:
            self._sandbox = await self._stack.enter_async_context(SandboxConfig.from_env().build())
        for server in self._servers.values():
            self._targets[server.id] = self._build(server)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stack.aclose()

    def _build(self, server: ServerDoc) -> tuple[Target, str]:
        if server.source.kind == "env":
            envs = [load_env(d) for d in (server.source.envs or [server.source.ref])]
            binding = Binding(envs[0], tuple((env, tool) for env in envs[1:] for tool in env.spec.tools))
            assert self._sandbox is not None
            return EnvServer(self._sandbox, lambda _ctx: binding, name=envs[0].spec.id).server, "env"
        if server.source.runnable:
            return mcp_target(server.source), "live"
        emulator = ToolEmulator(
            [
                EmulatedTool(name=t.name, description=t.description, input_schema=t.parameters, output_schema=t.output_schema)
                for t in server.tools
            ],
            self._model,
            name=server.name,
            description=server.description,
            config=self._config.emulator,
            message_factory=ChatMessage,
            settings=SamplingSettings(temperature=0.3, max_tokens=self._config.emulator_max_tokens),
        )
        self.emulators[server.id] = emulator
        return emulator.server, "emulator"

    def target(self, server_id: str) -> tuple[Target, str]:
        """What to connect to for `server_id`, and the backend kind (env | live | emulator)."""
        return self._targets[server_id]


def call_limit_s(backend: str, config: RolloutConfig) -> float:
    """How long the agent waits for one tool call on `backend`.

    An emulated call is a model request, which on a small CPU teacher under load takes longer
    than a real tool: cutting it at `tool_timeout_s` made 8 of 19 calls of a teacher run fail as
    timeouts nobody injected. The emulator bounds its own requests and answers an error when
    they run out, so the client waits that long (plus the margin of a real call).
    """
    if backend == "emulator":
        return config.emulator.answer_limit_s + config.tool_timeout_s
    return config.tool_timeout_s


_EMPTY_TAGS = re.compile(r"<(tools|tool_call)>\s*</\1>")


def without_empty_tags(message: ChatMessage) -> ChatMessage:
    """`message` without empty `<tools></tools>` pairs: the tag Qwen's chat template wraps the tool list in, which
    the teacher as agent wrote, empty, beside its calls (16 of the first 58 tasks a run rejected ended on a `<tools>`
    tag there, most an empty pair). The pair says nothing, and a row that kept it would teach the student to write it."""
    text = message.content or ""
    cleaned = _EMPTY_TAGS.sub("", text).strip()
    return message if cleaned == text else message.model_copy(update={"content": cleaned})


def stops_short(trajectory: Trajectory, task: SynthTask) -> tuple[str, str] | None:
    """Why the rollout stopped before the task was done, else None: `asks_user_midway` when the last message
    asks the user for something while tools the task was written for were never called; `task_tools_uncalled`
    when it answers without calling them and no call had failed, or every failed call used an id the agent made up
    (after a failure it did not cause, telling the user what could not be done is the answer; 14 of 23 usable
    rollouts of a run began with a made-up id, which the emulator answered "not found"); `answer_states_no_result`
    when every call succeeded and the answer states nothing they returned (`states_a_result`).

    Tasks state the values their chain needs from the user (`chain_inputs`), so what is left to ask for
    is what a tool would have returned: e.g. a row that found one station, then asked the user for "the
    station codes" `find_station` gives, which the judge passed at 0.91. Run one call per reply, the teacher
    left a tool of its task uncalled in 38 of 38 usable rollouts of a run ("the maximum
    daily dose is not specified" without calling `get_medicine_info`), and its judge passed such at 0.88.
    """
    m = ASKS_USER.search(trajectory.final_answer or "")
    uncalled = [t for t in task.target_tools if t not in {r.call.name for r in trajectory.tool_calls}]
    if m and uncalled:
        return "asks_user_midway", f"the last message asks the user ({m.group(0)!r}) before calling {uncalled}"
    failed = {step for step, r in enumerate(trajectory.tool_calls, 1) if not r.result.ok}
    if uncalled and failed and failed <= set(invented_steps([m.to_openai() for m in trajectory.messages])):
        return "task_tools_uncalled", f"the agent answered without calling {uncalled}; its calls failed only on ids it made up (steps {sorted(failed)})"
    if uncalled and not failed:
        return "task_tools_uncalled", f"the agent answered without calling {uncalled}, which the task was written for"
    if not failed and not states_a_result(trajectory.final_answer, [r.result.text for r in trajectory.tool_calls]):
        return "answer_states_no_result", f"every call succeeded and the answer states nothing they returned: {(trajectory.final_answer or '')[:160]!r}"
    return None


def rollout_problem(trajectory: Trajectory, tool_names: Sequence[str]) -> tuple[str, str] | None:
    """(reason code, detail) when a rollout is no usable conversation, else None: the model failed or the
    context overflowed, no tool was called, the turns ran out, the text beside a call is debris
    (`call_text_problem`), or `final_answer_problem`."""
    t = trajectory
    if t.stop_reason == "model_error" and (t.error or "").startswith("ContextOverflowError"):
        return "context_overflow", t.error or ""  # the conversation outgrew the context: terminal
    if t.stop_reason == "model_error":
        return "model_error", t.error or ""
    if not t.tool_calls:
        return "no_tool_calls", (t.final_answer or "")[:300]
    if t.stop_reason != "final_answer":
        return "no_final_answer", f"stopped by {t.stop_reason} after {len(t.tool_calls)} calls"
    for step in t.steps:
        if step.calls and (problem := call_text_problem(t.messages[step.message_index].content)):
            return problem[0], f"turn {step.turn}: {problem[1]}"
    return final_answer_problem(t.final_answer, tool_names, finish_reason=t.steps[-1].finish_reason)


async def usable_rollout(
    model: Any, servers: RolloutServers, task: SynthTask, config: RolloutConfig, tool_names: Sequence[str]
) -> tuple[TrajectoryRecord, tuple[str, str] | None]:
    """Play `task` up to `config.attempts` times until a rollout has no `rollout_problem` and does not `stops_short`.

    Returns:
        The usable rollout and None, or the last one and its problem. A failed model or an
        overflowing context ends the attempts: another sample would fail the same way.

    Raises:
        agent_sdk.exceptions.ToolboxError: when the server cannot be reached.
    """
    for attempt in range(1, config.attempts + 1):
        # each attempt samples a little hotter: the same settings would replay the cached reply
        hotter = config.model_copy(update={"temperature": config.temperature + 0.1 * (attempt - 1)})
        record = (await rollout(model, servers, task, hotter)).model_copy(update={"attempt": attempt})
        problem = rollout_problem(record.trajectory, tool_names) or stops_short(record.trajectory, task)
        if problem is None or problem[0] in ("context_overflow", "model_error"):
            break
    return record, problem


async def rollout(model: Any, servers: RolloutServers, task: SynthTask, config: RolloutConfig) -> TrajectoryRecord:
    """Play `task` once with a fresh MCP session.

    Raises:
        agent_sdk.exceptions.ToolboxError: when the server cannot be reached.
    """
    target, backend = servers.target(task.server_id)
    settings = SamplingSettings(temperature=config.temperature, max_tokens=config.max_tokens)
    hint = plan_hint(task) if config.plan_hint else ""
    async with Toolbox(target, timeout_s=call_limit_s(backend, config)) as toolbox:
        agent = Agent(
            model, toolbox, system_prompt=config.system_prompt + hint, max_turns=config.max_turns, settings=settings,
            parallel_tool_calls=config.parallel_tool_calls,
        )  # fmt: skip
        trajectory = await agent.run(task.question, metadata={"task_id": task.id, "server_id": task.server_id})
    messages = [without_empty_tags(m) if m.role == "assistant" and m.tool_calls else m for m in trajectory.messages]
    if hint:
        # the row a student learns from carries no hint: it must plan the calls from the request alone
        messages[0] = messages[0].model_copy(update={"content": config.system_prompt})
    trajectory = trajectory.model_copy(update={"messages": messages})
    errors = [r.call.id for r in trajectory.tool_calls if not r.result.ok]
    return TrajectoryRecord(
        id=f"traj-{task.id.removeprefix('task-')}",
        task_id=task.id,
        server_id=task.server_id,
        backend=backend,
        trajectory=trajectory,
        error_call_ids=errors,
    )
