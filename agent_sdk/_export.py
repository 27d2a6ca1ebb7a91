"""Trajectories to and from training formats.

- Trajectory JSONL: every field of every `Trajectory` (lossless; what `astra demo` writes).
- OpenAI JSONL: `{"messages", "tools"}` per line in OpenAI chat format (arguments as JSON
  strings), for OpenAI-style fine-tuning APIs and any tool that reads that format.
- SFT parquet, for TRL and veRL: columns `messages` (a list of JSON objects) and `tools`
  (a JSON array), stored with Arrow's JSON type and Hugging Face `datasets` feature metadata
  (`List(Json())`, `Json()`). Arrow has one static type per column, so storing the tool
  schemas and call arguments as nested structs would merge every row's keys into one struct
  and fill the missing ones with nulls (`{"city": "Paris", "amount": null}`); JSON values keep
  each row exact. Tool-call `arguments` are objects, as chat templates expect. TRL reads it with
  `datasets.load_dataset("parquet", data_files=...)`; veRL with `MultiTurnSFTDataset` through
  the `rl.verl.JsonMultiTurnSFTDataset` adapter (veRL's reader does not decode JSON columns
  itself).

`write_sft_files` writes the one SFT export every producer writes (`astra sft synth`, `astra sft
cold-start`, `astra sft mix`): `sft.jsonl` (`sft_record` per line: what `astra sft train` reads),
`sft.parquet` and `openai.jsonl`, side by side in one directory (`SFT_FILES`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agent_sdk._jsonl import format_validation_error, read_jsonl
from agent_sdk._messages import ChatMessage, ToolCall
from agent_sdk._trajectory import Trajectory
from agent_sdk.exceptions import UserError

__all__ = [
    "SFT_FILES",
    "read_openai_jsonl",
    "read_sft_parquet",
    "read_trajectories_jsonl",
    "sft_record",
    "write_openai_jsonl",
    "write_sft_files",
    "write_sft_parquet",
    "write_trajectories_jsonl",
]

_HF_FEATURES = {"info": {"features": {"messages": {"feature": {"_type": "Json"}, "_type": "List"}, "tools": {"_type": "Json"}}}}


def write_trajectories_jsonl(trajectories: Iterable[Trajectory], path: str | Path) -> int:
    """Write every field of each trajectory, one JSON object per line; returns the count."""
    return _write_lines(path, (t.model_dump_json() for t in trajectories))


def read_trajectories_jsonl(path: str | Path) -> list[Trajectory]:
    """Read a file written by `write_trajectories_jsonl`.

    Raises:
        JsonlError: (a `UserError`) naming the file and line of the first invalid record.
    """
    return read_jsonl(path, _trajectory).values


def write_openai_jsonl(trajectories: Iterable[Trajectory], path: str | Path) -> int:
    """Write `{"messages", "tools"}` per line in OpenAI chat format; returns the count."""
    return _write_lines(path, (json.dumps(t.to_openai(), ensure_ascii=False) for t in trajectories))


def read_openai_jsonl(path: str | Path) -> list[Trajectory]:
    """Read OpenAI-format `{"messages", "tools"}` lines into trajectories (messages and tools only).

    Raises:
        JsonlError: (a `UserError`) naming the file and line of the first invalid record.
    """
    return read_jsonl(path, _from_openai).values


def sft_record(trajectory: Trajectory) -> dict[str, Any]:
    """One SFT row: messages as chat-template dicts (tool-call arguments as objects) and tools."""
    messages = []
    for message in trajectory.messages:
        item = message.to_openai()
        if message.tool_calls:
            item["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in message.tool_calls
            ]
        messages.append(item)
    return {"messages": messages, "tools": list(trajectory.tools)}


def write_sft_parquet(trajectories: Iterable[Trajectory], path: str | Path) -> int:
    """Write the SFT parquet that TRL and veRL load (see the module docstring); returns the row count.

    Raises:
        UserError: when pyarrow is not installed (extra `train`).
    """
    pa, pq = _pyarrow()
    rows = [sft_record(t) for t in trajectories]
    encoded = [json.dumps(m, ensure_ascii=False) for row in rows for m in row["messages"]]
    offsets = [0]
    for row in rows:
        offsets.append(offsets[-1] + len(row["messages"]))
    message_values = pa.ExtensionArray.from_storage(pa.json_(), pa.array(encoded, pa.string()))
    messages = pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), message_values)
    tool_storage = pa.array([json.dumps(row["tools"], ensure_ascii=False) for row in rows], pa.string())
    tools = pa.ExtensionArray.from_storage(pa.json_(), tool_storage)
    table = pa.table({"messages": messages, "tools": tools})
    table = table.replace_schema_metadata({"huggingface": json.dumps(_HF_FEATURES)})
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, str(path))
    return len(rows)


def read_sft_parquet(path: str | Path) -> list[Trajectory]:
    """Read a file written by `write_sft_parquet` back into trajectories (messages and tools only).

    Raises:
        UserError: naming the file and row of the first invalid record.
    """
    _, pq = _pyarrow()
    table = pq.read_table(str(path))
    missing = {"messages", "tools"} - set(table.column_names)
    if missing:
        raise UserError(f"{path}: missing column(s) {sorted(missing)}")
    out = []
    for index, (messages, tools) in enumerate(zip(table["messages"].to_pylist(), table["tools"].to_pylist())):
        record = {
            "messages": [json.loads(m) if isinstance(m, str) else m for m in messages or []],
            "tools": json.loads(tools) if isinstance(tools, str) else tools or [],
        }
        try:
            out.append(_from_openai(record))
        except ValueError as exc:
            raise UserError(f"{path}: row {index}: {exc}") from exc
    return out


SFT_FILES = {"sft_jsonl": "sft.jsonl", "sft_parquet": "sft.parquet", "openai_jsonl": "openai.jsonl"}
"""The files of an SFT export, by kind."""


def _complete_schema(tool: dict[str, Any]) -> dict[str, Any]:
    # `datasets` merges the tool schemas of all rows into one struct, so a schema without
    # "required" would come back with "required": null and be rendered that way.
    fn = tool.get("function", {})
    params = {"type": "object", "properties": {}, "required": [], **(fn.get("parameters") or {})}
    return {**tool, "function": {**fn, "parameters": params}}


def write_sft_files(trajectories: Sequence[Trajectory], out: str | Path) -> dict[str, Path]:
    """Write the SFT export (`SFT_FILES`) of `trajectories` under `out`, each file atomically; returns their paths.

    Raises:
        UserError: when pyarrow is missing.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    rows = [t.model_copy(update={"tools": [_complete_schema(x) for x in t.tools]}) for t in trajectories]
    paths = {key: out / name for key, name in SFT_FILES.items()}
    tmp = {key: path.with_name(path.name + ".tmp") for key, path in paths.items()}
    _write_lines(tmp["sft_jsonl"], (json.dumps(sft_record(t), ensure_ascii=False) for t in rows))
    write_sft_parquet(rows, tmp["sft_parquet"])
    write_openai_jsonl(rows, tmp["openai_jsonl"])
    for key, path in paths.items():
        os.replace(tmp[key], path)
    return paths


