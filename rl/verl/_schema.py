"""Fit MCP tool schemas into veRL's tool schema model without losing what it cannot hold.

veRL's `OpenAIFunctionPropertySchema` keeps only `type`, `description` and `enum` per
property and requires `type`: an MCP schema with `anyOf`, `items`, nested objects, formats,
patterns or bounds either fails validation or is silently cut down. The model still sees the
full schema (the chat template renders the original); the parser gets this sanitized copy,
where every property has a type and whatever veRL would drop is folded into its description.
"""

from __future__ import annotations

import json
from typing import Any

from verl.tools.schemas import OpenAIFunctionToolSchema

_KEPT = {"type", "description", "enum"}
_JSON_TYPES = {"string", "number", "integer", "boolean", "array", "object", "null"}


def _types_of(prop: dict[str, Any]) -> str | list[str]:
    declared = prop.get("type")
    if isinstance(declared, str) and declared in _JSON_TYPES:
        return declared
    if isinstance(declared, list) and declared and all(t in _JSON_TYPES for t in declared):
        return list(declared)
    found: list[str] = []
    for key in ("anyOf", "oneOf", "allOf"):
        for option in prop.get(key) or []:
            if isinstance(option, dict):
                sub = _types_of(option)
                for t in [sub] if isinstance(sub, str) else sub:
                    if t not in found:
                        found.append(t)
    if "enum" in prop and not found:
        kinds = {type(v).__name__ for v in prop["enum"]}
        found = ["string"] if kinds <= {"str"} else ["number"] if kinds <= {"int", "float"} else []
    if not found:
        return "string" if "const" not in prop else _types_of({"enum": [prop["const"]]})
    return found[0] if len(found) == 1 else found


def sanitize_property(prop: Any) -> dict[str, Any]:
    """A property veRL's model accepts, with the dropped keywords appended to its description."""
    if not isinstance(prop, dict):
        return {"type": "string"}
    out: dict[str, Any] = {"type": _types_of(prop)}
    dropped = {k: v for k, v in prop.items() if k not in _KEPT}
    if isinstance(prop.get("type"), (str, list)) and prop.get("type") != out["type"]:
        dropped["type"] = prop["type"]
    description = prop.get("description") if isinstance(prop.get("description"), str) else ""
    if dropped:
        extra = "JSON Schema: " + json.dumps(dropped, sort_keys=True, ensure_ascii=False)
        description = f"{description} ({extra})" if description else extra
    if description:
        out["description"] = description
    if isinstance(prop.get("enum"), list):
        out["enum"] = prop["enum"]
    return out


def sanitize_tool(tool: dict[str, Any]) -> OpenAIFunctionToolSchema:
    """veRL's schema of an OpenAI-style tool dict (as `Toolbox.openai_tools()` returns)."""
    function = tool.get("function", tool)
    params = function.get("parameters") or {}
    properties = params.get("properties") if isinstance(params.get("properties"), dict) else {}
    required = [r for r in params.get("required") or [] if isinstance(r, str) and r in properties]
    return OpenAIFunctionToolSchema.model_validate(
        {
            "type": "function",
            "function": {
                "name": function["name"],
                "description": function.get("description") or "",
                "parameters": {
                    "type": "object",
                    "properties": {name: sanitize_property(p) for name, p in properties.items()},
                    "required": required,
                },
            },
        }
    )
