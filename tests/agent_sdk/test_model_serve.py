"""`serve_model` and the fallback OpenAI-compatible app, with the real embedded model."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import anyio
import httpx
import pytest

from agent_sdk import ChatMessage, OpenAIChatModel, SamplingSettings
from agent_sdk._embedded import EMBEDDED_MODEL_NAME
from agent_sdk._serve import DEFAULT_VLLM_PYTHON, VllmOptions, find_vllm_python, free_port, serve_model, vllm_command
from agent_sdk._serve_app import chat_app

pytestmark = pytest.mark.anyio

FORECAST_TOOL = {
    "type": "function",
    "function": {
        "name": "get_forecast",
        "description": "Get the daily weather forecast for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "date": {"type": "string", "description": "YYYY-MM-DD"}},
            "required": ["city", "date"],
        },
    },
}
RAIN_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string", "maxLength": 12}, "rain": {"type": "boolean"}},
    "required": ["city", "rain"],
    "additionalProperties": False,
}
REQUEST = {
    "model": EMBEDDED_MODEL_NAME,
    "messages": [{"role": "user", "content": "What is the weather forecast for Oslo on 2025-06-14?"}],
    "tools": [FORECAST_TOOL],
    "tool_choice": "auto",
    "max_tokens": 48,
    "temperature": 0,
}


def _assert_forecast_call(body: dict) -> None:
    message = body["choices"][0]["message"]
    call = message["tool_calls"][0]
    arguments = json.loads(call["function"]["arguments"])
    assert call["type"] == "function" and call["function"]["name"] == "get_forecast"
    assert arguments["city"].lower() == "oslo" and arguments["date"] == "2025-06-14"
    assert body["usage"]["completion_tokens"] > 0


@pytest.fixture(scope="module")
def local_model():
    pytest.importorskip("torch")
    from agent_sdk._local import LocalChatModel

    return LocalChatModel("embedded")


def test_vllm_command_uses_the_json_tool_parser_plugin(tmp_path):
    command = vllm_command(
        tmp_path / "python", tmp_path / "model", served_name="m", host="127.0.0.1", port=9, options=VllmOptions()
    )
    plugin = command[command.index("--tool-parser-plugin") + 1]
    assert command[1:3] == ["-m", "vllm.entrypoints.openai.api_server"]
    assert command[command.index("--tool-call-parser") + 1] == "hermes_json"
    assert plugin.endswith("_vllm_tool_parser.py") and "--enable-auto-tool-choice" in command
    assert "--enforce-eager" in vllm_command(
        tmp_path / "python", tmp_path / "model", served_name="m", host="h", port=9, options=VllmOptions(enforce_eager=True)
    )
    config = json.loads(command[command.index("--structured-outputs-config") + 1])
    assert config == {"backend": "xgrammar", "disable_any_whitespace": True}


ARGS_CHECK = """
import sys
from vllm.engine.arg_utils import AsyncEngineArgs
from vllm.entrypoints.launchers.cli_args import make_arg_parser
from vllm.utils.argparse_utils import FlexibleArgumentParser

