"""The normalized form of tool documentation: a server and its tools as OpenAI function schemas.

Every ingest source (a live MCP server, a file of OpenAI tool schemas, ASTRA server rows,
this project's environments) ends up as a `ServerDoc`. Conversion is strict: a tool whose
description is vague or whose schema cannot become an OpenAI `parameters` object is removed
with a recorded reason, and a server left with fewer than `min_tools` tools is dropped.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from typing import Any, Literal

import jsonschema
from jsonschema.validators import validator_for
from pydantic import BaseModel, ConfigDict, Field

from mcp_servers import CheckCode
from synth.exceptions import SchemaConversionError

SourceKind = Literal["mcp_http", "mcp_stdio", "env", "openai_schemas", "astra_rows"]
DropReason = Literal[
    "too_few_tools",
    "vague_description",
    "schema_unconvertible",
    "unreachable",
    "malformed_input",
    "duplicate_server",
]

CHECK_CODES: tuple[CheckCode, ...] = CheckCode.load_declarations(__name__)
"""Every reason a server or a tool is dropped at ingest (`DropReason`)."""

_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_PLACEHOLDERS = {"", "todo", "tbd", "n/a", "na", "none", "null", "description", "no description", "tool", "function"}


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ToolDoc(_Record):
    """One tool as an OpenAI function: name, description, JSON Schema `parameters`."""

    name: str = Field(description="Function name (letters, digits, _ and -; at most 64).")
    description: str = Field(description="What the tool does.")
    parameters: dict[str, Any] = Field(description="JSON Schema object of the arguments, local $refs inlined.")
    output_schema: dict[str, Any] | None = Field(default=None, description="JSON Schema of the result, when documented.")

    def to_openai(self) -> dict[str, Any]:
        """The OpenAI `tools[]` item."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }

    @property
    def required(self) -> list[str]:
        """Names of the required arguments."""
        return list(self.parameters.get("required", []))


class ServerSource(_Record):
    """Where a server's documentation came from, and how to reach it for rollouts."""

    kind: SourceKind = Field(description="mcp_http | mcp_stdio | env | openai_schemas | astra_rows")
    ref: str = Field(description="URL, stdio command line, environment directory, or file:line.")
    envs: list[str] = Field(
        default_factory=list,
        description="For kind=env: the environment directories served together (first = primary).",
    )

    @property
    def runnable(self) -> bool:
        """Whether a real MCP server backs these docs (else rollouts use the emulator)."""
        return self.kind in ("mcp_http", "mcp_stdio", "env")


class ServerDoc(_Record):
    """A tool server in normalized form."""

    id: str = Field(description="Content-derived id: 'srv-' + hash of name and tools.")
    name: str
    description: str = ""
    domain: str = ""
    language: str = Field(default="en", description="Language tasks for this server are written in.")
    tools: list[ToolDoc]
    source: ServerSource

    def tool(self, name: str) -> ToolDoc | None:
        """The tool called `name`, or None."""
        return next((t for t in self.tools if t.name == name), None)

    def openai_tools(self) -> list[dict[str, Any]]:
        """All tools as OpenAI `tools[]` items."""
        return [t.to_openai() for t in self.tools]


class DroppedServer(_Record):
    """A server (or an input record) that ingest refused, with its reason."""

    ref: str = Field(description="Where it came from (file:line, URL, directory).")
    name: str = ""
    reason: DropReason
    detail: str = ""


class ToolIssue(_Record):
    """A tool removed from a kept server."""

    server: str
    tool: str
    reason: DropReason
    detail: str


def server_id(name: str, tools: list[ToolDoc]) -> str:
    """The content-derived server id."""
    material = json.dumps([name, [t.model_dump(mode="json") for t in tools]], sort_keys=True, ensure_ascii=False)
    return "srv-" + hashlib.sha256(material.encode()).hexdigest()[:12]


def is_vague(description: str | None, name: str) -> bool:
    """Whether a description is too thin to generate tasks from (placeholder, name echo, < 4 words)."""
    text = (description or "").strip()
    norm = re.sub(r"[\s_\-.]+", " ", text.casefold()).strip()
    if norm in _PLACEHOLDERS or norm == re.sub(r"[_\-]+", " ", name.casefold()).strip():
        return True
    words = re.findall(r"\w+", text)
    cjk = len(re.findall(r"[\u3040-\u30ff\u3400-\u9fff]", text))
    return len(words) < 4 and cjk < 6


