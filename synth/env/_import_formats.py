"""Reading ASTRA's two row formats into one typed `ParsedRow` (no tool code runs here).

1. Pipeline output of ASTRA's env_synthesis (steps 1–5): `decomposition_trace` (sub-QA nodes
   with `_uuid` and `dependency`) plus `env_result` (per node: `tool_document`, `code`,
   `tool_call_statement`); the golden call of a node is its statement, read with `ast`.
2. Released RL rows: `tool_schema`, `tool_dict` and `sub_qa_dict` (index-keyed object or list);
   they carry no golden calls, so their subtasks are left for the search in `_import_search`.

Tolerated variations: any field as JSON text, `sub_question`/`sub_answer` for
`question`/`answer`, dependencies as null, "null", "None", "", an id, a string or a list, and
extra keys. What is wrong is reported as a `Defect`, never repaired silently; a row that cannot
be read at all raises `RowError`.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from agent_sdk import format_validation_error
from mcp_servers import CheckCode, GoldenCall, ToolSpec, canonical_json
from synth.exceptions import RowError

CHECK_CODES: tuple[CheckCode, ...] = CheckCode.load_declarations(__name__)
"""The code this module adds to the `env_import` family (`importer` declares the others)."""

_NO_DEPENDENCY = {"", "null", "none", "[]"}
_JSON_NAMES = {"true": True, "false": False, "null": None}


class Defect(BaseModel):
    """One problem found in an imported row."""

    code: str = Field(description="A code of the `env_import` or `verify` family (`astra checks`).")
    message: str = Field(description="What is wrong, for a human.")
    subtask_id: str | None = Field(default=None, description="The subtask concerned, if any.")
    tool: str | None = Field(default=None, description="The tool concerned, if any.")


class ParsedTool(BaseModel):
    """One tool of a row: its schema and the source that defines it."""

    spec: ToolSpec
    code: str


class ParsedSubtask(BaseModel):
    """One sub-question of a row, with its golden call when the row states one."""

    id: str
    question: str
    answer: str
    depends_on: list[str] = Field(default_factory=list)
    needs_tool: bool = True
    golden_call: GoldenCall | None = None
    tool: str | None = Field(default=None, description="The node's own tool (pipeline rows): a search tries only it.")
    searchable: bool = Field(default=True, description="False when the row said how to call it but that could not be read.")


class ParsedRow(BaseModel):
    """A row of either format, ready for the golden-call search and assembly."""

    kind: Literal["pipeline", "rl"]
    query: str
    answer: str | None = None
    domain: str | None = None
    language: str | None = None
    tools: list[ParsedTool] = Field(default_factory=list, description="Usable tools, unique by name (a duplicate keeps the first).")
    subtasks: list[ParsedSubtask]
    defects: list[Defect] = Field(default_factory=list)


def decode(value: Any) -> Any:
    """`value`, or what it holds when it is JSON text (released rows encode nested fields)."""
    if isinstance(value, str) and value.strip()[:1] in {"{", "["}:
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _text(row: Mapping[str, Any], *keys: str) -> str | None:
    for key in keys:
        value = row.get(key)
        if isinstance(value, str | int | float) and not isinstance(value, bool) and str(value).strip():
            return str(value).strip()
    return None


def _query(row: Mapping[str, Any]) -> str | None:
    query = _text(row, "query", "main_question", "question")
    if query:
        return query
    prompt = decode(row.get("prompt"))
    if isinstance(prompt, list):
        users = [m.get("content") for m in prompt if isinstance(m, dict) and m.get("role") == "user"]
        if users and isinstance(users[-1], str) and users[-1].strip():
            return users[-1].strip()
    return None


def node_id(value: Any) -> str:
    """A sub-question id as text: 1, 1.0, "1" and " 1 " are all "1".

    Raises:
        ValueError: for a value that cannot be an id (a bool, an object, an empty string).
    """
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(f"{value!r} is not a sub-question id")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value).strip()
    if not text:
        raise ValueError("empty sub-question id")
    return str(int(text)) if text.isdigit() else text


def parse_dependencies(value: Any) -> list[str]:
    """Dependency ids from any of ASTRA's spellings: null, "null", "None", "", 3, "3", "1, 2", [1, "2"].

    Raises:
        ValueError: for a value no spelling explains.
    """
    if value is None:
        return []
    if isinstance(value, str):
        text = value.strip()
        if text.casefold() in _NO_DEPENDENCY:
            return []
        if text.startswith("["):
            return parse_dependencies(decode(text))
        return [node_id(part) for part in text.split(",") if part.strip()]
    if isinstance(value, list | tuple):
        return [d for item in value for d in parse_dependencies(item)]
    return [node_id(value)]


def tool_spec(raw: Any) -> ToolSpec:
    """A `ToolSpec` from an OpenAI-style function schema, wrapped in `{"type": "function"}` or bare.

    Raises:
        ValueError: naming what is missing or invalid.
    """
    raw = decode(raw)
    fn = raw.get("function", raw) if isinstance(raw, dict) else None
    if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
        raise ValueError(f"not a function schema with a name: {str(raw)[:120]!r}")
    parameters = decode(fn.get("parameters"))
    try:
        return ToolSpec(
            name=fn["name"].strip(),
            description=str(fn.get("description") or "").strip() or fn["name"],
            input_schema=parameters if parameters is not None else {"type": "object", "properties": {}},
        )
    except ValidationError as exc:
        raise ValueError(f"tool {fn['name']!r}: {format_validation_error(exc)}") from exc


def _literal(node: ast.expr) -> Any:
    if isinstance(node, ast.Name) and node.id in _JSON_NAMES:
        return _JSON_NAMES[node.id]
    value = ast.literal_eval(node)
    if isinstance(value, set | frozenset | bytes | complex):
        raise ValueError(f"{type(value).__name__} is not a JSON value")
    return json.loads(json.dumps(value))  # tuples become lists, as a JSON client would send them


def parse_call_statement(statement: str, tools: Mapping[str, ToolSpec]) -> GoldenCall:
    """The golden call in a `tool_call_statement` such as `find(name="A", date="2025-09-20")`.

    One call of a known tool (optionally inside `print(...)` or assigned to a name) with literal
    arguments; positional arguments take the schema's parameter order. The text is parsed with
    `ast`, never evaluated.

    Raises:
        ValueError: saying why the statement is not such a call.
    """
    try:
        tree = ast.parse(statement.strip())
    except SyntaxError as exc:
        raise ValueError(f"does not parse: {exc.msg}") from exc
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr | ast.Assign):
        raise ValueError("expected exactly one call expression")
    call = tree.body[0].value
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "print" and len(call.args) == 1 and not call.keywords:
        call = call.args[0]
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
        raise ValueError("expected a call of a tool by its name")
    tool = tools.get(call.func.id)
    if tool is None:
        raise ValueError(f"calls {call.func.id!r}, which is not a tool of this row")
    params = list((tool.input_schema.get("properties") or {}).keys())
    if len(call.args) > len(params):
        raise ValueError(f"{len(call.args)} positional arguments, but {tool.name} declares {len(params)} parameters")
    arguments: dict[str, Any] = {}
    try:
        for name, node in zip(params, call.args, strict=False):
            if isinstance(node, ast.Starred):
                raise ValueError("*args is not a literal argument")
            arguments[name] = _literal(node)
        for kw in call.keywords:
            if kw.arg is None:
                raise ValueError("**kwargs is not a literal argument")
            if kw.arg in arguments:
                raise ValueError(f"argument {kw.arg!r} given twice")
            arguments[kw.arg] = _literal(kw.value)
    except (ValueError, TypeError, SyntaxError, RecursionError) as exc:
        raise ValueError(f"arguments are not literals: {exc}") from exc
    return GoldenCall(tool=tool.name, arguments=arguments)


def _add_tool(tools: dict[str, ParsedTool], tool: ParsedTool, defects: list[Defect], where: str) -> None:
    """Keep the first tool of a name; a second one that differs is a `duplicate_tool_name`."""
    first = tools.get(tool.spec.name)
    if first is None:
        tools[tool.spec.name] = tool
    elif (canonical_json(first.spec.model_dump()), first.code.strip()) != (canonical_json(tool.spec.model_dump()), tool.code.strip()):
        what = "schema" if first.spec != tool.spec else "implementation"
        defects.append(Defect(code="duplicate_tool_name", tool=tool.spec.name,
                              message=f"{where} defines {tool.spec.name!r} twice with a different {what}; only the first would be served"))


def _id(value: Any, where: str) -> str:
    try:
        return node_id(value)
    except ValueError as exc:
        raise RowError(f"{where}: {exc}") from exc


def _rl_entries(raw: Any) -> list[tuple[str, dict[str, Any]]]:
    if isinstance(raw, dict):
        items = [(_id(k, "sub_qa_dict"), v) for k, v in raw.items()]
    elif isinstance(raw, list):
        items = [(_id(v.get("id", v.get("_uuid", i)), f"sub_qa_dict[{i - 1}].id") if isinstance(v, dict) else str(i), v)
                 for i, v in enumerate(raw, 1)]
    else:
        raise RowError("sub_qa_dict: expected an object keyed by sub-question index, or a list")
    for key, value in items:
        if not isinstance(value, dict):
            raise RowError(f"sub_qa_dict[{key}]: expected an object with question and answer")
    return items


def _subtask(key: str, entry: Mapping[str, Any], where: str) -> ParsedSubtask:
    question = _text(entry, "question", "sub_question")
    answer = _text(entry, "answer", "sub_answer")
    if question is None or answer is None:
        raise RowError(f"{where}: needs question (or sub_question) and answer (or sub_answer)")
    try:
        deps = parse_dependencies(entry.get("dependency", entry.get("dependencies", entry.get("depends_on"))))
    except ValueError as exc:
        raise RowError(f"{where}: dependency: {exc}") from exc
    return ParsedSubtask(id=key, question=question, answer=answer, depends_on=deps)


def _parse_rl(row: Mapping[str, Any], query: str) -> ParsedRow:
    schemas, codes = decode(row.get("tool_schema")), decode(row.get("tool_dict"))
    if not isinstance(schemas, list) or not isinstance(codes, dict):
        raise RowError("an RL row needs tool_schema (a list) and tool_dict (an object)")
    defects: list[Defect] = []
    tools: dict[str, ParsedTool] = {}
    for i, raw in enumerate(schemas):
        try:
            spec = tool_spec(raw)
        except ValueError as exc:
            defects.append(Defect(code="schema_invalid", message=f"tool_schema[{i}]: {exc}"))
            continue
        if spec.name in tools:
            same = tools[spec.name].spec == spec
            defects.append(Defect(code="duplicate_tool_name", tool=spec.name, message=f"tool_schema lists {spec.name!r} twice"
                                  f"{' (identical schemas)' if same else ' with different schemas'}; tool_dict keeps one implementation"))
        elif not isinstance(codes.get(spec.name), str) or not codes[spec.name].strip():
            defects.append(Defect(code="tool_missing", tool=spec.name, message=f"tool_dict has no code for {spec.name!r}"))
        else:
            tools[spec.name] = ParsedTool(spec=spec, code=codes[spec.name])
    subtasks = [_subtask(key, entry, f"sub_qa_dict[{key}]") for key, entry in _rl_entries(decode(row.get("sub_qa_dict")))]
    return ParsedRow(kind="rl", query=query, tools=list(tools.values()), subtasks=subtasks, defects=defects)


def _node_tool(entry: Mapping[str, Any], where: str) -> tuple[ParsedTool, str | None]:
    """The tool a pipeline node synthesized, and its call statement (None when absent)."""
    result = decode(entry.get("env_synthesis_result"))
    data = decode(result.get("data")) if isinstance(result, dict) else None
    if not isinstance(data, dict):
        raise ValueError(f"{where}.env_synthesis_result.data is missing")
    spec = tool_spec(data.get("tool_document"))
    code = data.get("code")
    if not isinstance(code, str) or not code.strip():
        raise ValueError(f"{where}: no code for {spec.name!r}")
    statement = data.get("tool_call_statement")
    return ParsedTool(spec=spec, code=code), statement.strip() if isinstance(statement, str) and statement.strip() else None


def _parse_pipeline(row: Mapping[str, Any], query: str) -> ParsedRow:
    trace, results = decode(row.get("decomposition_trace")), decode(row.get("env_result")) or {}
    if not isinstance(trace, list) or not isinstance(results, dict):
        raise RowError("a pipeline row needs decomposition_trace (a list) and env_result (an object keyed by _uuid)")
    results = {_id(k, "env_result"): v for k, v in results.items()}
    defects: list[Defect] = []
    tools: dict[str, ParsedTool] = {}
    nodes: list[tuple[ParsedSubtask, str | None]] = []
    for i, node in enumerate(trace, 1):
        if not isinstance(node, dict):
            raise RowError(f"decomposition_trace[{i - 1}]: expected an object")
        key = _id(node.get("_uuid", node.get("uuid", i)), f"decomposition_trace[{i - 1}]._uuid")
        sub = _subtask(key, node, f"decomposition_trace[{i - 1}]")
        entry = decode(results.get(key))
        necessity = node.get("tool_necessity")
        sub.needs_tool = necessity not in (False, "false", "False") if necessity is not None else entry is not None
        statement = None
        if sub.needs_tool and not isinstance(entry, dict):
            sub.searchable = False
            defects.append(Defect(code="golden_call_missing", subtask_id=key, message="env_result is null: ASTRA synthesized no tool for this node"))
        elif sub.needs_tool:
            try:
                tool, statement = _node_tool(entry, f"env_result[{key}]")
            except ValueError as exc:
                sub.searchable = False
                defects.append(Defect(code="schema_invalid", subtask_id=key, message=str(exc)))
            else:
                _add_tool(tools, tool, defects, "env_result")
                sub.tool = tool.spec.name
        nodes.append((sub, statement))
    specs = {name: t.spec for name, t in tools.items()}
    for sub, statement in nodes:
        if statement is None:
            continue
        try:
            sub.golden_call = parse_call_statement(statement, specs)
        except ValueError as exc:
            sub.searchable = False
            defects.append(Defect(code="golden_call_missing", subtask_id=sub.id, tool=sub.tool, message=f"tool_call_statement {statement[:200]!r}: {exc}"))
    return ParsedRow(kind="pipeline", query=query, answer=_text(row, "main_answer", "answer", "final_answer"),
                     tools=list(tools.values()), subtasks=[s for s, _ in nodes], defects=defects)


def parse_row(row: Mapping[str, Any]) -> ParsedRow:
    """Read one row of either ASTRA format.

    Raises:
        RowError: when the row is neither format, or lacks a query, sub-questions or their answers.
    """
    query = _query(row)
    if query is None:
        raise RowError("no query: expected query, main_question, or a user message in prompt")
    if "decomposition_trace" in row:
        parsed = _parse_pipeline(row, query)
    elif "tool_schema" in row or "sub_qa_dict" in row:
        parsed = _parse_rl(row, query)
        parsed.answer = _text(row, "answer", "main_answer", "final_answer")
    else:
        raise RowError("neither ASTRA format: expected decomposition_trace + env_result, or tool_schema + tool_dict + sub_qa_dict")
    if not parsed.subtasks:
        raise RowError("no sub-questions")
    ids = [s.id for s in parsed.subtasks]
    for sid in sorted({i for i in ids if ids.count(i) > 1}):
        parsed.defects.append(Defect(code="schema_invalid", subtask_id=sid, message=f"sub-question id {sid!r} appears twice"))
    for s in parsed.subtasks:
        for dep in s.depends_on:
            if dep not in ids:
                parsed.defects.append(Defect(code="schema_invalid", subtask_id=s.id, message=f"depends on unknown sub-question {dep!r}"))
    parsed.domain = _text(row, "domain")
    parsed.language = _text(row, "language", "lang")
    return parsed
