"""Which local model a target names: an embedded name, a shipped adapter's name, a model
directory, an adapter directory or a `.gguf` file, and the path training and serving load."""

from __future__ import annotations

from pathlib import Path

from agent_sdk._adapted import ADAPTED_MODELS, is_adapter_dir, merged_adapter_dir
from agent_sdk._embedded import EMBEDDED_MODELS, embedded_model_dir, is_endpoint_target
from agent_sdk.exceptions import UserError

__all__ = ["is_local_target", "local_model_path", "served_model_name"]


def is_local_target(target: str | None) -> bool:
    """Whether `target` names a model to run here (an embedded name, a shipped adapter's name, a directory,
    an adapter directory, a .gguf file), not an endpoint."""
    if not target or is_endpoint_target(target):
        return False
    return target in EMBEDDED_MODELS or target in ADAPTED_MODELS or Path(target).expanduser().exists()


def local_model_path(target: str | Path) -> Path:
    """The local model `target` names, as a path training can load: an embedded name becomes its
    cached Hugging Face directory (built on first use); a shipped adapter's name or an adapter
    directory becomes the adapter merged into its base (`agent_sdk._adapted`, cached); a
    directory or `.gguf` file is itself.

    Raises:
        UserError: `target` is a URL or names nothing here.
        ModelError: an embedded model could not be built (chunk packages missing or corrupt).
    """
    if str(target) in EMBEDDED_MODELS:
        return embedded_model_dir(model=str(target))
    if str(target) in ADAPTED_MODELS:
        return merged_adapter_dir(ADAPTED_MODELS[str(target)].adapter)
    if not is_local_target(str(target)):
        known = "', '".join([*EMBEDDED_MODELS, *ADAPTED_MODELS])
        raise UserError(f"model {target!r}: not '{known}', nor an existing model directory or .gguf file")
    if is_adapter_dir(target):
        return merged_adapter_dir(target)
    return Path(target).expanduser()


def served_model_name(target: str | Path) -> str:
    """The name a local model is served and recorded under: an embedded or shipped model's own, else its directory's name (a file's stem)."""
    known = EMBEDDED_MODELS.get(str(target)) or ADAPTED_MODELS.get(str(target))
    if known:
        return known.served_name
    path = Path(target).expanduser().resolve()
    return path.stem if path.is_file() else path.name
