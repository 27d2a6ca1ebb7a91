"""JSON Schemas of synth/env requests, built per call where the shape depends on the input.

An engine that enforces the schema (`ask_structured(..., schema=)`) then cannot return the
wrong number of sub-questions, an id that is not in the sample, or a score out of range;
the pydantic models and the stage checks still validate every reply. Free text is bounded
(`maxLength`) so a small model cannot ramble until `max_tokens`.
"""

from __future__ import annotations

from typing import Any

from synth.core.values import fits_parameter

__all__ = ["CHECK_SCHEMA", "TOOL_SCHEMA", "arguments_schema", "doc_schema", "decomposition_schema", "groups_schema", "merged_doc_schema", "necessity_schema"]

_TEXT = {"type": "string", "minLength": 1, "maxLength": 400}
_SHORT = {"type": "string", "minLength": 1, "maxLength": 200}
_MAX_REQUIRED = 8
_PARAMETER = {
    "type": "object",
    "properties": {
        "type": {"enum": ["string", "integer", "number", "boolean"]},
        "description": _SHORT,
        "enum": {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 60}, "minItems": 2, "maxItems": 8},
    },
    "required": ["type", "description"],
    "additionalProperties": False,
}
_PARAMETERS = {
    "type": "object",
    "properties": {
        "type": {"const": "object"},
        # each parameter is itself a small schema: a model left free here wrote `"date": "string"`
        "properties": {"type": "object", "propertyNames": {"pattern": "^[a-z][a-z0-9_]{0,39}$"}, "additionalProperties": _PARAMETER},
        "required": {"type": "array", "items": {"type": "string", "pattern": "^[a-z][a-z0-9_]{0,39}$"}, "maxItems": _MAX_REQUIRED},
    },
    "required": ["type", "properties", "required"],
    "additionalProperties": False,
}
_ARGUMENTS = {"type": "object"}
TOOL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]{0,63}$"},
        "description": _TEXT,
        "parameters": _PARAMETERS,
    },
    "required": ["name", "description", "parameters"],
    "additionalProperties": False,
}
"""A tool document: name, description, parameters (a JSON Schema object)."""


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    """A closed object whose every property is required."""
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def decomposition_schema(min_hops: int, max_hops: int) -> dict[str, Any]:
    """A main question, its answer and `min_hops`..`max_hops` sub-questions, positionally typed.

    Sub-question i is `q<i>` and may depend only on `q1`..`q<i-1>`: a trace the engine lets
    through has unique ids, no self, unknown or forward dependencies and so no cycle; what
    a small model can still get wrong is the content (a repeated question, an unused answer).

    The fields come in the order they are thought out: a sub-question's dependencies before its
    text, and the final answer after the sub-answers it states. In the order of the record (text,
    then dependencies; answer, then sub-questions) the teacher declared `q1` after a text that
    said "this game" (27 of 50 slice rows lost as `unused_dependency`), and began 44 of 574 final
    answers with a comma, having nothing yet to state.
    """

    def sub(i: int) -> dict[str, Any]:
        earlier = [f"q{j}" for j in range(1, i)]
        depends = {"type": "array", "items": {"enum": earlier}, "maxItems": len(earlier)} if earlier else {"type": "array", "maxItems": 0}
        return _object(
            {
                "id": {"const": f"q{i}"},
                "depends_on": depends,
                "question": _TEXT,
                # the sentence first: asked for the value alone, the 0.5B wrote sentences cut off mid-way
                "statement": {"type": "string", "minLength": 1, "maxLength": 160},
                # room for an address ("2500 Parker Drive, Cleveland, OH" is 32), not for a sentence
                "answer": {"type": "string", "minLength": 1, "maxLength": 48},
            }
        )

    return _object(
        {
            "main_question": _TEXT,
            "sub_questions": {
                "type": "array", "prefixItems": [sub(i) for i in range(1, max_hops + 1)], "items": False,
                "minItems": min_hops, "maxItems": max_hops,
            },
            "final_answer": {"type": "string", "minLength": 1, "maxLength": 200},
        }
    )


