"""A content-addressed on-disk cache of LLM responses, so that re-running a pipeline costs nothing.

The key is the SHA-256 of the model name, the messages, the tool schemas and the sampling
settings (the output schema of a constrained request included), serialized canonically.
Each entry is one JSON file written atomically (temp file + rename), so a crash never leaves
a half-written entry behind and concurrent runs that compute the same key simply overwrite
each other with the same content.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agent_sdk import ChatMessage, ModelResponse, SamplingSettings

__all__ = ["LLMCache", "cache_key"]


def cache_key(
    model_name: str,
    messages: Sequence[ChatMessage],
    tools: Sequence[dict[str, Any]] | None = None,
    settings: SamplingSettings | None = None,
) -> str:
    """The hex SHA-256 that identifies one model request."""
    material = {
        "model": model_name,
        "messages": [m.model_dump(mode="json") for m in messages],
        "tools": list(tools) if tools else None,
        "settings": _settings_material(settings),
    }
    blob = json.dumps(material, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


def _settings_material(settings: SamplingSettings | None) -> dict[str, Any] | None:
    if settings is None:
        return None
    # Fields added later are left out while unset, so a request keys as it did before they existed: caches stay valid.
    unset = {name for name in ("output_schema", "return_tokens", "top_logprobs") if getattr(settings, name) is None}
    material = settings.model_dump(mode="json", exclude=unset or None)
    if settings.output_schema is not None:
        # the key is serialized with sorted keys, but an engine generates properties in the schema's order
        material["output_schema_order"] = json.dumps(settings.output_schema, ensure_ascii=False)
    return material


class LLMCache:
    """Responses stored under `root/<key[:2]>/<key>.json`.

    A corrupt or unreadable entry counts as a miss (and is overwritten by the next `put`),
    never as an error: the cache is an optimisation, not a source of truth.
    """

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> ModelResponse | None:
        """The cached response for `key`, or None."""
        path = self._path(key)
        try:
            return ModelResponse.model_validate_json(path.read_bytes())
        except (OSError, ValidationError, ValueError):
            return None

    def put(self, key: str, response: ModelResponse) -> None:
        """Store `response` under `key` atomically."""
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(response.model_dump_json().encode())
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def __len__(self) -> int:
        return sum(1 for _ in self.root.glob("*/*.json")) if self.root.is_dir() else 0
