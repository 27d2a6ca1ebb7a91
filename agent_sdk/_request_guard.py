"""`RequestGuard`: refuse model requests to servers that the current process tree did not start.

Test suites open one around every unit test, so a test that would reach a real model endpoint
by accident (`$ASTRA_LLM_BASE_URL`, a vLLM server someone runs on this machine, a remote API)
fails instead of quietly spending its time and tokens. What tests legitimately talk to stays
allowed: a fake OpenAI server or an arena the test (or a fixture) started in this process or in
a child process, and a loopback port nobody listens on (the connection is refused anyway).

Refused: any request to a loopback server of another process tree, and a request elsewhere
whose path is a model API's (`/chat/completions`, `/completions`, `/embeddings`, `/responses`,
`/messages`, `/models`). Other remote requests (a library looking for updates) are not model
requests and are left to fail or succeed on their own. It guards httpx, which every model
backend here speaks (`OpenAIChatModel`, the openai SDK, the model server's readiness probe);
MCP clients speak httpx2 and are left alone. Ownership is read from Linux's `/proc` (the
listening socket's inode among the open files of this process and its descendants); elsewhere
any loopback server counts as owned.
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx

from agent_sdk.exceptions import ForbiddenRequestError

__all__ = ["RequestGuard"]

_PROC = Path("/proc")
_LISTEN = "0A"  # TCP state LISTEN in /proc/net/tcp
_MODEL_PATH = re.compile(r"(^|/)(chat/completions|completions|embeddings|responses|messages|models)/?$")


class RequestGuard:
    """While open, httpx model requests may only reach servers this process or its children serve.

    A refused request raises `ForbiddenRequestError` and is recorded in `refused`; leaving the
    block raises `ForbiddenRequestError` again if anything was refused, so the caller fails even
    when the code under test treats model failures as data and carries on.

        with RequestGuard():
            ...  # the test
    """

    def __init__(self) -> None:
        self.refused: list[str] = []
        """The URLs of refused requests, in order."""
        self._allowed_ports: set[int] = set()
        self._saved: list[tuple[type, str, Any]] = []

    def __enter__(self) -> RequestGuard:
        guard = self
        sync_send = httpx.HTTPTransport.handle_request
        async_send = httpx.AsyncHTTPTransport.handle_async_request

        def handle_request(transport: httpx.HTTPTransport, request: httpx.Request) -> httpx.Response:
            guard.check(request.url)
            return sync_send(transport, request)

        async def handle_async_request(transport: httpx.AsyncHTTPTransport, request: httpx.Request) -> httpx.Response:
            guard.check(request.url)
            return await async_send(transport, request)

        self._patch(httpx.HTTPTransport, "handle_request", handle_request)
        self._patch(httpx.AsyncHTTPTransport, "handle_async_request", handle_async_request)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        """Restore httpx.

        Raises:
            ForbiddenRequestError: when a request was refused inside the block (and no other
                exception is on its way out).
        """
        while self._saved:
            owner, attribute, original = self._saved.pop()
            setattr(owner, attribute, original)
        if exc_type is None and self.refused:
            raise ForbiddenRequestError(f"requests to servers this process tree did not start were refused: {self.refused}")

    def _patch(self, owner: type, attribute: str, replacement: Any) -> None:
        self._saved.append((owner, attribute, owner.__dict__[attribute]))
        setattr(owner, attribute, replacement)

    def check(self, url: httpx.URL) -> None:
        """Pass a request to `url`, or record and refuse it.

        Raises:
            ForbiddenRequestError: when `url` is a loopback server of another process tree, or a
                model API elsewhere.
        """
        port = url.port or (443 if url.scheme == "https" else 80)
        if _is_loopback(url.host):
            if port in self._allowed_ports or _own_or_free(port):
                self._allowed_ports.add(port)
                return
        elif not _MODEL_PATH.search(url.path):
            return
        self.refused.append(str(url))
        raise ForbiddenRequestError(
            f"request to {url} refused: no server of this test serves it (a test must not reach a real model "
            "endpoint: give it an agent_sdk.FunctionModel, or start the fake server inside the test)"
        )


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _own_or_free(port: int) -> bool:
    """Whether nobody listens on `port`, or a process of this tree does."""
    if not (_PROC / "net" / "tcp").is_file():
        return True
    listening = _listening_inodes(port)
    if not listening:
        return True
    sockets = {f"socket:[{inode}]" for inode in listening}
    return any(_holds_any(pid, sockets) for pid in _process_tree(os.getpid()))


def _listening_inodes(port: int) -> set[str]:
    inodes = set()
    for table in ("tcp", "tcp6"):
        try:
            lines = (_PROC / "net" / table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state == _LISTEN and int(local.rsplit(":", 1)[1], 16) == port:
                inodes.add(inode)
    return inodes


def _process_tree(root: int) -> Iterator[int]:
    """`root` and its descendants (read from every process's parent id)."""
    children: dict[int, list[int]] = {}
    for stat in _PROC.glob("[0-9]*/stat"):
        try:
            # the command name may hold spaces and parentheses; the fields after its last ')' do not
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(stat.parent.name))
    todo = [root]
    while todo:
        pid = todo.pop()
        yield pid
        todo.extend(children.get(pid, []))


def _holds_any(pid: int, sockets: set[str]) -> bool:
    try:
        fds = list((_PROC / str(pid) / "fd").iterdir())
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(fd) in sockets:
                return True
        except OSError:
            continue
    return False
