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
from mcp_servers import Binding, EmulatedTool, EmulatorConfig, EnvServer, Sandbox, SandboxConfig, ToolEmulator, load_env
from synth.sft._docs import ServerDoc
from synth.sft._ingest import mcp_target
from synth.sft._tasks import SynthTask

Target = str | StdioServerParameters | Server


class RolloutConfig(BaseModel):
    """How rollouts run."""

    max_turns: int = Field(default=8, ge=1, description="Model requests per episode.")
    attempts: int = Field(
        default=2, ge=1, le=5,
        description="Rollouts of a task until one ends in a usable answer (`rollout_problem`): the teacher as agent ended "
        "13 of 21 rollouts of a session-15 run without one (a call it wrote as text, no call, an empty answer).",
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
        "right after an injected timeout in 7 of 18 judged rollouts of a session-14 run.",
    )
    plan_hint: bool = Field(
        default=False,
        description="Tell the agent, during the rollout only, which tools the task was written for (`plan_hint`); the "
        "stored conversation opens with `system_prompt` alone, so the row teaches planning without the hint. Off by "
        "default: with it the teacher as agent still fell below the judge's planning bar in 42 of 49 judged rollouts "
        "(47 of 53 without, session 15), and it called the whole chain at once with made-up ids.",
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


_MARKUP = re.compile(r"```\w*|<[^<>]{0,40}>")
_INSTRUCTS = re.compile(
    r"\b(?:you|we) (?:can|could|should|need to|may) (?:use|call|run|invoke)\b[^.]{0,60}\b(?:function|tool|command|endpoint)s?\b"
    r"|\bthe following (?:JSON|arguments|parameters)\b|```json",
    re.IGNORECASE,
)
_NARRATES = re.compile(
    r"\bthe result (?:of|from) (?:calling )?(?:the )?`?\w+`? (?:function|tool)|\bthe result of calling\b|\b(?:used|called|calling|using) the\s+`?\w+`?\s+(?:function|tool)\b|\bthe (?:function|tool) (?:returns|returned)\b",
    re.IGNORECASE,
)
_NEXT_STEP = re.compile(
    r"^\W*(?:ok(?:ay)?|sure|好的|好)?\W*(?:接下来|下一步|然后我们|next,? (?:I|we)(?:'ll| will)|now,? (?:I|we)(?:'ll| will)|let me (?:now )?(?:check|look|search|find|query|get|try))",
    re.IGNORECASE,
)
_ASKS_USER = re.compile(
    r"\b(?:please|kindly|could you|can you|would you)\b[^.?!\n]{0,40}?\b(?:provide|give|tell|share|specify|send|let me know)\b"
    r"|请(?:您)?(?:提供|告诉|告知|确认|输入)",
    re.IGNORECASE,
)
_LABEL_ONLY = re.compile(r"^[\W_]*[^\W\d_][\w ]{0,20}:[\W_]*$")
"""A heading with nothing under it: a session-16 teacher row ended on "**Result:**" and was judged 0.92."""
_TAG_DEBRIS = re.compile(r"</?(?:final_answer|response|answer|result)>", re.IGNORECASE)
"""Tags of a template the model wrote around its answer ("<final_answer> ... </final_answer> </response>")."""
_ECHOES_ERROR = re.compile(r"^\W*error\b", re.IGNORECASE)
_CALL_AS_TEXT = re.compile(r'"name"\s*:\s*"[^"]+"\s*,\s*"arguments"|</?tool_(?:call|response)>|</?tools>')
"""A call written as text, or its tags: a session-16 teacher agent left empty `<tools> </tools>` pairs around its answers."""


def final_answer_problem(answer: str | None, tool_names: Sequence[str], *, finish_reason: str | None = None) -> tuple[str, str] | None:
    """(reason code, detail) when the last message is no answer to the user, else None.

    The teacher as agent ended 10 of its first 23 accepted rollouts with a tool call written as text the
    parser could not read (`{{"name": "get_flight_details", ...`, `query_city("北京") <tool_response>`)
    or with nothing in words (empty, `<json>`, a bare code fence); the agent loop stops there
    as on a final answer, and the judge passed two such with 0.86 and 0.79. An answer that
    tells the user which function to call, with what JSON, answers nothing either: the judge
    scored one 1.00 on a real environment. Nor does one that narrates the agent's own call ("This
    response is the result of calling the `get_transactions` function ..."): 2 of the 12 rows a
    session-11 teacher run exported did. Nor does one the token budget cut off (`finish_reason`
    "length"): a session-13 teacher run exported an answer that stopped mid-sentence. Nor does one that
    announces a next step and stops ("好的，接下来我们查询成都的天气预报。") or says it shows "the result from the
    `find_station` function call": 2 of the 7 rows a session-15 teacher run exported, judged 0.90 and 0.92.
    Nor, from the 8 a session-16 run exported (judged 0.70-0.92), does a bare heading ("**Result:**"), "Let me
    try again.", a tool error repeated as the answer ("Error: Error: request to ... timed out"), or a list of
    the calls made ("1. **search_city**: ...").
    """
    text = (answer or "").strip()
    if finish_reason == "length":
        return "answer_cut_off", f"the last assistant message ran out of tokens: ...{text[-160:]!r}"
    bare = _MARKUP.sub("", text)
    if len(re.findall(r"[^\W\d_]", bare)) < 2 or _LABEL_ONLY.match(bare):  # nothing, "<json>", "```", "**Result:**"
        return "empty_final_answer", f"the last assistant message says nothing: {text[:80]!r}"
    called = [n for n in tool_names if re.search(rf"\b{re.escape(n)}\s*\(", text)]
    if _CALL_AS_TEXT.search(text) or called:
        return "unparsed_tool_call", f"the last assistant message is a tool call written as text: {text[:200]!r}"
    if m := _TAG_DEBRIS.search(text):
        return "markup_debris", f"the last assistant message holds template tags no answer to a user holds: {m.group(0)!r}"
    if m := _INSTRUCTS.search(text):
        return "instructs_tool_use", f"the last assistant message tells the user how to call a tool instead of answering: {m.group(0)!r}"
    if m := _NARRATES.search(text):
        return "narrates_tool_call", f"the last assistant message tells the user about the agent's tool call instead of answering: {m.group(0)!r}"
    if m := _NEXT_STEP.search(text):
        return "announces_next_step", f"the last assistant message announces a step it never takes instead of answering: {m.group(0)!r}"
    if _ECHOES_ERROR.search(text):
        return "echoes_error", f"the last assistant message repeats a tool error instead of telling the user what could not be done: {text[:160]!r}"
    if listed := [n for n in tool_names if re.search(rf"(?:\*\*|`){re.escape(n)}(?:\*\*|`)|\b{re.escape(n)}\s*:", text)]:
        return "narrates_tool_call", f"the last assistant message lists the agent's calls ({listed}) instead of answering"
    return None


def stops_short(trajectory: Trajectory, task: SynthTask) -> tuple[str, str] | None:
    """`asks_user_midway` when the last message asks the user for something while tools the task was written
    for were never called, else None.

    Tasks state the values their chain needs from the user (`chain_inputs`), so what is left to ask for
    is what a tool would have returned: a session-15 teacher row found one station, then asked the user
    for "the station codes" `find_station` gives, and the judge passed it at 0.91.
    """
    m = _ASKS_USER.search(trajectory.final_answer or "")
    uncalled = [t for t in task.target_tools if t not in {r.call.name for r in trajectory.tool_calls}]
    if m and uncalled:
        return "asks_user_midway", f"the last message asks the user ({m.group(0)!r}) before calling {uncalled}"
    return None


def rollout_problem(trajectory: Trajectory, tool_names: Sequence[str]) -> tuple[str, str] | None:
    """(reason code, detail) when a rollout is no usable conversation, else None: the model failed or the
    context overflowed, no tool was called, the turns ran out, or `final_answer_problem`."""
    t = trajectory
    if t.stop_reason == "model_error" and (t.error or "").startswith("ContextOverflowError"):
        return "context_overflow", t.error or ""  # the conversation outgrew the context: terminal
    if t.stop_reason == "model_error":
        return "model_error", t.error or ""
    if not t.tool_calls:
        return "no_tool_calls", (t.final_answer or "")[:300]
    if t.stop_reason != "final_answer":
        return "no_final_answer", f"stopped by {t.stop_reason} after {len(t.tool_calls)} calls"
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
        agent = Agent(model, toolbox, system_prompt=config.system_prompt + hint, max_turns=config.max_turns, settings=settings)
        trajectory = await agent.run(task.question, metadata={"task_id": task.id, "server_id": task.server_id})
    if hint:
        # the row a student learns from carries no hint: it must plan the calls from the request alone
        first = trajectory.messages[0].model_copy(update={"content": config.system_prompt})
        trajectory = trajectory.model_copy(update={"messages": [first, *trajectory.messages[1:]]})
    errors = [r.call.id for r in trajectory.tool_calls if not r.result.ok]
    return TrajectoryRecord(
        id=f"traj-{task.id.removeprefix('task-')}",
        task_id=task.id,
        server_id=task.server_id,
        backend=backend,
        trajectory=trajectory,
        error_call_ids=errors,
    )
