"""Stage 1: read tool documentation from any source into `ServerDoc`s.

Sources, chosen by the shape of each `--servers` argument:

- `http://…` / `https://…` — a live MCP server over Streamable HTTP (`tools/list`);
- `stdio:COMMAND ARGS…` — a live MCP server launched over stdio;
- a directory — this project's environment(s) (`env.json` + `tools.py`);
- a `.json` / `.jsonl` file — OpenAI tool schemas (a list of tools, or server objects
  `{"name", "description", "tools": [...]}`) and/or ASTRA server rows
  (`{"base_info": {"group_info": {...}, "tool_list": [...]}}`), detected per record.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from pydantic import BaseModel, Field

from agent_sdk import read_jsonl
from mcp_servers import Environment, EnvLoadError, find_envs, load_env
from synth.sft._docs import DroppedServer, RawTool, ServerDoc, ServerSource, ToolIssue, normalize_server


class IngestResult(BaseModel):
    """Servers kept, servers dropped (with reasons), and tools removed from kept servers."""

    servers: list[ServerDoc] = Field(default_factory=list)
    dropped: list[DroppedServer] = Field(default_factory=list)
    tool_issues: list[ToolIssue] = Field(default_factory=list)

    def extend(self, other: IngestResult) -> None:
        """Merge `other` in, dropping servers whose id is already present."""
        known = {s.id for s in self.servers}
        for server in other.servers:
            if server.id in known:
                self.dropped.append(
                    DroppedServer(ref=server.source.ref, name=server.name, reason="duplicate_server", detail=server.id)
                )
                continue
            known.add(server.id)
            self.servers.append(server)
        self.dropped += other.dropped
        self.tool_issues += other.tool_issues


def _add(result: IngestResult, min_tools: int, **fields: Any) -> None:
    server, issues, dropped = normalize_server(min_tools=min_tools, **fields)
    result.tool_issues += issues
    if dropped is not None:
        result.dropped.append(dropped)
    if server is not None:
        result.extend(IngestResult(servers=[server]))


def _raw_tool(item: Any) -> RawTool:
    """An OpenAI tool (`{"type": "function", "function": {...}}` or bare), an MCP tool or an ASTRA tool."""
    if not isinstance(item, dict):
        raise ValueError(f"a tool must be an object, got {type(item).__name__}")
    fn = item.get("function") if isinstance(item.get("function"), dict) else item
    name = fn.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError("a tool needs a non-empty string 'name'")
    schema = next((fn[k] for k in ("parameters", "inputSchema", "input_schema") if k in fn), None)
    output = next((fn[k] for k in ("outputSchema", "output_schema") if k in fn), None)
    description = fn.get("description")
    return RawTool(name=name, description=description if isinstance(description, str) else None, schema=schema, output_schema=output)


def _language(text: str) -> str:
    cjk = sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff")
    return "zh" if cjk > max(3, len(text) // 20) else "en"


def _from_record(record: Any, ref: str, default_name: str, result: IngestResult, min_tools: int) -> bool:
    """Ingest one server-shaped record; False when it is a bare tool instead."""
    if not isinstance(record, dict):
        raise ValueError(f"expected an object, got {type(record).__name__}")
    if "base_info" in record:
        base = record["base_info"]
        if not isinstance(base, dict) or not isinstance(base.get("tool_list"), list):
            raise ValueError("ASTRA row needs base_info.tool_list (a list)")
        group = base.get("group_info") if isinstance(base.get("group_info"), dict) else {}
        name = group.get("server_name") or group.get("server_title") or group.get("group_id") or default_name
        description = group.get("server_description") or ""
        tools = [_raw_tool(t) for t in base["tool_list"]]
        kind = "astra_rows"
    elif isinstance(record.get("tools"), list):
        name = record.get("name") or record.get("server_name") or default_name
        description = record.get("description") or ""
        tools = [_raw_tool(t) for t in record["tools"]]
        group = record
        kind = "openai_schemas"
    else:
        return False
    text = description + " ".join(t.description or "" for t in tools)
    _add(
        result,
        min_tools,
        name=str(name),
        description=str(description),
        domain=str(group.get("domain") or ""),
        language=str(record.get("language") or _language(text)),
        tools=tools,
        source=ServerSource(kind=kind, ref=ref),
    )
    return True


def ingest_file(path: str | Path, *, min_tools: int = 3) -> IngestResult:
    """Ingest a JSON or JSONL file of OpenAI tool schemas and/or ASTRA server rows.

    A malformed record is reported as a `malformed_input` drop naming the file and line;
    the other records still load. Bare tool records (not inside a server) form one server
    named after the file.

    Raises:
        FileNotFoundError: when `path` does not exist.
    """
    path = Path(path)
    result = IngestResult()
    if path.suffix == ".jsonl":
        content = read_jsonl(path, on_problem="collect")
        records: list[tuple[str, Any]] = [(row.ref, row.value) for row in content.rows]
        result.dropped += [DroppedServer(ref=f"{p.file}:{p.line}", reason="malformed_input", detail=p.message) for p in content.problems]
    else:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            result.dropped.append(
                DroppedServer(ref=f"{path}:{exc.lineno}", reason="malformed_input", detail=f"invalid JSON: {exc.msg} (column {exc.colno})")
            )
            return result
        items = data if isinstance(data, list) else [data]
        records = [(f"{path}:[{i}]", item) for i, item in enumerate(items)]
    loose: list[RawTool] = []
    for ref, record in records:
        try:
            if not _from_record(record, ref, path.stem, result, min_tools):
                loose.append(_raw_tool(record))
        except ValueError as exc:
            result.dropped.append(DroppedServer(ref=ref, reason="malformed_input", detail=str(exc)))
    if loose:
        text = " ".join(t.description or "" for t in loose)
        _add(
            result,
            min_tools,
            name=path.stem,
            description="",
            domain="",
            language=_language(text),
            tools=loose,
            source=ServerSource(kind="openai_schemas", ref=str(path)),
        )
    return result


def ingest_envs(roots: str | Path | list[str | Path], *, min_tools: int = 3, group: bool = True) -> IngestResult:
    """Ingest this project's environments under `roots` (rollouts then run the real envs).

    Environments are small (often one or two tools), so with `group` those sharing a domain
    and a language are served together as one server: one MCP connection gets the first
    environment plus the others' tools (`mcp_servers.Binding` extras), each call running in
    its own environment's sandboxed instance.
    """
    roots = roots if isinstance(roots, list) else [roots]
    result = IngestResult()
    groups: dict[tuple[str, ...], list[Environment]] = {}
    for directory in (d for root in roots for d in find_envs(root)):
        try:
            env = load_env(directory)
        except EnvLoadError as exc:
            result.dropped.append(DroppedServer(ref=str(directory), reason="malformed_input", detail=str(exc)))
            continue
        key = (env.spec.domain.casefold(), env.spec.language) if group else (str(directory),)
        groups.setdefault(key, []).append(env)
    for members in groups.values():
        first = members[0].spec
        tools = [
            RawTool(name=t.name, description=t.description, schema=t.input_schema, output_schema=t.output_schema)
            for env in members
            for t in env.spec.tools
        ]
        examples = " ".join(f"Example task: {env.spec.task.question}" for env in members[:3])
        dirs = [str(Path(env.path or "").resolve()) for env in members]
        _add(
            result,
            min_tools,
            name=f"{first.domain} ({', '.join(env.spec.id for env in members)})",
            description=f"Tools for the {first.domain} domain. {examples}",
            domain=first.domain,
            language=first.language,
            tools=tools,
            source=ServerSource(kind="env", ref=dirs[0], envs=dirs),
        )
    return result


def mcp_target(source: ServerSource) -> str | StdioServerParameters:
    """What `mcp.Client` connects to for a live server source."""
    if source.kind == "mcp_stdio":
        argv = shlex.split(source.ref.removeprefix("stdio:"))
        return StdioServerParameters(command=argv[0], args=argv[1:])
    return source.ref


async def ingest_mcp(target: str, *, min_tools: int = 3, timeout_s: float = 60.0) -> IngestResult:
    """Ingest a live MCP server: `http(s)://…` (Streamable HTTP) or `stdio:COMMAND ARGS…`.

    An unreachable server becomes an `unreachable` drop, not an exception.
    """
    kind = "mcp_stdio" if target.startswith("stdio:") else "mcp_http"
    source = ServerSource(kind=kind, ref=target)
    result = IngestResult()
    try:
        with anyio.fail_after(timeout_s):
            async with Client(mcp_target(source), mode="legacy") as client:
                tools, cursor = [], None
                while True:
                    page = await client.list_tools(cursor=cursor)
                    tools += page.tools
                    cursor = page.next_cursor
                    if not cursor:
                        break
                info = client.server_info
                instructions = client.instructions or ""
    except Exception as exc:  # noqa: BLE001 - any connection failure is a reported drop
        result.dropped.append(DroppedServer(ref=target, reason="unreachable", detail=f"{type(exc).__name__}: {exc}"))
        return result
    name = (info.title or info.name) if info else target
    description = (info.description if info and info.description else "") or instructions
    raw = [
        RawTool(name=t.name, description=t.description, schema=t.input_schema, output_schema=t.output_schema)
        for t in tools
    ]
    _add(
        result,
        min_tools,
        name=name,
        description=description,
        domain="",
        language=_language(description + " ".join(t.description or "" for t in raw)),
        tools=raw,
        source=source,
    )
    return result


async def ingest(specs: list[str], *, min_tools: int = 3, group_envs: bool = True) -> IngestResult:
    """Ingest every source in `specs` (URLs, `stdio:` commands, directories, JSON/JSONL files).

    Environment directories from all specs are ingested together (see `ingest_envs`); a
    directory with no environment below it is read as a folder of tool-doc files (its `*.json`
    and `*.jsonl`), and one with neither is dropped, named.
    """
    result = IngestResult()
    dirs = [s for s in specs if not s.startswith(("http://", "https://", "stdio:")) and Path(s).is_dir()]
    env_roots: list[str | Path] = [d for d in dirs if find_envs(d)]
    if env_roots:
        result.extend(ingest_envs(env_roots, min_tools=min_tools, group=group_envs))
    for spec in specs:
        if spec in env_roots:
            continue
        if spec in dirs:
            files = sorted(p for p in Path(spec).iterdir() if p.is_file() and p.suffix in (".json", ".jsonl"))
            if not files:
                detail = "a directory with no */env.json below it and no .json/.jsonl tool docs in it"
                result.dropped.append(DroppedServer(ref=spec, reason="malformed_input", detail=detail))
            for file in files:
                result.extend(ingest_file(file, min_tools=min_tools))
            continue
        if spec.startswith(("http://", "https://", "stdio:")):
            part = await ingest_mcp(spec, min_tools=min_tools)
        elif Path(spec).is_file():
            part = ingest_file(spec, min_tools=min_tools)
        else:
            part = IngestResult(
                dropped=[DroppedServer(ref=spec, reason="malformed_input", detail="not a URL, stdio: command, directory or file")]
            )
        result.extend(part)
    return result