args = make_arg_parser(FlexibleArgumentParser()).parse_args(sys.argv[1:])
print(AsyncEngineArgs.from_cli_args(args).structured_outputs_config)
"""


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_vllm_accepts_the_command_line(tmp_path):
    python = find_vllm_python()
    if python is None:
        pytest.skip(f"vLLM is not installed (no {DEFAULT_VLLM_PYTHON}; run scripts/install_vllm.sh)")
    command = vllm_command(python, tmp_path, served_name="m", host="127.0.0.1", port=9, options=VllmOptions())
    plugin = command.index("--tool-parser-plugin")
    args = command[3:plugin] + command[plugin + 2 :]  # the plugin registers on import; parsing needs only its name
    done = subprocess.run([str(python), "-c", ARGS_CHECK, *args], capture_output=True, text=True, timeout=500)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "disable_any_whitespace=True" in done.stdout and "backend='xgrammar'" in done.stdout


def test_find_vllm_python_rejects_an_interpreter_without_vllm(tmp_path):
    import sys

    assert find_vllm_python(sys.executable) is None
    assert find_vllm_python(tmp_path / "missing" / "python") is None


@pytest.mark.slow
@pytest.mark.timeout(1200)
async def test_fallback_app_returns_structured_tool_calls(local_model):
    transport = httpx.ASGITransport(app=chat_app(local_model))
    async with httpx.AsyncClient(transport=transport, base_url="http://model", timeout=300) as client:
        models = (await client.get("/v1/models")).json()
        response = await client.post("/v1/chat/completions", json=REQUEST)
        bad = await client.post("/v1/chat/completions", json={"messages": []})
    assert [m["id"] for m in models["data"]] == [EMBEDDED_MODEL_NAME]
    assert response.status_code == 200, response.text
    _assert_forecast_call(response.json())
    assert response.json()["choices"][0]["finish_reason"] == "tool_calls"
    assert bad.status_code == 400 and "messages" in bad.json()["error"]["message"]


@pytest.mark.slow
@pytest.mark.timeout(1200)
async def test_serve_model_falls_back_to_the_local_backend(tmp_path, caplog):
    async with serve_model("embedded", backend="auto", python=tmp_path / "no-python", startup_timeout_s=300) as served:
        assert served.backend == "local" and served.model_name == EMBEDDED_MODEL_NAME
        assert "serving qwen" in caplog.text.lower() and "transformers backend" in caplog.text, "the slower fallback is said"
        client = OpenAIChatModel(base_url=served.base_url, timeout_s=300)
        response = await client.complete(
            [ChatMessage(role="user", content=REQUEST["messages"][0]["content"])],
            [FORECAST_TOOL],
            settings=SamplingSettings(max_tokens=48, temperature=0),
        )
    assert [c.name for c in response.message.tool_calls] == ["get_forecast"]
    assert response.message.tool_calls[0].arguments["date"] == "2025-06-14"


@pytest.mark.slow
@pytest.mark.timeout(1200)
async def test_serve_model_with_vllm_returns_structured_tool_calls():
    if find_vllm_python() is None:
        pytest.skip(f"vLLM is not installed (no {DEFAULT_VLLM_PYTHON}; run scripts/install_vllm.sh)")
    options = VllmOptions(enforce_eager=True)
    async with serve_model("embedded", backend="vllm", options=options, startup_timeout_s=600) as served:
        assert served.backend == "vllm"
        async with httpx.AsyncClient(timeout=300) as client:
            models = (await client.get(f"{served.base_url}/models")).json()
            response = await client.post(f"{served.base_url}/chat/completions", json=REQUEST)
        async with OpenAIChatModel(served.model_name, base_url=served.base_url, timeout_s=300) as model:
            constrained = await model.complete(
                [ChatMessage(role="user", content=REQUEST["messages"][0]["content"] + " Will it rain?")],
                [FORECAST_TOOL],
                settings=SamplingSettings(max_tokens=48, temperature=0, output_schema=RAIN_SCHEMA),
            )
            sampled = await model.complete(
                [ChatMessage(role="user", content=REQUEST["messages"][0]["content"])],
                [FORECAST_TOOL],
                settings=SamplingSettings(max_tokens=48, temperature=1.0, seed=7, return_tokens=True),
            )
    assert [m["id"] for m in models["data"]] == [EMBEDDED_MODEL_NAME]
    # on-policy GRPO trains on these: the rendered prompt and the sampled ids, one logprob per id
    tokens = sampled.tokens
    assert tokens is not None and tokens.prompt_ids and tokens.completion_ids
    assert len(tokens.logprobs) == len(tokens.completion_ids) and all(lp <= 0.0 for lp in tokens.logprobs)
    from transformers import AutoTokenizer

    from agent_sdk import embedded_model_dir

    tokenizer = AutoTokenizer.from_pretrained(str(embedded_model_dir()))
    rendered = tokenizer.apply_chat_template([REQUEST["messages"][0]], tools=[FORECAST_TOOL], add_generation_prompt=True, tokenize=False)
    assert tokenizer.decode(tokens.prompt_ids) == rendered, "the prompt ids are the chat template's rendering"
    text = tokenizer.decode(tokens.completion_ids, skip_special_tokens=True)
    assert (sampled.message.content or "") in text and all(c.name in text for c in sampled.message.tool_calls)
    assert response.status_code == 200, response.text
    _assert_forecast_call(response.json())
    reply = json.loads(constrained.message.content)
    assert set(reply) == {"city", "rain"} and isinstance(reply["rain"], bool)
    assert "\n" not in constrained.message.content  # whitespace is bounded server-side


def test_weight_reload_is_opt_in():
    from agent_sdk import ServedModel, UserError
    from agent_sdk._serve import vllm_env

    assert "VLLM_SERVER_DEV_MODE" not in vllm_env(VllmOptions())
    assert vllm_env(VllmOptions(weight_reload=True))["VLLM_SERVER_DEV_MODE"] == "1"
    plain = ServedModel(base_url="http://127.0.0.1:1/v1", model_name="m", backend="local")
    with pytest.raises(UserError, match="cannot reload weights"):
        anyio.run(plain.reload_weights, "/nowhere")


@pytest.mark.slow
@pytest.mark.timeout(1200)
async def test_vllm_reloads_new_weights_in_place(tmp_path):
    if find_vllm_python() is None:
        pytest.skip(f"vLLM is not installed (no {DEFAULT_VLLM_PYTHON}; run scripts/install_vllm.sh)")
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from agent_sdk import embedded_model_dir

    source = embedded_model_dir()
    changed = tmp_path / "changed"
    model = AutoModelForCausalLM.from_pretrained(str(source), dtype=torch.bfloat16)
    with torch.no_grad():
        for parameter in model.model.layers[-1].parameters():
            parameter.mul_(1.5)
    model.save_pretrained(str(changed))
    AutoTokenizer.from_pretrained(str(source)).save_pretrained(str(changed))
    prompt = [ChatMessage(role="user", content="Name three rivers of Europe.")]
    greedy = SamplingSettings(max_tokens=24, temperature=0)
    options = VllmOptions(enforce_eager=True, weight_reload=True)
    async with serve_model(source, backend="vllm", options=options, startup_timeout_s=600) as served:
        assert served.weight_reload
        async with OpenAIChatModel(served.model_name, base_url=served.base_url, timeout_s=300) as client:
            before = (await client.complete(prompt, [], settings=greedy)).message.content
            await served.reload_weights(changed)
            after = (await client.complete(prompt, [], settings=greedy)).message.content
            await served.reload_weights(source)
            back = (await client.complete(prompt, [], settings=greedy)).message.content
    assert after != before and back == before


STAND_IN_VLLM = """#!{python}
# Answers the vLLM probe and serves /v1/models, as far as `serve_model` looks.
import http.server, os, sys
if sys.argv[1:2] == ["-c"]:
    sys.exit(0)