def _trajectory(record: dict[str, Any]) -> Trajectory:
    try:
        return Trajectory.model_validate(record)
    except ValidationError as exc:
        raise ValueError(f"not a trajectory: {format_validation_error(exc, limit=1)}") from exc


def _from_openai(record: dict[str, Any]) -> Trajectory:
    """A trajectory of an OpenAI-format record.

    Raises:
        ValueError: naming what is wrong (e.g. `messages[2]: ...`).
    """
    if not isinstance(record.get("messages"), list):
        raise ValueError("expected an object with a 'messages' list")
    messages = []
    for index, raw in enumerate(record["messages"]):
        try:
            messages.append(_message(raw))
        except (ValidationError, ValueError, TypeError, KeyError) as exc:
            raise ValueError(f"messages[{index}]: {exc}") from exc
    tools = record.get("tools") or []
    if isinstance(tools, str):
        tools = json.loads(tools)
    user = next((m.content for m in messages if m.role == "user"), None)
    last = messages[-1] if messages else None
    answered = last is not None and last.role == "assistant" and not last.tool_calls
    return Trajectory(
        task=user or "",
        messages=messages,
        tools=list(tools),
        final_answer=last.content if answered and last is not None else None,
        stop_reason="final_answer" if answered else None,
    )


def _message(raw: dict[str, Any]) -> ChatMessage:
    calls = []
    for item in raw.get("tool_calls") or []:
        function = item["function"]
        arguments = function.get("arguments")
        raw_text = arguments if isinstance(arguments, str) else None
        parsed = json.loads(arguments) if isinstance(arguments, str) else dict(arguments or {})
        calls.append(ToolCall(id=item.get("id") or "", name=function["name"], arguments=parsed, raw_arguments=raw_text))
    return ChatMessage(
        role=raw["role"],
        content=raw.get("content"),
        tool_calls=calls,
        tool_call_id=raw.get("tool_call_id"),
        name=raw.get("name") if raw["role"] == "tool" else None,
    )


def _write_lines(path: str | Path, lines: Iterable[str]) -> int:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with path.open("w", encoding="utf-8") as handle:
        for line in lines:
            handle.write(line + "\n")
            count += 1
    return count


def _pyarrow() -> tuple[Any, Any]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise UserError("parquet export needs pyarrow: pip install 'astra-mcp[train]'") from exc
    return pa, pq
