"""The part of a JSON Schema that decoding engines can enforce.

Grammar engines compile a schema into a token mask; some assertions have no grammar
(xgrammar, vLLM's default, refuses `uniqueItems`, `contains`, `multipleOf`, `allOf` and
`minProperties` with HTTP 400). Refused, a request falls back to an unconstrained reply that a
small model may fill with a copy of the schema itself. So the schema sent for enforcement
drops those assertions; the caller still validates the reply against the full schema, so
nothing a dropped keyword asserted goes unchecked.
"""

from __future__ import annotations

from typing import Any

__all__ = ["enforceable_schema"]

_UNENFORCEABLE = frozenset({"uniqueItems", "contains", "minContains", "maxContains", "multipleOf", "minProperties", "maxProperties"})
_SCHEMA_MAPS = frozenset({"properties", "$defs", "definitions", "patternProperties", "dependentSchemas"})


def enforceable_schema(schema: Any) -> Any:
    """`schema` without the assertions grammar engines cannot compile; `allOf` of objects is merged.

    Only ever weakens the schema, never strengthens it: every value valid under `schema` is
    valid under the result.
    """
    if isinstance(schema, list):
        return [enforceable_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _UNENFORCEABLE:
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: enforceable_schema(sub) for name, sub in value.items()}
        elif key == "allOf" and isinstance(value, list):
            continue  # merged below
        else:
            out[key] = enforceable_schema(value)
    for part in schema.get("allOf") or []:
        # A shallow merge keeps each keyword the first part set; a later part's other value for
        # the same keyword is dropped, which only admits more values.
        for key, value in enforceable_schema(part).items() if isinstance(part, dict) else ():
            out.setdefault(key, value)
    return out
