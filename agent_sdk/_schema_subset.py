"""The part of a JSON Schema that decoding engines can enforce.

Grammar engines compile a schema into a token mask; some assertions have no grammar
(xgrammar, vLLM's default, refuses `uniqueItems`, `contains`, `multipleOf`, `allOf` and
`minProperties` with HTTP 400). Refused, a request falls back to an unconstrained reply that a
small model may fill with a copy of the schema itself. So the schema sent for enforcement
drops those assertions; the caller still validates the reply against the full schema, so
nothing a dropped keyword asserted goes unchecked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["enforceable_schema", "map_schemas"]

_UNENFORCEABLE = frozenset({"uniqueItems", "contains", "minContains", "maxContains", "multipleOf", "minProperties", "maxProperties"})
_SCHEMA_MAPS = frozenset({"properties", "$defs", "definitions", "patternProperties", "dependentSchemas"})


def map_schemas(schema: Any, rewrite: Callable[[dict[str, Any]], dict[str, Any]]) -> Any:
    """`schema` with `rewrite` applied to every schema object in it, innermost first.

    `rewrite` sees each object with its subschemas already rewritten. The keys of
    `properties`, `$defs` and the other maps of named subschemas are names, not keywords, so
    the map itself is not handed to `rewrite`: a property named "title" is never taken for
    the `title` keyword.
    """
    if isinstance(schema, list):
        return [map_schemas(s, rewrite) for s in schema]
    if not isinstance(schema, dict):
        return schema
    return rewrite({
        key: {name: map_schemas(sub, rewrite) for name, sub in value.items()} if key in _SCHEMA_MAPS and isinstance(value, dict) else map_schemas(value, rewrite)
        for key, value in schema.items()
    })


def enforceable_schema(schema: Any) -> Any:
    """`schema` without the assertions grammar engines cannot compile; `allOf` of objects is merged.

    Only ever weakens the schema, never strengthens it: every value valid under `schema` is
    valid under the result.
    """
    return map_schemas(schema, _enforceable_object)


def _enforceable_object(schema: dict[str, Any]) -> dict[str, Any]:
    out = {key: value for key, value in schema.items() if key not in _UNENFORCEABLE}
    for part in out.pop("allOf") if isinstance(out.get("allOf"), list) else ():
        # A shallow merge keeps each keyword the first part set; a later part's other value for
        # the same keyword is dropped, which only admits more values.
        for key, value in part.items() if isinstance(part, dict) else ():
            out.setdefault(key, value)
    return out
