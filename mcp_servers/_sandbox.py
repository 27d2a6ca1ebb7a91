"""The sandboxed runtime: pre-forked worker processes that run tool code for many sessions.

A `Sandbox` keeps a pool of isolated workers per memory limit (an address-space rlimit
cannot be raised again, so workers are grouped by it). A session is a fresh module
namespace inside one worker, opened lazily at its first call, so idle sessions cost only
their bookkeeping here. Calls are validated against the tool's compiled JSON Schema before
they reach a worker, and every failure — bad arguments, an exception, a timeout, a crash,
an oversized output — comes back as a `ToolOutcome` with `ok=False`.

A timeout or crash kills the worker with its process group; the next call on any session
of that worker starts a new one and replays the session's earlier calls. Replay is sound
because tool code is deterministic by contract (verify enforces it), so a hostile call in
one session never costs the state of another.
"""

from __future__ import annotations

import itertools
import json
import os
import uuid
from collections.abc import Sequence
from typing import Any, Literal, Self

import anyio
import jsonschema
from jsonschema.validators import validator_for
from pydantic import BaseModel, Field

from mcp_servers._channel import LocalLauncher, WorkerChannel, WorkerLauncher
from mcp_servers._isolation import Isolation, resolve_isolation
from mcp_servers._spec import Environment
from mcp_servers.exceptions import SandboxError

ErrorKind = Literal["invalid_arguments", "unknown_tool", "exception", "timeout", "crash", "memory", "oversized_output"]



class ToolOutcome(BaseModel):
    """The result of one tool call in the sandbox."""

    ok: bool
    text: str = Field(description="The output (str as is, JSON with sorted keys otherwise) or the error message.")
    structured: dict[str, Any] | None = Field(default=None, description="The result when the tool returned a dict.")
    error_kind: ErrorKind | None = None


_STARTUP_TIMEOUT_S = 60.0
"""Starting Python inside the sandbox takes ~50 ms idle, seconds on a saturated machine."""


class _WorkerDied(Exception):
    pass


