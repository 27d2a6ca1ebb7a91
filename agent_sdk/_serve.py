"""Serve a model behind an OpenAI-compatible endpoint: vLLM when installed, else the local backend.

vLLM runs from its own virtual environment (it needs a newer transformers than veRL allows),
so it is started as a child process with a configurable interpreter: the `python` argument,
else `ASTRA_VLLM_PYTHON`, else `<repo>/.venv-vllm/bin/python` (made by
`scripts/install_vllm.sh`). Where that interpreter has no vLLM, `LocalChatModel` is served by
a small Starlette app with the same endpoint shape (`/v1/models`, `/v1/chat/completions`).
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Literal

import anyio
import httpx
from pydantic import BaseModel, Field

from agent_sdk._cpu import cpu_has_bf16
from agent_sdk._embedded import STUDENT
from agent_sdk._local_targets import local_model_path, served_model_name
from agent_sdk._model_cache import cache_dir
from agent_sdk.exceptions import ModelError, UserError

__all__ = ["ServedModel", "VllmOptions", "find_vllm_python", "serve_model", "vllm_command", "vllm_env"]

ENV_VLLM_PYTHON = "ASTRA_VLLM_PYTHON"
_log = logging.getLogger(__name__)
_REPO = Path(__file__).resolve().parents[1]
DEFAULT_VLLM_PYTHON = _REPO / ".venv-vllm" / "bin" / "python"
_TOOL_PARSER_PLUGIN = Path(__file__).with_name("_vllm_tool_parser.py")


class ServedModel(BaseModel):
    """A running OpenAI-compatible endpoint for one model."""

    base_url: str = Field(description="e.g. `http://127.0.0.1:8011/v1`.")
    model_name: str = Field(description="The model name to send in requests.")
    backend: Literal["vllm", "local"] = Field(description="What answers: vLLM or the local transformers backend.")
    log_path: Path | None = Field(default=None, description="The server's log file (vLLM only).")
    weight_reload: bool = Field(default=False, description="Whether `reload_weights` works (vLLM with `VllmOptions.weight_reload`).")

    async def reload_weights(self, model_dir: str | Path, *, timeout_s: float = 600.0) -> None:
        """Load the checkpoint in `model_dir` (same architecture) into the running server, then drop its prefix cache.

        Requests in flight are served by the old weights; later ones by the new. This is how a
        trainer hands its weights to the server without a restart.

        Raises:
            UserError: when the server was not started with `weight_reload`.
            ModelError: when vLLM refuses or fails the reload.
        """
        if not self.weight_reload:
            raise UserError("this server cannot reload weights (start vLLM with VllmOptions(weight_reload=True))")
        root = self.base_url.rstrip("/").removesuffix("/v1")
        body = {"method": "reload_weights", "kwargs": {"weights_path": str(Path(model_dir).resolve())}}
        async with httpx.AsyncClient(timeout=timeout_s) as client:
            for path, payload in (("/collective_rpc", body), ("/reset_prefix_cache", None)):
                try:
                    response = await client.post(root + path, json=payload)
                except httpx.TransportError as exc:
                    raise ModelError(f"weight reload at {root}{path}: {exc}") from exc
                if response.status_code != 200:
                    raise ModelError(f"weight reload at {root}{path}: HTTP {response.status_code}: {response.text[:500]}")


class VllmOptions(BaseModel):
    """How to start vLLM's OpenAI-compatible server (defaults suit the 2-core CPU machines)."""

    max_model_len: int = 4096
    dtype: str = Field(
        default="auto",
        description="Weights and activations: 'auto' is bfloat16 where the CPU computes it natively (AVX512-BF16, AMX), "
        "else float32 (an AVX2 CPU emulates bf16: the 1.5B's first forward pass took over 20 minutes).",
    )
    enforce_eager: bool = Field(default=False, description="Skip compilation: starts faster, ~25% slower.")
    kv_cache_gib: int = Field(default=2, description="VLLM_CPU_KVCACHE_SPACE (CPU builds only).")
    cpu_threads: str | None = Field(default=None, description="VLLM_CPU_OMP_THREADS_BIND; default: all cores.")
    json_tool_parser: bool = Field(
        default=True,
        description="Parse calls server-side with the project's `parse_tool_calls` (the plugin `_vllm_tool_parser.py`), "
        "so `tool_calls` hold what every other path reads from the text; off: vLLM's stock hermes parser.",
    )
    chunked_prefill: bool = Field(
        default=False,
        description="Off by default: on the CPU build a seeded request whose prefill is chunked crashes "
        "the engine ('CPU Generator does not use offset').",
    )
    max_num_batched_tokens: int | None = Field(default=None, description="Tokens per step (default: max_model_len).")
    compact_json: bool = Field(
        default=True,
        description="Schema-constrained replies without whitespace outside strings (xgrammar backend): "
        "otherwise a small model may pad a reply with newlines until max_tokens. vLLM reads this per "
        "server, not per request.",
    )
    weight_reload: bool = Field(
        default=False, description="Serve vLLM's dev endpoints (/collective_rpc, /reset_prefix_cache) so `ServedModel.reload_weights` works."
    )
    extra_args: list[str] = Field(default_factory=list)


