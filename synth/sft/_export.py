"""Stage 6 output: kept trajectories as SFT data, through agent_sdk's exporters.

- `sft.jsonl` — `agent_sdk.sft_record` per line: OpenAI chat messages with `tool_calls`
  (arguments as JSON objects, the form chat templates render) and OpenAI tool schemas. TRL's
  `SFTTrainer` takes `datasets.load_dataset("json", data_files=...)` of it as-is (`datasets`
  stores the mixed argument and schema shapes as JSON values).
- `sft.parquet` — `agent_sdk.write_sft_parquet`: `messages` and `tools` as JSON columns, for
  TRL (`load_dataset("parquet")`) and veRL's `MultiTurnSFTDataset` (via
  `rl.verl.JsonMultiTurnSFTDataset`, which decodes the JSON cells).
- `openai.jsonl` — `agent_sdk.write_openai_jsonl`: OpenAI fine-tuning format (arguments as
  JSON strings).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from agent_sdk import Trajectory, sft_record, write_openai_jsonl, write_sft_parquet


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
    with open(tmp["sft_jsonl"], "w", encoding="utf-8") as fh:
        for t in trajectories:
            fh.write(json.dumps(sft_record(t), ensure_ascii=False) + "\n")
    write_sft_parquet(trajectories, tmp["sft_parquet"])
    write_openai_jsonl(trajectories, tmp["openai_jsonl"])
    for key, path in paths.items():
        os.replace(tmp[key], path)
    return paths
