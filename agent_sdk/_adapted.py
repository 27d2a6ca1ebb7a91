"""Adapters as models: a LoRA adapter directory, or the trained student shipped with the project.

An adapter directory (peft's `adapter_config.json` + `adapter_model.safetensors`) names its base
in `base_model_name_or_path`: an embedded name ("embedded") or a model directory. Used as a model
target, it is merged into its base once and cached as an ordinary model directory under
`<cache>/models/adapted-<sha256 prefix>/`, which vLLM, the local backend and training load like
any other. The merge keeps float32 weights: a LoRA update is small beside the weight it is added
to, and rounding the sum to bfloat16 on disk would drop part of it.

`student-trained` is the adapter the project ships (`agent_sdk/adapters/student-trained/`, with its
model card): the embedded student after a cold start on environments synthesized from worlds.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from agent_sdk._embedded import EMBEDDED_MODELS, embedded_model_dir, load_causal_lm, load_tokenizer
from agent_sdk._model_cache import build_cached, cache_dir
from agent_sdk.exceptions import ModelError

__all__ = ["ADAPTED_MODELS", "STUDENT_TRAINED", "AdaptedModel", "is_adapter_dir", "merged_adapter_dir"]

ADAPTER_CONFIG = "adapter_config.json"
_MARKER = "astra-adapted.json"
_PACKAGED = Path(__file__).resolve().parent / "adapters"


@dataclass(frozen=True, kw_only=True)
class AdaptedModel:
    """An adapter shipped with the project, served under its own name."""

    target: str
    """The name a model target uses for it."""
    served_name: str
    """The name it is served and recorded under."""
    adapter: Path
    """The adapter directory."""


STUDENT_TRAINED = AdaptedModel(target="student-trained", served_name="astra-student-0.5b", adapter=_PACKAGED / "student-trained")
"""The embedded student after a cold start on world environments (see its model card)."""

ADAPTED_MODELS: dict[str, AdaptedModel] = {m.target: m for m in (STUDENT_TRAINED,) if (m.adapter / ADAPTER_CONFIG).is_file()}
"""The shipped adapters by target name (those whose files are present)."""


def is_adapter_dir(path: str | Path) -> bool:
    """Whether `path` is a peft adapter directory."""
    return (Path(path).expanduser() / ADAPTER_CONFIG).is_file()


def _fingerprint(adapter: Path) -> str:
    digest = hashlib.sha256()
    for name in (ADAPTER_CONFIG, "adapter_model.safetensors"):
        file = adapter / name
        if not file.is_file():
            raise ModelError(f"{adapter}: no {name}; not a complete adapter directory")
        digest.update(name.encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()


def _base_dir(adapter: Path) -> Path:
    """The base model directory the adapter names."""
    base = json.loads((adapter / ADAPTER_CONFIG).read_text(encoding="utf-8")).get("base_model_name_or_path")
    if not base:
        raise ModelError(f"{adapter / ADAPTER_CONFIG}: base_model_name_or_path is empty; name the base model the adapter was trained on")
    if base in EMBEDDED_MODELS:
        return embedded_model_dir(model=base)
    path = Path(base).expanduser()
    if not path.exists():
        raise ModelError(f"{adapter / ADAPTER_CONFIG}: base model {base!r} is neither an embedded name ({', '.join(EMBEDDED_MODELS)}) nor a path here")
    return path


def merged_adapter_dir(adapter: str | Path, root: Path | None = None) -> Path:
    """The model directory of `adapter` merged into its base, built on first use and cached by the adapter's content.

    Raises:
        ModelError: the adapter is incomplete, its base cannot be found, or peft is missing.
    """
    adapter = Path(adapter).expanduser().resolve()
    fingerprint = _fingerprint(adapter)

    def build(work: Path, out: Path) -> None:
        try:
            import torch
            from peft import PeftModel
        except ImportError as exc:
            raise ModelError(f"{adapter}: merging an adapter needs the local extra (torch, peft): {exc}") from exc
        tokenizer, base = load_causal_lm(_base_dir(adapter), dtype=torch.float32)
        if (adapter / "tokenizer_config.json").is_file():
            tokenizer = load_tokenizer(adapter)  # the chat template the adapter was trained with
        merged = PeftModel.from_pretrained(base, str(adapter)).merge_and_unload()
        merged.save_pretrained(out)
        tokenizer.save_pretrained(out)
        (out / _MARKER).write_text(json.dumps({"adapter_sha256": fingerprint, "adapter": str(adapter)}))

    target = (root or cache_dir()) / "models" / f"adapted-{fingerprint[:16]}"
    return build_cached(target, lambda built: _is_complete(built, fingerprint), build)


def _is_complete(target: Path, fingerprint: str) -> bool:
    try:
        marker = json.loads((target / _MARKER).read_text())
    except (OSError, ValueError):
        return False
    return marker.get("adapter_sha256") == fingerprint