open(os.environ["STAND_IN_PIDFILE"], "w").write(str(os.getpid()))
class Ok(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b'{{"data": []}}')
    def log_message(self, *args):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[sys.argv.index("--port") + 1])), Ok).serve_forever()
"""


async def test_vllm_child_dies_with_a_killed_parent(tmp_path, helpers):
    python = tmp_path / "python"
    python.write_text(STAND_IN_VLLM.format(python=sys.executable))
    python.chmod(0o755)
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text("{}")
    pidfile = tmp_path / "pid"
    port = free_port()
    astra = subprocess.Popen(
        [str(Path(sys.executable).parent / "astra"), "model", "serve", "--model", str(model), "--backend", "vllm",
         "--python", str(python), "--port", str(port), "--timeout", "60"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env={**os.environ, "STAND_IN_PIDFILE": str(pidfile)},
    )  # fmt: skip
    child = None
    try:
        with anyio.fail_after(60):
            assert (await anyio.to_thread.run_sync(astra.stdout.readline)).strip() == f"http://127.0.0.1:{port}/v1"
        child = int(pidfile.read_text())
        astra.kill()
        astra.wait()
        await helpers.wait_until(lambda: not helpers.pid_alive(child), timeout_s=10)
    finally:
        astra.kill()
        if child is not None and helpers.pid_alive(child):
            os.kill(child, signal.SIGKILL)


def test_dtype_auto_is_bf16_only_where_the_cpu_computes_it(tmp_path):
    from agent_sdk._cpu import cpu_has_bf16
    from agent_sdk._serve import resolve_dtype

    command = vllm_command(tmp_path / "python", tmp_path / "model", served_name="m", host="h", port=9, options=VllmOptions())
    assert command[command.index("--dtype") + 1] == ("bfloat16" if cpu_has_bf16() else "float32")
    assert resolve_dtype("bfloat16") == "bfloat16" and resolve_dtype("float16") == "float16"
