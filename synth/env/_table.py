"""Table-backed tool implementations: the model writes data rows, the pipeline writes the code.

A synthesized tool is a lookup over a `DATA` table keyed by its required arguments (stripped
and casefolded, in schema order). The golden rows come from the sub-answers; the model adds
other plausible rows through a structured request whose size is bounded by the schema.
Left to write whole functions, the embedded 0.5B model returned stubs, echoes and
`datetime.now()`, reworded answers until no golden call returned them, and repeated rows until
`max_tokens` cut the module mid-literal. As rows it can fail only on content: a row that
repeats a golden input or restates a golden answer is left out, and a reply with no other
row is fed back.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from mcp_servers import answer_in_output

__all__ = [
    "DETAILS", "TableRow", "TableRows", "answer_field", "data_key", "key_parameters", "render_table_tool", "rows_problem", "rows_schema",
    "usable_rows",
]

DETAILS = "details"
"""The optional free-text field a model-written row may carry beside the answer field."""

_VERBS = ("get_", "find_", "search_", "lookup_", "look_up_", "fetch_", "query_", "check_", "calculate_", "convert_", "list_", "retrieve_")
_VALUE = {"type": "string", "minLength": 1, "maxLength": 80}


class TableRow(BaseModel):
    """One model-written row: the key (required argument values, in order) and the output fields."""

    key: list[str] = Field(min_length=1)
    value: str = Field(min_length=1, description="The answer field's value for this key.")
    details: str | None = None


class TableRows(BaseModel):
    """The model's reply: rows to add around the golden ones."""

    rows: list[TableRow] = Field(min_length=1)


def key_parameters(schema: dict[str, Any]) -> list[str]:
    """The parameters a row is keyed by: the required ones, in schema order (else the first)."""
    props = list((schema.get("properties") or {}).keys())
    return [p for p in schema.get("required") or [] if p in props] or props[:1]


def answer_field(name: str) -> str:
    """The output field holding the answer: the tool name without its verb (`get_sunset_time` -> `sunset_time`)."""
    lowered = name.lower()
    field = next((lowered[len(v):] for v in _VERBS if lowered.startswith(v) and len(lowered) > len(v)), lowered)
    return field if field.isidentifier() and field != DETAILS else "result"


def data_key(schema: dict[str, Any], arguments: dict[str, Any]) -> tuple[str, ...]:
    """The `DATA` key the lookup computes for `arguments`."""
    return tuple(str(arguments.get(p)).strip().casefold() for p in key_parameters(schema))


def rows_schema(keys: int, *, most: int = 5) -> dict[str, Any]:
    """Three to `most` rows, each with exactly `keys` key values: the schema bounds the reply."""
    row = {
        "type": "object",
        "properties": {
            "key": {"type": "array", "prefixItems": [_VALUE] * keys, "items": False, "minItems": keys, "maxItems": keys},
            "value": _VALUE,
            DETAILS: {"type": "string", "minLength": 1, "maxLength": 120},
        },
        "required": ["key", "value"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {"rows": {"type": "array", "items": row, "minItems": 3, "maxItems": most}},
        "required": ["rows"],
        "additionalProperties": False,
    }


def usable_rows(rows: list[TableRow], golden: list[tuple[tuple[str, ...], str]]) -> list[TableRow]:
    """The rows that can stand beside the golden ones: new inputs that do not restate a golden answer.

    A row repeating a golden input (the embedded model copied the row it was shown in 5 of
    7 tools) or giving a golden answer for another input (which would make the answer no
    evidence of the right call) is left out; the golden rows always stand.
    """
    taken = {k for k, _ in golden}
    kept = []
    for row in rows:
        key = tuple(v.strip().casefold() for v in row.key)
        text = " ".join([row.value, row.details or ""])
        if key not in taken and not any(answer_in_output(answer, text) for _, answer in golden):
            taken.add(key)
            kept.append(row)
    return kept


def rows_problem(rows: TableRows, golden: list[tuple[tuple[str, ...], str]], keys: int) -> str | None:
    """Why a rows reply adds nothing usable to the table (None when at least one row can stand)."""
    for row in rows.rows:
        if len(row.key) != keys:
            return f"each key has exactly {keys} value(s); got {row.key}"
    if not usable_rows(rows.rows, golden):
        return "every row repeats an input already in DATA or gives one of its answers; write rows for other inputs with other values"
    return None


def render_table_tool(name: str, schema: dict[str, Any], golden: list[tuple[tuple[str, ...], str]], rows: list[TableRow]) -> str:
    """The source of a table-backed tool: `DATA` (golden rows first) and the function `name`."""
    field = answer_field(name)
    table: dict[tuple[str, ...], dict[str, str]] = {key: {field: answer} for key, answer in golden}
    for row in usable_rows(rows, golden):
        key = tuple(v.strip().casefold() for v in row.key)
        table[key] = {field: row.value, **({DETAILS: row.details} if row.details else {})}
    lines = "".join(f"    {key!r}: {value!r},\n" for key, value in table.items())
    props = list((schema.get("properties") or {}).keys())
    required = key_parameters(schema)
    params = ", ".join([*required, *(f"{p}=None" for p in props if p not in required)])
    lookup = "".join(f"str({p}).strip().casefold(), " for p in required).rstrip()
    return (
        f"DATA = {{\n{lines}}}\n\n\n"
        f"def {name}({params}):\n"
        f"    row = DATA.get(({lookup}))\n"
        "    if row is None:\n"
        '        return {"error": "not found", "known": sorted(" / ".join(k) for k in DATA)}\n'
        "    return dict(row)\n"
    )
