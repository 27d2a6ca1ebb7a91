"""An MCP server for tools that exist only as documentation, answered by an LLM.

SFT synthesis needs to roll out agents against tool servers that cannot be run (a doc-only
server, a scraped schema). `ToolEmulator` serves such tools over MCP: every call is checked
against the tool's input schema, then answered by a language model that sees the tool's
documentation and the earlier calls of the same MCP session, so ids and values stay
consistent within a session and never leak across sessions. A seeded fraction of calls
(default 20%) fails on purpose — a timeout, an unreachable upstream or a malformed body — so
trajectories learn to recover from real-world failures.

The model is any object with an async `complete(messages, tools=None, *, settings=None)`
method (agent_sdk's `ChatModel` protocol). `mcp_servers` does not import `agent_sdk`, so the
caller passes the message class its model expects (`message_factory`); the default is a
local record with the same fields and `to_openai()`.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import weakref
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, Literal, Protocol

import anyio
import jsonschema
import mcp_types as types
from jsonschema.validators import validator_for
from mcp.server import Server
from pydantic import BaseModel, ConfigDict, Field

FailureKind = Literal["timeout", "unreachable", "malformed"]

_META_KEY = "astra/emulator"


class CompletionModel(Protocol):
    """The part of agent_sdk's `ChatModel` the emulator needs."""

    async def complete(
        self,
        messages: Sequence[Any],
        tools: Sequence[dict[str, Any]] | None = None,
        *,
        settings: Any = None,
    ) -> Any:
        """Return a response whose `.message.content` is the assistant's text."""
        ...


class EmulatedTool(BaseModel):
    """A documented tool the emulator answers."""

    model_config = ConfigDict(frozen=True)

    name: str = Field(description="Tool name as exposed over MCP.")
    description: str = Field(description="What the tool does; the model's only source of truth.")
    input_schema: dict[str, Any] = Field(description="JSON Schema of the arguments (type: object).")
    output_schema: dict[str, Any] | None = Field(default=None, description="JSON Schema of a dict result, if documented.")


class EmulatorConfig(BaseModel):
    """How the emulator behaves."""

    model_config = ConfigDict(frozen=True)

    failure_rate: float = Field(default=0.2, ge=0.0, le=1.0, description="Fraction of valid calls that fail on purpose.")
    seed: int = Field(default=0, description="Seed of the failure draws; same seed + same session calls = same failures.")
    failure_kinds: tuple[FailureKind, ...] = Field(default=("timeout", "unreachable", "malformed"), min_length=1)
    llm_timeout_s: float = Field(default=120.0, gt=0, description="Wall-clock limit of one model request.")
    attempts: int = Field(default=2, ge=1, le=5, description="Model requests per call before giving up (invalid output is retried).")
    history_limit: int = Field(default=12, ge=0, description="Earlier calls of the session shown to the model.")
    max_output_chars: int = Field(default=4000, ge=200, description="Longer model outputs are cut (and then usually invalid).")

    @property
    def answer_limit_s(self) -> float:
        """The longest one emulated call can take before the emulator answers it with an error itself."""
        return self.attempts * self.llm_timeout_s


class EmulatorStats(BaseModel):
    """Counters over the emulator's lifetime, for logging and tests."""

    calls: int = 0
    invalid_arguments: int = 0
    injected: dict[str, int] = Field(default_factory=dict)
    model_failures: int = Field(default=0, description="Calls the model could not answer validly (served as 500 errors).")
    last_model_failure: str | None = None
    answered: int = 0


