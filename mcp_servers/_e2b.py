"""The e2b backend: the same worker program, run inside an e2b cloud sandbox.

Selected by config (`E2BSandbox`, or `--sandbox e2b` on the CLI); needs the `e2b` extra and
`E2B_API_KEY`. Each worker is one e2b sandbox with internet access disabled; the worker
speaks the same line protocol over the sandbox command's stdin/stdout.
"""

from __future__ import annotations

import os
from typing import Any

import anyio

from mcp_servers._channel import WORKER_SOURCE, WorkerChannel
from mcp_servers._sandbox import Sandbox
from mcp_servers.exceptions import SandboxError, SandboxUnavailable

_WORKER_PATH = "/tmp/astra_worker.py"


class _E2BChannel:
    def __init__(self, sandbox: Any, handle: Any, replies: anyio.abc.ObjectReceiveStream[bytes]) -> None:
        self._sandbox = sandbox
        self._handle = handle
        self._replies = replies
        self._alive = True

    @property
    def alive(self) -> bool:
        return self._alive

    async def send(self, line: bytes) -> None:
        await self._sandbox.commands.send_stdin(self._handle.pid, line.decode())

    async def receive_line(self) -> bytes:
        return await self._replies.receive()

    async def kill(self) -> None:
        self._alive = False
        with anyio.CancelScope(shield=True):
            try:
                await self._sandbox.kill()
            except Exception:  # noqa: BLE001 — the remote sandbox may already be gone; nothing to keep
                pass


class E2BLauncher:
    """Starts workers in e2b sandboxes (`e2b-code-interpreter`), network disabled."""

    name = "e2b"

    def __init__(self, template: str | None = None, timeout_s: int = 3600) -> None:
        if not os.environ.get("E2B_API_KEY"):
            raise SandboxUnavailable("the e2b backend needs E2B_API_KEY in the environment")
        try:
            from e2b_code_interpreter import AsyncSandbox
        except ImportError as exc:
            raise SandboxUnavailable("the e2b backend needs the extra: pip install 'astra-mcp[e2b]'") from exc
        self._sandbox_cls = AsyncSandbox
        self._template = template
        self._timeout_s = timeout_s

    async def launch(self, worker_name: str, memory_mb: int, max_output: int) -> WorkerChannel:
        try:
            sandbox = await self._sandbox_cls.create(
                template=self._template, timeout=self._timeout_s, allow_internet_access=False,
                metadata={"astra_worker": worker_name},
            )
            await sandbox.files.write(_WORKER_PATH, WORKER_SOURCE)
        except Exception as exc:  # noqa: BLE001 — translate the SDK's many error types at the boundary
            raise SandboxError(f"cannot start an e2b sandbox: {exc}") from exc
        send, receive = anyio.create_memory_object_stream[bytes](1000)
        pending = bytearray()

        async def on_stdout(chunk: str) -> None:
            pending.extend(chunk.encode())
            while b"\n" in pending:
                line, _, rest = bytes(pending).partition(b"\n")
                pending[:] = rest
                await send.send(line)

        handle = await sandbox.commands.run(
            f"python3 -I -S {_WORKER_PATH} {memory_mb} {max_output} 30 host",
            background=True, stdin=True, on_stdout=on_stdout, timeout=0,
        )
        return _E2BChannel(sandbox, handle, receive)


class E2BSandbox(Sandbox):
    """A `Sandbox` whose workers run in e2b cloud sandboxes.

    Raises:
        SandboxUnavailable: E2B_API_KEY is not set or the `e2b` extra is not installed.
    """

    def __init__(self, *, workers: int = 2, template: str | None = None, max_output_bytes: int = 1 << 20) -> None:
        super().__init__(E2BLauncher(template), workers=workers, max_output_bytes=max_output_bytes)
