"""`RequestGuard`: model requests reach only servers this process tree started (the suite runs under one)."""

from __future__ import annotations

import http.server
import os
import signal
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx
import pytest

from agent_sdk import ChatMessage, ForbiddenRequestError, OpenAIChatModel, RequestGuard, RetryPolicy

pytestmark = pytest.mark.anyio

SERVE = """
import http.server, os, sys
server = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
if sys.argv[1] == "orphan" and os.fork():
    os._exit(0)  # the listener lives on, adopted by init: no longer a descendant of the test
open(sys.argv[2] + ".tmp", "w").write(f"{os.getpid()} {server.server_address[1]}")
os.replace(sys.argv[2] + ".tmp", sys.argv[2])
server.serve_forever()
"""


@pytest.fixture
def in_process_port() -> Iterator[int]:
    """A server in this process (a thread), like a test's fake OpenAI server."""
    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


@asynccontextmanager
async def listener(tmp_path: Path, how: str) -> AsyncIterator[int]:
    """The port of a server in a child process (`child`) or in one its parent left behind (`orphan`)."""
    info = tmp_path / f"{how}.info"
    launcher = subprocess.Popen([sys.executable, "-c", SERVE, how, str(info)])
    pid = None
    try:
        with anyio.fail_after(30):
            while not info.exists():
                await anyio.sleep(0.02)
        pid, port = map(int, info.read_text().split())
        yield port
    finally:
        launcher.kill()
        launcher.wait()
        if pid is not None and pid != launcher.pid:
            os.kill(pid, signal.SIGKILL)


async def test_servers_of_this_process_and_its_children_are_reachable(in_process_port, tmp_path):
    with RequestGuard() as guard:
        async with httpx.AsyncClient() as client:
            assert (await client.get(f"http://127.0.0.1:{in_process_port}/v1/models")).status_code == 501
            async with listener(tmp_path, "child") as port:
                assert (await client.get(f"http://localhost:{port}/v1/models")).status_code == 501
        assert httpx.get(f"http://127.0.0.1:{in_process_port}/health").status_code == 501
    assert guard.refused == []


async def test_a_loopback_server_of_another_process_tree_is_refused_even_when_the_error_is_swallowed(tmp_path):
    async with listener(tmp_path, "orphan") as port:
        guard = RequestGuard()
        with pytest.raises(ForbiddenRequestError, match="were refused"):
            with guard:
                model = OpenAIChatModel("m", base_url=f"http://127.0.0.1:{port}/v1", retry=RetryPolicy(max_attempts=1))
                with pytest.raises(ForbiddenRequestError, match="FunctionModel"):
                    await model.complete([ChatMessage(role="user", content="hi")])
                try:
                    httpx.get(f"http://127.0.0.1:{port}/health")
                except Exception:  # noqa: BLE001 - code under test that treats a failed request as data
                    pass
    assert guard.refused == [f"http://127.0.0.1:{port}/v1/chat/completions", f"http://127.0.0.1:{port}/health"]


def test_remote_model_apis_are_refused_and_other_remote_requests_left_alone():
    guard = RequestGuard()
    for url in ("https://api.openai.com/v1/chat/completions", "http://10.1.2.3:8000/v1/models", "https://api.anthropic.com/v1/messages"):
        with pytest.raises(ForbiddenRequestError):
            guard.check(httpx.URL(url))
    guard.check(httpx.URL("https://huggingface.co/api/datasets/x"))  # not a model request
    assert len(guard.refused) == 3


def test_a_free_loopback_port_just_fails_to_connect():
    with RequestGuard() as guard:
        with pytest.raises(httpx.ConnectError):
            httpx.get("http://127.0.0.1:9/v1/models")
    assert guard.refused == []


def test_closing_the_guard_restores_httpx():
    before = httpx.AsyncHTTPTransport.handle_async_request
    with RequestGuard():
        assert httpx.AsyncHTTPTransport.handle_async_request is not before
    assert httpx.AsyncHTTPTransport.handle_async_request is before