class EmulatorMessage(BaseModel):
    """Default chat message passed to the model (mirrors agent_sdk's `ChatMessage`)."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str | None = None
    tool_calls: list[Any] = Field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None

    def to_openai(self) -> dict[str, Any]:
        """The message as an OpenAI chat dict."""
        return {"role": self.role, "content": self.content or ""}


class _Exchange(BaseModel):
    tool: str
    arguments: dict[str, Any]
    output: str


class _SessionState:
    def __init__(self) -> None:
        self.history: list[_Exchange] = []
        self.calls = 0


_SYSTEM = """You emulate the backend of the tool server "{server}". {description}
Answer each tool call with the response the real service would return: realistic, specific values (ids, names, numbers, dates), consistent with every earlier response in this session (reuse the ids and values you already returned).
Reply with ONLY the tool's raw response as one JSON value (an object or a list). No prose, no markdown, no code fences.
If the arguments refer to something that does not exist, reply with {{"error": "<what went wrong>"}}."""


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _strip_fences(text: str) -> str:
    match = re.search(r"```(?:json)?\s*(.*?)```", text, re.DOTALL)
    return (match.group(1) if match else text).strip()


class ToolEmulator:
    """Serves documented tools over MCP, answering calls with an LLM and injecting failures.

    Each MCP session (one client connection; use `mode="legacy"` for in-process clients)
    has its own call history, so sessions are independent rollouts.

    Args:
        tools: the tools to serve.
        model: an object with an async `complete(messages, tools=None, *, settings=None)`.
        name: the server name reported to clients and shown to the model.
        description: what the server is about, shown to the model.
        config: failure rate, seed, timeouts.
        message_factory: builds the message objects `model.complete` accepts
            (`role=`, `content=` keywords); pass agent_sdk's `ChatMessage` for its models.
        settings: sampling settings passed through to `model.complete`.

    Raises:
        ValueError: when two tools share a name or an input schema is not a valid schema.
    """

    def __init__(
        self,
        tools: Sequence[EmulatedTool],
        model: CompletionModel,
        *,
        name: str = "emulator",
        description: str = "",
        config: EmulatorConfig | None = None,
        message_factory: Callable[..., Any] = EmulatorMessage,
        settings: Any = None,
    ) -> None:
        names = [t.name for t in tools]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"duplicate tool names: {', '.join(dupes)}")
        self._tools = {t.name: t for t in tools}
        self._validators = {}
        for tool in tools:
            try:
                validator_for(tool.input_schema).check_schema(tool.input_schema)
            except jsonschema.SchemaError as exc:
                raise ValueError(f"tool {tool.name}: input_schema is not a valid JSON Schema: {exc.message}") from exc
            self._validators[tool.name] = validator_for(tool.input_schema)(tool.input_schema)
        self._model = model
        self._name = name
        self._description = description
        self.config = config or EmulatorConfig()
        self._message = message_factory
        self._settings = settings
        self._sessions: weakref.WeakKeyDictionary[Any, _SessionState] = weakref.WeakKeyDictionary()
        self.stats = EmulatorStats()
        self._injected: Counter[str] = Counter()
        self.server: Server[Any] = Server(
            name,
            description=description or None,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
        )
        """The low-level MCP server; serve it over stdio/HTTP or connect `mcp.Client(server)`."""

    async def _list_tools(self, ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        # Output schemas guide the model but are not advertised: MCP clients reject a
        # non-error result without matching structured content, and an injected malformed
        # body must reach the agent as what it is, a garbled success.
        return types.ListToolsResult(
            tools=[types.Tool(name=t.name, description=t.description, input_schema=t.input_schema) for t in self._tools.values()]
        )

    def _session(self, ctx: Any) -> _SessionState:
        # mcp 2.x builds a new ServerSession per request; the Connection behind it is what
        # lives as long as the client's MCP session, so history is keyed by it.
        key = getattr(ctx.session, "_connection", None) or ctx.session
        state = self._sessions.get(key)
        if state is None:
            state = self._sessions[key] = _SessionState()
        return state

    async def _call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        self.stats.calls += 1
        tool = self._tools.get(params.name)
        if tool is None:
            return _error(f"Unknown tool {params.name!r}. Available tools: {', '.join(sorted(self._tools))}.")
        arguments = dict(params.arguments or {})
        problem = jsonschema.exceptions.best_match(self._validators[tool.name].iter_errors(arguments))
        if problem is not None:
            self.stats.invalid_arguments += 1
            where = "/".join(str(p) for p in problem.absolute_path)
            return _error(f"Invalid arguments for {tool.name}{' at ' + where if where else ''}: {problem.message}")
        state = self._session(ctx)
        index = state.calls
        state.calls += 1
        kind = self.draw_failure(index, tool.name, arguments)
        if kind is not None:
            self._injected[kind] += 1
            self.stats.injected = dict(self._injected)
            # Not kept in the history the model sees: the failure happened on the way, the backend
            # never saw the call. Shown, the teacher answered every later call "unreachable" too.
            return _injected_failure(kind, self._name, tool.name, random.Random(self._digest(index, tool.name, arguments, "body")))
        result = await self._answer(tool, arguments, state)
        state.history.append(_Exchange(tool=tool.name, arguments=arguments, output=_text(result)))
        return result

    def _digest(self, index: int, tool: str, arguments: dict[str, Any], salt: str) -> int:
        material = _canonical([self.config.seed, index, tool, arguments, salt])
        return int.from_bytes(hashlib.sha256(material.encode()).digest()[:8], "big")

    def draw_failure(self, index: int, tool: str, arguments: dict[str, Any]) -> FailureKind | None:
        """The failure injected into the `index`-th call of a session, or None.

        A pure function of (seed, index, tool, arguments): the same conversation fails the
        same way however many sessions run concurrently.
        """
        draw = self._digest(index, tool, arguments, "fail") / 2**64
        if draw >= self.config.failure_rate:
            return None
        kinds = self.config.failure_kinds
        return kinds[self._digest(index, tool, arguments, "kind") % len(kinds)]

    def _prompt(self, tool: EmulatedTool, arguments: dict[str, Any], state: _SessionState) -> list[Any]:
        system = _SYSTEM.format(server=self._name, description=self._description)
        doc = {"name": tool.name, "description": tool.description, "input_schema": tool.input_schema}
        if tool.output_schema is not None:
            doc["output_schema"] = tool.output_schema
        lines = [f"Tool documentation:\n{json.dumps(doc, ensure_ascii=False)}"]
        shown = state.history[-self.config.history_limit :] if self.config.history_limit else []
        if shown:
            lines.append("Earlier calls in this session and your responses:")
            lines += [f"- {ex.tool}({_canonical(ex.arguments)}) -> {ex.output[:600]}" for ex in shown]
        lines.append(f"Now respond to: {tool.name}({_canonical(arguments)})")
        return [self._message(role="system", content=system), self._message(role="user", content="\n".join(lines))]

    async def _answer(self, tool: EmulatedTool, arguments: dict[str, Any], state: _SessionState) -> types.CallToolResult:
        messages = self._prompt(tool, arguments, state)
        problem = "no attempt made"
        for _ in range(self.config.attempts):
            try:
                with anyio.fail_after(self.config.llm_timeout_s):
                    response = await self._model.complete(messages, None, settings=self._settings)
                text = (getattr(response.message, "content", None) or "")[: self.config.max_output_chars]
            except TimeoutError:
                problem = f"model request timed out after {self.config.llm_timeout_s}s"
                continue
            except Exception as exc:  # noqa: BLE001 - any backend failure becomes a tool error, never a dead server
                problem = f"model request failed: {type(exc).__name__}: {exc}"
                continue
            value, problem = self._parse(tool, text)
            if problem is None:
                self.stats.answered += 1
                return _result(value)
            messages = [
                *messages,
                self._message(role="assistant", content=text),
                self._message(role="user", content=f"That response is invalid: {problem}. Reply with the corrected JSON only."),
            ]
        self.stats.model_failures += 1
        self.stats.last_model_failure = problem
        # The agent sees what a real client would: an internal server error, not the emulator's insides.
        return _error(f"Error: the {self._name} service returned an internal error (500). Try again later.")

    def _parse(self, tool: EmulatedTool, text: str) -> tuple[Any, str | None]:
        body = _strip_fences(text)
        if not body:
            return None, "empty response"
        try:
            value = json.loads(body)
        except json.JSONDecodeError as exc:
            return None, f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        if not isinstance(value, dict | list):
            return None, f"expected a JSON object or list, got {type(value).__name__}"
        if isinstance(value, dict) and set(value) == {"error"}:
            return value, None
        if placeholder := _PLACEHOLDER_VALUE.search(body):
            return None, f"{placeholder.group(0)} is a placeholder: write a concrete, plausible value"
        if tool.output_schema is not None and isinstance(value, dict):
            problem = jsonschema.exceptions.best_match(validator_for(tool.output_schema)(tool.output_schema).iter_errors(value))
            if problem is not None:
                return None, f"does not match the output schema: {problem.message}"
        return value, None


_PLACEHOLDER_VALUE = re.compile(r'"(?:some_\w+_here|<[^<>"]{1,40}>|YYYY-MM-DD(?:[ T]HH:MM(?::SS)?)?|[A-Z][a-z]+ID\d*|\.\.\.)"')
"""A JSON string that stands for a value instead of being one ("some_seat_here", "<id>", "YYYY-MM-DD",
"ReservationID123"): the teacher answered 'book_flight' with `{"booking_id": "some_booking_id_here"}`."""


def _text(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


def _error(message: str, kind: str | None = None) -> types.CallToolResult:
    meta = {_META_KEY: {"injected": kind}} if kind else None
    return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True, _meta=meta)


def _result(value: Any) -> types.CallToolResult:
    is_error = isinstance(value, dict) and set(value) == {"error"}
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(value, sort_keys=True, ensure_ascii=False))],
        structured_content=value if isinstance(value, dict) else None,
        is_error=is_error,
    )


_MALFORMED = (
    '{"status": "ok", "data": [{"id": ',
    "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>",
    '{"result": null, "result": {"items": [}',
    "\ufffd\ufffd\x1f\x8b binary payload (content-type: application/octet-stream) truncated",
)


def _injected_failure(kind: FailureKind, server: str, tool: str, rng: random.Random) -> types.CallToolResult:
    meta = {_META_KEY: {"injected": kind}}
    if kind == "timeout":
        seconds = rng.choice((10, 15, 30, 60))
        return _error(f"Error: request to {server}.{tool} timed out after {seconds}s (upstream did not respond).", kind)
    if kind == "unreachable":
        code = rng.choice(("503 Service Unavailable", "connection refused", "name resolution failed"))
        return _error(f"Error: the {server} service is unreachable ({code}). Try again later.", kind)
    body = rng.choice(_MALFORMED)
    return types.CallToolResult(content=[types.TextContent(type="text", text=body)], is_error=False, _meta=meta)


def injected_failure_kind(result: types.CallToolResult) -> str | None:
    """The kind of failure the emulator injected into `result`, or None (read from `_meta`)."""
    meta = result.meta or {}
    entry = meta.get(_META_KEY) if isinstance(meta, dict) else None
    return entry.get("injected") if isinstance(entry, dict) else None
