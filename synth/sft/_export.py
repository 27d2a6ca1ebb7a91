"""Stage 6 output: kept trajectories as SFT data, through agent_sdk's exporters.

- `sft.jsonl` — `agent_sdk.sft_record` per line: OpenAI chat messages with `tool_calls`
  (arguments as JSON objects, the form chat templates render) and OpenAI tool schemas. TRL's
  `SFTTrainer` takes `datasets.load_dataset("json", data_files=...)` of it as-is (`datasets`
  stores the mixed argument and schema shapes as JSON values).
- `sft.parquet` — the layout of `agent_sdk.write_sft_parquet`: `messages` (a list of JSON
  values) and `tools` (a JSON value) with Hugging Face feature metadata, for TRL
  (`load_dataset("parquet")`) and veRL's `MultiTurnSFTDataset` (via
  `agent_sdk.verl_dataset.JsonMultiTurnSFTDataset`, which decodes the JSON cells). Written
  here from `sft_record` rows because `pa.array(..., pa.list_(pa.json_()))`, which
  `write_sft_parquet` uses, is not implemented in pyarrow 26; the JSON arrays are built from
  their string storage instead.
- `openai.jsonl` — `agent_sdk.write_openai_jsonl`: OpenAI fine-tuning format (arguments as
  JSON strings).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from agent_sdk import Trajectory, sft_record, write_openai_jsonl

_HF_FEATURES = {"info": {"features": {"messages": {"feature": {"_type": "Json"}, "_type": "List"}, "tools": {"_type": "Json"}}}}


def _json_array(texts: list[str]) -> pa.Array:
    return pa.ExtensionArray.from_storage(pa.json_(), pa.array(texts, pa.string()))


def _write_parquet(rows: list[dict], path: Path) -> None:
    """`messages` as list<json> and `tools` as json, one row per `sft_record`."""
    offsets = [0]
    texts: list[str] = []
    for row in rows:
        texts += [json.dumps(m, ensure_ascii=False) for m in row["messages"]]
        offsets.append(len(texts))
    messages = pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), _json_array(texts))
    tools = _json_array([json.dumps(row["tools"], ensure_ascii=False) for row in rows])
    table = pa.table({"messages": messages, "tools": tools}).replace_schema_metadata({"huggingface": json.dumps(_HF_FEATURES)})
    pq.write_table(table, str(path))


def _complete_schema(tool: dict) -> dict:
    # `datasets` merges the tool schemas of all rows into one struct, so a schema without
    # "required" would come back with "required": null and be rendered that way.
    fn = tool.get("function", {})
    params = {"type": "object", "properties": {}, "required": [], **(fn.get("parameters") or {})}
    return {**tool, "function": {**fn, "parameters": params}}


def export_sft(trajectories: list[Trajectory], out: str | Path) -> dict[str, Path]:
    """Write `sft.jsonl`, `sft.parquet` and `openai.jsonl` under `out` (each atomically)."""
    out = Path(out)
    trajectories = [t.model_copy(update={"tools": [_complete_schema(x) for x in t.tools]}) for t in trajectories]
    paths = {"sft_jsonl": out / "sft.jsonl", "sft_parquet": out / "sft.parquet", "openai_jsonl": out / "openai.jsonl"}
    tmp = {k: p.with_name(p.name + ".tmp") for k, p in paths.items()}
    rows = [sft_record(t) for t in trajectories]
    with open(tmp["sft_jsonl"], "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    _write_parquet(rows, tmp["sft_parquet"])
    write_openai_jsonl(trajectories, tmp["openai_jsonl"])
    for key, path in paths.items():
        os.replace(tmp[key], path)
    return paths