def _inline_refs(node: Any, defs: dict[str, Any], stack: tuple[str, ...]) -> Any:
    if isinstance(node, list):
        return [_inline_refs(v, defs, stack) for v in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        match = re.fullmatch(r"#/(?:\$defs|definitions)/([^/]+)", ref)
        if match is None:
            raise SchemaConversionError(f"$ref {ref!r} is not a local definition")
        key = match.group(1)
        if key in stack:
            raise SchemaConversionError(f"recursive $ref {ref!r}")
        if key not in defs:
            raise SchemaConversionError(f"$ref {ref!r} names a missing definition")
        merged = {**defs[key], **{k: v for k, v in node.items() if k != "$ref"}}
        return _inline_refs(merged, defs, (*stack, key))
    return {k: _inline_refs(v, defs, stack) for k, v in node.items() if k not in ("$defs", "definitions")}


def to_openai_parameters(schema: Any) -> dict[str, Any]:
    """Convert an MCP `inputSchema` (or any JSON Schema) to an OpenAI `parameters` object.

    Raises:
        SchemaConversionError: naming the problem.
    """
    if schema is None or schema == {}:
        return {"type": "object", "properties": {}}
    if isinstance(schema, str):
        try:
            schema = json.loads(schema)
        except json.JSONDecodeError as exc:
            raise SchemaConversionError(f"schema is a string that is not JSON: {exc.msg}") from exc
    if not isinstance(schema, dict):
        raise SchemaConversionError(f"schema must be an object, got {type(schema).__name__}")
    schema = copy.deepcopy(schema)
    if "type" not in schema and "properties" in schema:
        schema["type"] = "object"
    if schema.get("type") != "object":
        raise SchemaConversionError(f'top-level type must be "object", got {schema.get("type")!r}')
    defs = {**schema.get("definitions", {}), **schema.get("$defs", {})}
    out = _inline_refs(schema, defs, ())
    for key in ("$schema", "$id"):
        out.pop(key, None)
    out.setdefault("properties", {})
    try:
        validator_for(out).check_schema(out)
    except jsonschema.SchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "(root)"
        raise SchemaConversionError(f"not a valid JSON Schema at {where}: {exc.message}") from exc
    props = out["properties"]
    if not isinstance(props, dict):
        raise SchemaConversionError("properties must be an object")
    missing = [r for r in out.get("required", []) if r not in props]
    if missing:
        raise SchemaConversionError(f"required names undeclared properties: {missing}")
    return out


class RawTool(BaseModel):
    """A tool as read from any source, before conversion."""

    name: str
    description: str | None = None
    schema_: Any = Field(default=None, alias="schema")
    output_schema: Any = None


def normalize_server(
    *,
    name: str,
    description: str,
    domain: str,
    language: str,
    tools: list[RawTool],
    source: ServerSource,
    min_tools: int = 3,
) -> tuple[ServerDoc | None, list[ToolIssue], DroppedServer | None]:
    """Convert raw tools, removing bad ones; drop the server when fewer than `min_tools` remain."""
    kept: list[ToolDoc] = []
    issues: list[ToolIssue] = []
    seen: set[str] = set()
    for raw in tools:
        if not _TOOL_NAME.match(raw.name) or raw.name in seen:
            problem = "duplicate tool name" if raw.name in seen else "name is not [A-Za-z0-9_-]{1,64}"
            issues.append(ToolIssue(server=name, tool=raw.name, reason="schema_unconvertible", detail=problem))
            continue
        if is_vague(raw.description, raw.name):
            issues.append(ToolIssue(server=name, tool=raw.name, reason="vague_description", detail=repr(raw.description)))
            continue
        try:
            params = to_openai_parameters(raw.schema_)
            output = raw.output_schema if isinstance(raw.output_schema, dict) else None
        except SchemaConversionError as exc:
            issues.append(ToolIssue(server=name, tool=raw.name, reason="schema_unconvertible", detail=str(exc)))
            continue
        seen.add(raw.name)
        kept.append(ToolDoc(name=raw.name, description=(raw.description or "").strip(), parameters=params, output_schema=output))
    if len(kept) < min_tools:
        reasons = sorted({i.reason for i in issues})
        reason: DropReason = "too_few_tools" if len(tools) < min_tools or not reasons else reasons[0]
        detail = f"{len(kept)} usable of {len(tools)} tools (need {min_tools})"
        if issues:
            detail += "; " + "; ".join(f"{i.tool}: {i.reason} ({i.detail})" for i in issues[:5])
        return None, issues, DroppedServer(ref=source.ref, name=name, reason=reason, detail=detail)
    doc = ServerDoc(
        id=server_id(name, kept),
        name=name,
        description=description.strip(),
        domain=domain,
        language=language or "en",
        tools=kept,
        source=source,
    )
    return doc, issues, None