def find_vllm_python(python: str | Path | None = None) -> Path | None:
    """The interpreter to run vLLM with, or None when it has no vLLM installed.

    Order: `python`, `$ASTRA_VLLM_PYTHON`, `<repo>/.venv-vllm/bin/python`.
    """
    chosen = python or os.environ.get(ENV_VLLM_PYTHON) or DEFAULT_VLLM_PYTHON
    path = Path(chosen).expanduser()
    if not path.is_file():
        return None
    probe = "import importlib.util, sys; sys.exit(importlib.util.find_spec('vllm') is None)"
    try:
        done = subprocess.run([str(path), "-c", probe], capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return path if done.returncode == 0 else None


def resolve_dtype(dtype: str) -> str:
    """`dtype` with 'auto' resolved for this machine (see `VllmOptions.dtype`)."""
    if dtype != "auto":
        return dtype
    return "bfloat16" if cpu_has_bf16() else "float32"


def vllm_command(
    python: Path, model_dir: Path, *, served_name: str, host: str, port: int, options: VllmOptions
) -> list[str]:
    """The command line that starts vLLM's OpenAI-compatible server."""
    parser = ["--tool-call-parser", "hermes"]
    if options.json_tool_parser:
        parser = ["--tool-parser-plugin", str(_TOOL_PARSER_PLUGIN), "--tool-call-parser", "hermes_json"]
    command = [
        str(python), "-m", "vllm.entrypoints.openai.api_server",
        "--model", str(model_dir), "--served-model-name", served_name,
        "--host", host, "--port", str(port),
        "--dtype", resolve_dtype(options.dtype), "--max-model-len", str(options.max_model_len),
        "--enable-auto-tool-choice", *parser,
    ]  # fmt: skip
    if options.enforce_eager:
        command.append("--enforce-eager")
    if options.compact_json:
        command += ["--structured-outputs-config", json.dumps({"backend": "xgrammar", "disable_any_whitespace": True})]
    if not options.chunked_prefill:
        budget = options.max_num_batched_tokens or options.max_model_len
        command += ["--no-enable-chunked-prefill", "--max-num-batched-tokens", str(max(budget, options.max_model_len))]
    elif options.max_num_batched_tokens:
        command += ["--max-num-batched-tokens", str(options.max_num_batched_tokens)]
    return [*command, *options.extra_args]


def vllm_env(options: VllmOptions, cache: Path | None = None) -> dict[str, str]:
    """Environment for the vLLM process: offline, CPU KV cache, all cores, reusable compile caches."""
    cache = cache or cache_dir()
    env = dict(os.environ)
    env.update(
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        VLLM_NO_USAGE_STATS="1",
        VLLM_CPU_KVCACHE_SPACE=str(options.kv_cache_gib),
        VLLM_CPU_OMP_THREADS_BIND=options.cpu_threads or f"0-{max((os.cpu_count() or 1) - 1, 0)}",
        # The AOT compile cache fails to reload in this build; inductor's own cache is reused.
        VLLM_USE_AOT_COMPILE="0",
        VLLM_CACHE_ROOT=str(cache / "vllm"),
        TORCHINDUCTOR_CACHE_DIR=str(cache / "inductor"),
    )
    if options.weight_reload:
        env["VLLM_SERVER_DEV_MODE"] = "1"
    return env


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that is free on `host` right now."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


@asynccontextmanager
async def serve_model(
    model_dir: str | Path | None = None,
    *,
    port: int | None = None,
    host: str = "127.0.0.1",
    served_name: str | None = None,
    backend: Literal["auto", "vllm", "local"] = "auto",
    python: str | Path | None = None,
    options: VllmOptions | None = None,
    startup_timeout_s: float = 600.0,
    log_path: Path | None = None,
) -> AsyncIterator[ServedModel]:
    """Serve a model until the block exits; yields where to reach it.

    Args:
        model_dir: a Hugging Face model directory; None or an embedded name ("embedded", the
            default student; "teacher").
        port: TCP port (default: a free one).
        served_name: model name clients send (default: the embedded name or the directory name).
        backend: "vllm" requires vLLM, "local" forces the transformers fallback, "auto" prefers vLLM.
        python: interpreter with vLLM (see `find_vllm_python`).
        options: vLLM settings.
        startup_timeout_s: how long to wait for `/v1/models` to answer.
        log_path: where vLLM writes its log (default: a temporary file).

    Raises:
        UserError: the model directory does not exist, or backend="vllm" without vLLM.
        ModelError: the server exited or did not answer within `startup_timeout_s`.
    """
    target = STUDENT.target if model_dir is None else model_dir
    path = local_model_path(target).resolve()
    if not (path / "config.json").is_file():
        raise UserError(f"{path}: not a Hugging Face model directory (no config.json)")
    name = served_name or served_model_name(target)
    port = port or free_port(host)
    vllm_python = find_vllm_python(python) if backend != "local" else None
    if backend == "vllm" and vllm_python is None:
        raise UserError(f"no vLLM interpreter found (set {ENV_VLLM_PYTHON} or run scripts/install_vllm.sh)")
    if backend == "auto" and vllm_python is None:
        # Said out loud: the fallback answers, but an order of magnitude slower than vLLM on a CPU.
        _log.warning("no vLLM interpreter (%s, or $%s): serving %s with the transformers backend", python or DEFAULT_VLLM_PYTHON,
                     ENV_VLLM_PYTHON, name)  # fmt: skip
    if vllm_python is not None:
        async with _serve_vllm(vllm_python, path, name, host, port, options or VllmOptions(), startup_timeout_s, log_path) as served:
            yield served
    else:
        async with _serve_local(path, name, host, port, startup_timeout_s) as served:
            yield served


@asynccontextmanager
async def _serve_vllm(
    python: Path,
    model_dir: Path,
    name: str,
    host: str,
    port: int,
    options: VllmOptions,
    timeout_s: float,
    log_path: Path | None,
) -> AsyncIterator[ServedModel]:
    if log_path is None:
        handle, raw = tempfile.mkstemp(prefix="astra-vllm-", suffix=".log")
        os.close(handle)
        log_path = Path(raw)
    command = _dies_with_parent(vllm_command(python, model_dir, served_name=name, host=host, port=port, options=options))
    base_url = f"http://{host}:{port}/v1"
    with log_path.open("ab") as log:
        process = await anyio.open_process(command, stdout=log, stderr=subprocess.STDOUT, env=vllm_env(options))
    exited = False
    try:
        await _wait_ready(base_url, timeout_s, process=process, log_path=log_path)
        async with anyio.create_task_group() as tg:

            async def watch() -> None:
                nonlocal exited
                await process.wait()
                exited = True
                tg.cancel_scope.cancel()

            tg.start_soon(watch)
            yield ServedModel(base_url=base_url, model_name=name, backend="vllm", log_path=log_path, weight_reload=options.weight_reload)
            tg.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await _stop(process)
    if exited:
        raise ModelError(f"vLLM exited while serving (code {process.returncode}){_log_tail(log_path)}")


def _dies_with_parent(command: list[str]) -> list[str]:
    """`command` under `setpriv --pdeathsig TERM` where util-linux has it.

    A SIGKILLed parent cannot stop its children; with the parent-death signal the kernel sends
    vLLM the SIGTERM we would have, and vLLM shuts its engine process down as on a normal stop.
    """
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "TERM", "--", *command] if setpriv else command


