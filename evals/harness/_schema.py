"""Function docs in the benchmarks' Python-flavoured schema dialect, as JSON Schema for MCP."""

from __future__ import annotations

from typing import Any

__all__ = ["doc_to_schema"]

_TYPE_MAP = {"dict": "object", "float": "number", "tuple": "array", "list": "array", "any": None}


def doc_to_schema(params: dict[str, Any]) -> dict[str, Any]:
    """A JSON Schema for a BFCL/ACEBench parameter doc (`dict`, `float`, `tuple`, `list` mapped to JSON types)."""
    out: dict[str, Any] = {}
    for key, value in params.items():
        if key == "type":
            mapped = _TYPE_MAP.get(value, value)
            if mapped is not None:
                out["type"] = mapped
        elif key == "properties":
            out["properties"] = {name: doc_to_schema(p) for name, p in value.items()}
        elif key == "items":
            out["items"] = doc_to_schema(value)
        else:
            out[key] = value
    if out.get("type") == "object":
        out.setdefault("properties", {})
    return out
