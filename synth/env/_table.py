"""Table-backed tool implementations: the model writes data rows, the pipeline writes the code.

A synthesized tool is a lookup over a `DATA` table keyed by its required arguments (stripped
and casefolded, in schema order). The golden rows come from the sub-answers; the model adds
other plausible rows through a structured request whose size is bounded by the schema.
Left to write whole functions, the embedded 0.5B model returned stubs, echoes and
`datetime.now()`, reworded answers until no golden call returned them, and repeated rows until
`max_tokens` cut the module mid-literal. Asked for whole rows, it kept the golden input in
every one; so it proposes other inputs first, and the rows' schema then fixes their keys.
What is left to fail is content: a row that restates a golden answer is left out, and a
reply with no other row is fed back.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from mcp_servers import answer_in_output

__all__ = [
    "DETAILS", "OtherInputs", "TableRow", "TableRows", "answer_field", "data_key", "inputs_schema", "key_parameters", "new_keys", "render_table_tool",
    "rows_problem", "rows_schema", "usable_rows",
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


class OtherInputs(BaseModel):
    """The model's reply: other values per key parameter."""

    model_config = ConfigDict(extra="allow")


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


def inputs_schema(keys: list[str], *, count: int = 4) -> dict[str, Any]:
    """`count` other values for each key parameter."""
    values = {"type": "array", "items": _VALUE, "minItems": count, "maxItems": count}
    return {"type": "object", "properties": {k: values for k in keys}, "required": list(keys), "additionalProperties": False}


def new_keys(values: dict[str, list[str]], keys: list[str], golden: list[tuple[tuple[str, ...], str]]) -> list[tuple[str, ...]]:
    """Distinct new keys from the proposed values (the i-th value of every parameter), none of them golden."""
    taken = {k for k, _ in golden}
    out: list[tuple[str, ...]] = []
    for row in zip(*(values.get(k) or [] for k in keys), strict=False):
        key = tuple(v.strip() for v in row)
        folded = tuple(v.casefold() for v in key)
        if all(key) and folded not in taken:
            taken.add(folded)
            out.append(key)
    return out


def rows_schema(new: list[tuple[str, ...]]) -> dict[str, Any]:
    """One row per new key, in order, the key fixed: the model writes only the outputs."""
    row = [
        {
            "type": "object",
            "properties": {"key": {"const": list(key)}, "value": _VALUE, DETAILS: {"type": "string", "minLength": 1, "maxLength": 120}},
            "required": ["key", "value"],
            "additionalProperties": False,
        }
        for key in new
    ]
    return {
        "type": "object",
        "properties": {"rows": {"type": "array", "prefixItems": row, "items": False, "minItems": len(new), "maxItems": len(new)}},
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
    keys = key_parameters(schema)
    # a key the schema leaves optional (`key_parameters`' fallback) keeps its default: a scaled tool without
    # required parameters was called without it and failed with a TypeError
    required = [p for p in keys if p in (schema.get("required") or [])]
    params = ", ".join([*required, *(f"{p}=None" for p in props if p not in required)])
    lookup = "".join(f"str({p}).strip().casefold(), " for p in keys).rstrip()
    return (
        f"DATA = {{\n{lines}}}\n\n\n"
        f"def {name}({params}):\n"
        f"    row = DATA.get(({lookup}))\n"
        "    if row is None:\n"
        '        return {"error": "not found", "known": sorted(" / ".join(k) for k in DATA)}\n'
        "    return dict(row)\n"
    )