async def _stop(process: anyio.abc.Process) -> None:
    if process.returncode is not None:
        return
    process.terminate()
    with anyio.move_on_after(20):
        await process.wait()
        return
    process.kill()
    await process.wait()


async def _wait_ready(
    base_url: str, timeout_s: float, *, process: anyio.abc.Process | None = None, log_path: Path | None = None
) -> None:
    """Poll `/v1/models` until it answers 200; fail if the process exits first or time runs out."""
    async with httpx.AsyncClient(timeout=5.0) as client:
        try:
            with anyio.fail_after(timeout_s):
                while True:
                    if process is not None and process.returncode is not None:
                        raise ModelError(f"model server exited with {process.returncode}{_log_tail(log_path)}")
                    try:
                        if (await client.get(f"{base_url}/models")).status_code == 200:
                            return
                    except httpx.TransportError:
                        pass
                    await anyio.sleep(1.0)
        except TimeoutError as exc:
            raise ModelError(f"model server at {base_url} not ready after {timeout_s:.0f}s{_log_tail(log_path)}") from exc


def _log_tail(log_path: Path | None, lines: int = 20) -> str:
    if log_path is None or not log_path.is_file():
        return ""
    tail = log_path.read_text(errors="replace").splitlines()[-lines:]
    return f"; log {log_path}:\n" + "\n".join(tail)


@asynccontextmanager
async def _serve_local(model_dir: Path, name: str, host: str, port: int, timeout_s: float) -> AsyncIterator[ServedModel]:
    if importlib.util.find_spec("torch") is None:
        raise UserError(f"neither vLLM nor the local extra is installed; run scripts/install_vllm.sh (python: {sys.executable})")
    import uvicorn

    from agent_sdk._local import LocalChatModel
    from agent_sdk._serve_app import chat_app

    model = await anyio.to_thread.run_sync(lambda: LocalChatModel(model_dir, name=name))
    config = uvicorn.Config(chat_app(model), host=host, port=port, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    base_url = f"http://{host}:{port}/v1"
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve)
        try:
            await _wait_ready(base_url, timeout_s)
            yield ServedModel(base_url=base_url, model_name=name, backend="local")
        finally:
            server.should_exit = True