def necessity_schema(ids: list[str]) -> dict[str, Any]:
    """One item per sub-question id, in the order of `ids` (each id exactly once)."""
    # the reason comes first, so a constrained model decides after it has said why
    items = [_object({"id": {"const": i}, "reason": _SHORT, "needs_tool": {"type": "boolean"}}) for i in ids]
    return _object({"items": {"type": "array", "prefixItems": items, "items": False, "minItems": len(ids), "maxItems": len(ids)}})


CHECK_SCHEMA: dict[str, Any] = _object({"reason": _SHORT, "verdict": {"enum": ["yes", "mostly", "partly", "no"]}})
"""A check's verdict: its reason first, then a word (yes, mostly, partly, no)."""


def groups_schema(ids: list[str]) -> dict[str, Any]:
    """Groups of two or more of `ids` (possibly none)."""
    group = _object(
        {
            "ids": {"type": "array", "items": {"enum": list(ids)}, "minItems": 2, "maxItems": len(ids), "uniqueItems": True},
            "intent": _SHORT,
        }
    )
    return _object({"groups": {"type": "array", "items": group, "maxItems": max(0, len(ids) // 2)}})


def doc_schema(values: list[str]) -> dict[str, Any]:
    """A tool document for a call that can take `values` (its golden call is asked for next, with `arguments_schema`).

    It requires no more parameters than there are values, and takes none when there are none
    (the tool answers for the signed-in user): left free, the teacher required 8 parameters and
    filled each with some value the user said, and told in words that the agent has no value, it
    required an id anyway in 13 of 13 retries.
    """
    if values:
        limits = {"required": {**_PARAMETERS["properties"]["required"], "maxItems": min(len(values), _MAX_REQUIRED)}}
    else:
        limits = {"properties": _object({}), "required": {"type": "array", "maxItems": 0}}
    parameters = {**_PARAMETERS, "properties": {**_PARAMETERS["properties"], **limits}}
    return _object({"tool": {**TOOL_SCHEMA, "properties": {**TOOL_SCHEMA["properties"], "parameters": parameters}}})


def arguments_schema(parameters: dict[str, Any], values: list[str] | None = None) -> dict[str, Any]:
    """The arguments of one call to a tool with these `parameters`: exactly its properties, its required ones required.

    Asked for apart from the tool document, because a model that writes both at once filled
    the arguments with schema fragments (`{"type": "string"}`). With `values` (the strings the
    sub-question and its dependencies' answers offer), a string argument must be one of them:
    the rule that golden values are copied from the sub-question is then kept by the engine,
    where a small model left free invented dates and ids.
    """
    properties: dict[str, Any] = {}
    for name, spec in (parameters.get("properties") or {}).items():
        spec = spec if isinstance(spec, dict) else {}
        own = spec.get("enum") if isinstance(spec.get("enum"), list) and spec["enum"] else None
        if spec.get("type") in ("integer", "number", "boolean") and own is None:
            properties[name] = {"type": spec["type"]}
        elif own is not None:
            offered = [v for v in own if v in (values or [])]
            properties[name] = {"enum": offered or own}
        elif values:
            # an id takes a code or a number, a date a date (`fits_parameter`); with none that fits, the check says why
            properties[name] = {"enum": [v for v in values if fits_parameter(name, v)] or list(values)}
        else:
            properties[name] = {"type": "string", "minLength": 1, "maxLength": 120}
    required = [r for r in parameters.get("required") or [] if r in properties]
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def merged_doc_schema(ids: list[str]) -> dict[str, Any]:
    """One tool document and a golden call for exactly the member `ids`."""
    return _object({"tool": TOOL_SCHEMA, "golden_calls": _object({i: _ARGUMENTS for i in ids})})
