"""`astra agent run` end to end: a real example environment and a local OpenAI-compatible server."""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path

import anyio
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

pytestmark = pytest.mark.anyio

REPO = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_agent_run_prints_trajectory_and_reward(tmp_path: Path):
    async def chat(request: Request) -> JSONResponse:
        body = await request.json()
        if body["messages"][-1]["role"] == "user":
            # The text form Qwen2.5-Coder writes under vLLM's hermes parser, with a repairable quirk.
            content = "{\"name\": \"get_forecast\", \"arguments\": {'city': 'Oslo', 'date': '2025-06-14'}}"
        else:
            content = "Expect light rain in Oslo."
        message = {"role": "assistant", "content": content}
        usage = {"prompt_tokens": 50, "completion_tokens": 9}
        return JSONResponse({"choices": [{"message": message, "finish_reason": "stop"}], "usage": usage})

    port = _free_port()
    app = Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"])])
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off"))
    out = tmp_path / "trajectory.json"
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}
    env.pop("ASTRA_LLM_BASE_URL", None)
    command = [
        sys.executable, "-m", "astra_cli", "agent", "run",
        "--server", str(REPO / "examples" / "envs" / "weather_forecast"),
        "--policy", f"http://127.0.0.1:{port}/v1", "--model-name", "tiny", "--json", str(out),
    ]  # fmt: skip
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve)
        with anyio.fail_after(120):
            result = await anyio.run_process(command, env=env, cwd=tmp_path, check=False)
        server.should_exit = True
    stdout = result.stdout.decode()
    assert result.returncode == 0, stdout + result.stderr.decode()
    assert "get_forecast" in stdout and "repaired: single_quotes" in stdout
    assert "Expect light rain in Oslo." in stdout
    assert "F1 reward on env-" in stdout and "1.000" in stdout
    trajectory = json.loads(out.read_text())
    assert trajectory["stop_reason"] == "final_answer" and trajectory["model"] == "tiny"
    assert trajectory["steps"][0]["calls"][0]["result"]["ok"] is True


async def test_agent_run_reports_a_bad_model_url_cleanly(tmp_path: Path):
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}
    command = [
        sys.executable, "-m", "astra_cli", "agent", "run", "what?",
        "--server", str(REPO / "examples" / "envs" / "weather_forecast"),
        "--policy", "not a url", "--model-name", "m",
    ]  # fmt: skip
    with anyio.fail_after(120):
        result = await anyio.run_process(command, env=env, cwd=tmp_path, check=False)
    out = result.stdout.decode()
    assert result.returncode == 1, out + result.stderr.decode()
    assert "error: model target 'not a url': not an http(s):// URL" in out
    assert "Traceback" not in result.stderr.decode()
