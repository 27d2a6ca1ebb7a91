"""Byte channels to a sandbox worker: the one seam between the runtime and where code runs.

`LocalLauncher` starts the worker as a local process under the chosen isolation;
`E2BLauncher` (in `_e2b.py`) starts the same worker inside an e2b sandbox.
"""

from __future__ import annotations

import os
import signal
from importlib import resources
from typing import Protocol

import anyio
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream

from mcp_servers._isolation import remove_cgroup, worker_command
from mcp_servers.exceptions import SandboxError

WORKER_SOURCE = resources.files("mcp_servers").joinpath("_worker.py").read_text(encoding="utf-8")
"""The worker program, passed to the interpreter with `-c` so nothing needs mounting."""

REPLY_LIMIT = 64 * 1024 * 1024


class WorkerChannel(Protocol):
    """A started worker: send request lines, receive reply lines, kill it."""

    @property
    def alive(self) -> bool:
        """Whether the worker can still answer."""
        ...

    async def send(self, line: bytes) -> None:
        """Send one newline-terminated request."""
        ...

    async def receive_line(self) -> bytes:
        """The next reply line (without the newline).

        Raises:
            anyio.EndOfStream: the worker is gone.
        """
        ...

    async def kill(self) -> None:
        """Kill the worker and everything it started."""
        ...


class WorkerLauncher(Protocol):
    """Starts workers with a given memory limit."""

    name: str

    async def launch(self, worker_name: str, memory_mb: int, max_output: int) -> WorkerChannel:
        """Start one worker.

        Raises:
            SandboxError: it could not be started.
        """
        ...


class _LocalChannel:
    def __init__(self, process: Process, cgroup: object) -> None:
        self._process = process
        self._cgroup = cgroup
        assert process.stdout is not None
        self._reader = BufferedByteReceiveStream(process.stdout)

    @property
    def alive(self) -> bool:
        return self._process.returncode is None

    async def send(self, line: bytes) -> None:
        assert self._process.stdin is not None
        await self._process.stdin.send(line)

    async def receive_line(self) -> bytes:
        return await self._reader.receive_until(b"\n", REPLY_LIMIT)

    async def kill(self) -> None:
        try:
            os.killpg(self._process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        with anyio.CancelScope(shield=True):
            await self._process.aclose()
        remove_cgroup(self._cgroup)  # type: ignore[arg-type]


class LocalLauncher:
    """Starts workers as local processes under `mechanism` (bwrap, unshare or none)."""

    def __init__(self, mechanism: str) -> None:
        self.name = mechanism

    async def launch(self, worker_name: str, memory_mb: int, max_output: int) -> WorkerChannel:
        command = worker_command(
            self.name, WORKER_SOURCE, name=worker_name, memory_mb=memory_mb, max_output=max_output, cpu_budget=30  # type: ignore[arg-type]
        )
        try:
            # A new session makes the worker a process-group leader, so a kill reaches
            # everything it started.
            process = await anyio.open_process(command.argv, start_new_session=True, stderr=None)
        except OSError as exc:
            remove_cgroup(command.cgroup)
            raise SandboxError(f"cannot start a sandbox worker ({command.argv[0]}): {exc}") from exc
        return _LocalChannel(process, command.cgroup)