class _Worker:
    """One sandboxed worker; restarted in place (a new generation) after it is killed."""

    def __init__(self, launcher: WorkerLauncher, name: str, memory_mb: int, max_output: int) -> None:
        self._launcher = launcher
        self._memory_mb = memory_mb
        self._max_output = max_output
        self.name = name
        self.generation = 0
        self.sessions = 0
        self.lock = anyio.Lock()
        self.pending_close: list[str] = []
        self._channel: WorkerChannel | None = None

    async def start(self) -> None:
        """Start the worker and wait for its ready line, so start-up never counts against a call."""
        channel = await self._launcher.launch(f"{self.name}-{self.generation}", self._memory_mb, self._max_output)
        try:
            with anyio.fail_after(_STARTUP_TIMEOUT_S):
                ready = json.loads(await channel.receive_line())
        except (TimeoutError, anyio.EndOfStream, anyio.IncompleteRead, json.JSONDecodeError) as exc:
            await channel.kill()
            raise SandboxError(f"the sandbox worker did not start within {_STARTUP_TIMEOUT_S:g} s: {exc!r}") from exc
        if ready != {"ready": True}:
            await channel.kill()
            raise SandboxError(f"the sandbox worker sent {ready!r} instead of its ready line")
        self._channel = channel
        self.pending_close = []
        self.generation += 1

    @property
    def alive(self) -> bool:
        return self._channel is not None and self._channel.alive

    async def request(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send one request and wait for its reply; the caller holds `lock`.

        Raises:
            TimeoutError: no reply within `timeout` (the worker is killed).
            _WorkerDied: the worker exited or broke the protocol (it is killed).
        """
        if not self.alive:
            await self.start()
        assert self._channel is not None
        if self.pending_close:
            message = {**message, "close": self.pending_close}
            self.pending_close = []
        try:
            with anyio.fail_after(timeout):
                await self._channel.send(json.dumps(message).encode() + b"\n")
                line = await self._channel.receive_line()
            return json.loads(line)
        except TimeoutError:
            await self.kill()
            raise
        except (anyio.EndOfStream, anyio.IncompleteRead, anyio.BrokenResourceError, anyio.ClosedResourceError,
                anyio.DelimiterNotFound, json.JSONDecodeError, OSError) as exc:
            await self.kill()
            raise _WorkerDied("the tool process exited") from exc

    async def kill(self) -> None:
        """Kill the worker and everything it started; the next request starts a new one."""
        channel, self._channel = self._channel, None
        if channel is not None:
            await channel.kill()


class _Pool:
    def __init__(self, workers: list[_Worker]) -> None:
        self.workers = workers

    def assign(self) -> _Worker:
        worker = min(self.workers, key=lambda w: w.sessions)
        worker.sessions += 1
        return worker


class Sandbox:
    """Runs environment tool code in isolated workers started by a `WorkerLauncher`.

    Use as an async context manager. `LocalSandbox` and `E2BSandbox` choose the launcher.

    Args:
        launcher: starts workers (local isolated processes, or e2b sandboxes).
        workers: worker processes per memory limit.
        max_output_bytes: larger tool outputs become `oversized_output` errors.
    """

    def __init__(self, launcher: WorkerLauncher, *, workers: int = 2, max_output_bytes: int = 1 << 20) -> None:
        self.launcher = launcher
        self.mechanism = launcher.name
        self._workers = max(1, workers)
        self._max_output = max_output_bytes
        self._pools: dict[int, _Pool] = {}
        self._pool_lock = anyio.Lock()
        self._tag = f"astra-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self._names = itertools.count()
        self._validators: dict[tuple[str, str], jsonschema.protocols.Validator] = {}

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Kill every worker."""
        with anyio.CancelScope(shield=True):
            for pool in self._pools.values():
                for worker in pool.workers:
                    await worker.kill()
        self._pools.clear()

    async def prestart(self, memory_mb: int) -> None:
        """Start the worker pool for `memory_mb` now rather than at the first call."""
        pool = await self._pool(memory_mb)
        async with anyio.create_task_group() as tg:
            for worker in pool.workers:
                if not worker.alive:
                    tg.start_soon(worker.start)

    async def _pool(self, memory_mb: int) -> _Pool:
        async with self._pool_lock:
            pool = self._pools.get(memory_mb)
            if pool is None:
                pool = _Pool(
                    [
                        _Worker(self.launcher, f"{self._tag}-{next(self._names)}", memory_mb, self._max_output)
                        for _ in range(self._workers)
                    ]
                )
                self._pools[memory_mb] = pool
            return pool

    def validator(self, env: Environment, tool: str) -> jsonschema.protocols.Validator | None:
        """The compiled argument validator of `tool` in `env` (None if no such tool)."""
        key = (env.spec.id, tool)
        if key not in self._validators:
            spec = env.spec.tool(tool)
            if spec is None:
                return None
            self._validators[key] = validator_for(spec.input_schema)(spec.input_schema)
        return self._validators[key]

    async def open_session(self, env: Environment, extra: Sequence[tuple[Environment, str]] = ()) -> SandboxSession:
        """A fresh, isolated instance of `env`.

        Args:
            env: the environment.
            extra: additional callable tools `(source_env, tool_name)` served in the same
                session (distractors); each source module gets its own namespace.
        """
        envs = [env, *(e for e, _ in extra)]
        memory = max(e.spec.limits.memory_mb for e in envs)
        worker = (await self._pool(memory)).assign()
        return SandboxSession(self, worker, env, extra)


class LocalSandbox(Sandbox):
    """A `Sandbox` of local worker processes.

    `isolation="auto"` picks bubblewrap, then user namespaces; when neither works it raises
    `SandboxUnavailable` unless `unsafe=True`.

    Args:
        isolation: "auto", "bwrap", "unshare" or "none" (the last needs `unsafe=True`).
        workers: worker processes per memory limit.
        unsafe: allow running without isolation.
        max_output_bytes: larger tool outputs become `oversized_output` errors.
    """

    def __init__(
        self, isolation: Isolation = "auto", *, workers: int = 2, unsafe: bool = False, max_output_bytes: int = 1 << 20
    ) -> None:
        super().__init__(LocalLauncher(resolve_isolation(isolation, unsafe=unsafe)), workers=workers, max_output_bytes=max_output_bytes)


class SandboxSession:
    """One isolated instance of an environment (one MCP session, one rollout)."""

    def __init__(self, sandbox: Sandbox, worker: _Worker, env: Environment, extra: Sequence[tuple[Environment, str]]) -> None:
        self._sandbox = sandbox
        self._worker = worker
        self.env = env
        self._routes: dict[str, Environment] = {t.name: env for t in env.spec.tools}
        for source, name in extra:
            self._routes.setdefault(name, source)
        self._sids: dict[str, str] = {}
        self._generation: int | None = None
        self._log: list[tuple[str, dict[str, Any]]] = []
        self._closed = False

    @property
    def tool_names(self) -> list[str]:
        """Every tool callable in this session (the environment's, then the extras)."""
        return list(self._routes)

    def _timeout(self, source: Environment) -> float:
        return source.spec.limits.call_timeout_s

    async def call(self, tool: str, arguments: dict[str, Any] | None) -> ToolOutcome:
        """Call `tool` with `arguments`; never raises for tool-level failures."""
        if self._closed:
            return ToolOutcome(ok=False, text="session is closed", error_kind="crash")
        source = self._routes.get(tool)
        if source is None:
            known = ", ".join(sorted(self._routes))
            return ToolOutcome(ok=False, text=f"unknown tool {tool!r}; available tools: {known}", error_kind="unknown_tool")
        arguments = arguments if arguments is not None else {}
        validator = self._sandbox.validator(source, tool)
        assert validator is not None
        error = jsonschema.exceptions.best_match(validator.iter_errors(arguments))
        if error is not None:
            where = "/".join(str(p) for p in error.absolute_path)
            return ToolOutcome(
                ok=False, text=f"invalid arguments for {tool}{' at ' + where if where else ''}: {error.message}",
                error_kind="invalid_arguments",
            )
        async with self._worker.lock:
            try:
                message: dict[str, Any] = {"op": "call", "tool": tool, "args": arguments}
                message["open"] = await self._prepare()
                message["sid"] = self._sids[source.spec.id]
                reply = await self._worker.request(message, self._timeout(source))
                self._generation = self._worker.generation
            except TimeoutError:
                return ToolOutcome(
                    ok=False, text=f"{tool} timed out after {self._timeout(source):g} s and was stopped", error_kind="timeout"
                )
            except _WorkerDied as exc:
                return ToolOutcome(ok=False, text=f"{tool} crashed the tool process ({exc}); the session was restored", error_kind="crash")
            except SandboxError as exc:
                return ToolOutcome(ok=False, text=f"{tool} could not run: {exc}", error_kind="crash")
        if reply.get("ok") or reply.get("error_kind") == "exception":
            self._log.append((tool, arguments))
        if reply.get("ok"):
            return ToolOutcome(ok=True, text=reply["value"], structured=reply.get("structured"))
        return ToolOutcome(ok=False, text=reply.get("message", "tool failed"), error_kind=reply.get("error_kind", "crash"))

    def _open_requests(self) -> list[dict[str, Any]]:
        envs = {e.spec.id: e for e in self._routes.values()}.values()
        return [
            {"sid": self._sids.setdefault(env.spec.id, uuid.uuid4().hex), "code": env.code, "filename": env.spec.entry}
            for env in envs
        ]

    async def _prepare(self) -> list[dict[str, Any]]:
        """Make the worker ready for this session's next call.

        Returns the namespaces to open along with the call (the first time on a worker);
        after a restart it reopens them and replays the session's calls itself.
        """
        worker = self._worker
        if not worker.alive:
            await worker.start()
        if self._generation == worker.generation:
            return []
        if self._generation is None:
            return self._open_requests()
        for request in self._open_requests():
            await worker.request({"op": "open", **request}, 30)
        for tool, args in self._log:
            env = self._routes[tool]
            await worker.request({"op": "call", "sid": self._sids[env.spec.id], "tool": tool, "args": args}, self._timeout(env))
        self._generation = worker.generation
        return []

    def release(self) -> None:
        """Release the session; safe to call from a finalizer (no I/O happens here).

        Its namespaces are dropped by the worker along with the worker's next request.
        """
        if self._closed:
            return
        self._closed = True
        self._worker.sessions -= 1
        if self._generation == self._worker.generation:
            self._worker.pending_close.extend(self._sids.values())

    async def aclose(self) -> None:
        """Release the session's namespaces in its worker."""
        self.release()

    async def __aenter__(self) -> SandboxSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
