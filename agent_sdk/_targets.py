"""`model_from_target`: one way from an embedded name, a model path or an endpoint URL to a `ChatModel`.

Every LLM-driven command takes the same kinds of target. An endpoint URL is used as is. A
local model (an embedded name, "embedded" for the student or "teacher"; a Hugging Face
directory; a `.gguf` file) is served for the duration of the block: behind vLLM when it is
installed (as `astra demo` does), else in this process by the transformers backend. With no
target at all, `$ASTRA_LLM_BASE_URL` is used when set, and otherwise the caller's default
embedded model is started (the teacher for synthesis and judges, the student for a policy),
and the user is told so. `local_model_path` is the same reading for code that loads weights
itself (training); it lives in `agent_sdk._local_targets`, the one code that reads a local model's name.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Literal

import anyio.to_thread

from agent_sdk._adapted import ADAPTED_MODELS
from agent_sdk._embedded import EMBEDDED_MODELS, STUDENT, is_endpoint_target
from agent_sdk._local_targets import is_local_target
from agent_sdk._messages import SamplingSettings
from agent_sdk._model import ChatModel
from agent_sdk._openai import ENV_BASE_URL, OpenAIChatModel
from agent_sdk._serve import VllmOptions, find_vllm_python, serve_model
from agent_sdk.exceptions import UserError

__all__ = ["LocalBackend", "model_fingerprint", "model_from_target"]

LocalBackend = Literal["auto", "vllm", "local"]
"""How a local model is run: "auto" (vLLM if installed, else transformers), "vllm" or "local"."""

_SYNTHESIS_CONTEXT = 16384
"""vLLM's context for a model served here: judges read whole trajectories (the model allows 32k)."""


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@asynccontextmanager
async def model_from_target(
    target: str | None = None,
    *,
    model_name: str | None = None,
    api_key: str | None = None,
    backend: LocalBackend = "auto",
    settings: SamplingSettings | None = None,
    max_concurrency: int = 16,
    timeout_s: float = 600.0,
    vllm_options: VllmOptions | None = None,
    startup_timeout_s: float = 900.0,
    default: str = STUDENT.target,
    announce: Callable[[str], None] = _stderr,
) -> AsyncIterator[ChatModel]:
    """A `ChatModel` for `target`, open until the block exits (a served model is stopped then).

    Args:
        target: an OpenAI-compatible base URL (`http(s)://...`); an embedded name ("embedded",
            "teacher"); a Hugging Face model directory or `.gguf` file; or None:
            `$ASTRA_LLM_BASE_URL` when set, else the `default` embedded model (announced).
        model_name: the model name to request at an endpoint (default `$ASTRA_LLM_MODEL`, else
            the server's first); the served name for a local model.
        api_key: bearer token for an endpoint (default `$ASTRA_LLM_API_KEY`).
        backend: how a local model runs (`LocalBackend`); a `.gguf` file always runs in this
            process (vLLM needs a model directory).
        settings: default sampling settings of the model.
        max_concurrency: requests in flight at once (endpoint models).
        timeout_s: limit for one request (endpoint models).
        vllm_options: vLLM settings (default: a 16k context).
        startup_timeout_s: how long a served model may take to answer.
        default: the embedded model used when there is no target and no endpoint: "embedded"
            (the student) for a policy, "teacher" for synthesis, emulators and judges.
        announce: where progress lines go (default: stderr).

    Raises:
        UserError: `target` is neither a URL nor an existing path nor "embedded", or
            backend="vllm" without vLLM installed, or torch is missing for the local backend.
        ModelError: the local model could not be loaded or served.
    """
    if target is None:
        target = os.environ.get(ENV_BASE_URL) or None
        if target is None:
            ignored = f" (model name {model_name!r} ignored)" if model_name else ""
            announce(f"model: no endpoint given (--base-url or ${ENV_BASE_URL}); starting the embedded model {default!r}{ignored}")
            target, model_name = default, None
    if is_endpoint_target(target):
        async with OpenAIChatModel(
            model_name, base_url=target, api_key=api_key, settings=settings, max_concurrency=max_concurrency, timeout_s=timeout_s
        ) as remote:
            yield remote
        return
    if not is_local_target(target):
        known = "', '".join(EMBEDDED_MODELS)
        raise UserError(f"model target {target!r}: not an http(s):// URL, '{known}', or an existing model directory or .gguf file")
    gguf = target.endswith(".gguf")
    if backend == "vllm" or (backend == "auto" and not gguf and await anyio.to_thread.run_sync(find_vllm_python) is not None):
        announce(f"model: serving {target} with vLLM (the first start compiles for a few minutes) …")
        options = vllm_options or VllmOptions(max_model_len=_SYNTHESIS_CONTEXT)
        async with serve_model(
            target, served_name=model_name, backend="vllm", options=options,
            startup_timeout_s=startup_timeout_s,
        ) as served:  # fmt: skip
            announce(f"model: {served.model_name} via {served.backend} at {served.base_url}")
            async with OpenAIChatModel(
                served.model_name, base_url=served.base_url, settings=settings, max_concurrency=max_concurrency, timeout_s=timeout_s
            ) as remote:
                yield remote
        return
    from agent_sdk._local import LocalChatModel

    announce(f"model: loading {target} in this process with transformers …")
    local = await anyio.to_thread.run_sync(lambda: LocalChatModel(target, name=model_name, settings=settings))
    announce(f"model: {local.name} via transformers in this process")
    yield local


_WEIGHTS = ("*.safetensors", "*.bin", "*.gguf", "*.pt")


def model_fingerprint(target: str) -> str:
    """What `target` is, exactly: an embedded model's pinned GGUF hash, the sha256 of a directory's or
    file's weights, or an endpoint URL (an endpoint that changes its weights keeps its fingerprint).

    A result computed with a model (an evaluation file) is reused only under the same fingerprint:
    a directory retrained in place keeps its path and changes its weights.
    """
    if target in EMBEDDED_MODELS:
        return f"embedded:{EMBEDDED_MODELS[target].gguf_sha256}"
    if target in ADAPTED_MODELS:
        target = str(ADAPTED_MODELS[target].adapter)
    path = Path(target)
    if is_endpoint_target(target) or not path.exists():
        return f"endpoint:{target}"
    files = [path] if path.is_file() else sorted(f for pattern in _WEIGHTS for f in path.rglob(pattern) if f.is_file())
    digest = hashlib.sha256()
    for f in files:
        digest.update(f.name.encode())
        with f.open("rb") as handle:
            while chunk := handle.read(1 << 22):
                digest.update(chunk)
    return f"weights:{digest.hexdigest()}" if files else f"path:{path.resolve()}"
