"""SFT files: read and mix the export every producer writes (`agent_sdk.write_sft_files`).

The export is three files in one directory, all built from `agent_sdk`'s exporters:

- `sft.jsonl` — `agent_sdk.sft_record` per line: OpenAI chat messages with `tool_calls`
  (arguments as JSON objects, as chat templates render them) and the OpenAI tool schemas;
  what `astra sft train` reads;
- `sft.parquet` — `agent_sdk.write_sft_parquet`: JSON columns for TRL
  (`datasets.load_dataset("parquet")`) and veRL (`rl.verl.JsonMultiTurnSFTDataset`);
- `openai.jsonl` — `agent_sdk.write_openai_jsonl`: OpenAI fine-tuning format.

Mixing reads any of these (or a directory holding `sft.jsonl`), keeps the first copy of every
conversation (same messages and tools, compared as canonical JSON) and writes one export.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from agent_sdk import SFT_FILES, Trajectory, UserError, read_openai_jsonl, read_sft_parquet, sft_record, write_sft_files
from rl.exceptions import DatasetError

__all__ = ["MixReport", "conversation_key", "dedupe", "mix_sft", "read_sft_file", "write_sft_files"]

def conversation_key(trajectory: Trajectory) -> str:
    """A hash of the conversation as trained (messages and tools of its SFT row); equal rows, equal keys."""
    row = sft_record(trajectory)
    for message in row["messages"]:
        # Call ids are arbitrary labels (chat templates do not render them).
        message.pop("tool_call_id", None)
        for call in message.get("tool_calls") or []:
            call.pop("id", None)
    return hashlib.sha256(json.dumps(row, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def read_sft_file(path: str | Path) -> list[Trajectory]:
    """Conversations of an SFT file: `sft.jsonl` / `openai.jsonl` (either argument form), `sft.parquet`,
    or a directory holding `sft.jsonl`.

    Raises:
        DatasetError: naming the file (and line or row) that cannot be read.
    """
    path = Path(path)
    if path.is_dir():
        path = path / SFT_FILES["sft_jsonl"]
    if not path.is_file():
        raise DatasetError(f"{path}: no such SFT file (give sft.jsonl, openai.jsonl, sft.parquet or their directory)")
    try:
        if path.suffix == ".parquet":
            return read_sft_parquet(path)
        return read_openai_jsonl(path)
    except (UserError, OSError, ValueError) as exc:
        raise DatasetError(f"{path}: {exc}" if str(path) not in str(exc) else str(exc)) from exc


class MixReport(BaseModel):
    """What `mix_sft` wrote."""

    inputs: dict[str, int] = Field(description="Rows read per input file, in the order given.")
    kept: dict[str, int] = Field(description="Rows kept per input file (first copies only).")
    duplicates: int = Field(description="Rows dropped as copies of an earlier row.")
    rows: int = Field(description="Rows written.")
    files: dict[str, str] = Field(description="The files written, by kind.")


def dedupe(trajectories: Iterable[Trajectory], seen: set[str] | None = None) -> tuple[list[Trajectory], int]:
    """The first copy of every conversation (see `conversation_key`), in order, and the number dropped.

    `seen` holds the keys of conversations kept before (it is updated), so several calls dedupe across inputs.
    """
    seen = set() if seen is None else seen
    kept: list[Trajectory] = []
    dropped = 0
    for t in trajectories:
        key = conversation_key(t)
        if key in seen:
            dropped += 1
            continue
        seen.add(key)
        kept.append(t)
    return kept, dropped


def mix_sft(inputs: Sequence[str | Path], out: str | Path) -> MixReport:
    """Concatenate SFT files in the order given, drop repeated conversations, write one export under `out`.

    Raises:
        DatasetError: when an input cannot be read, or none is given.
    """
    if not inputs:
        raise DatasetError("mix needs at least one SFT file")
    seen: set[str] = set()
    rows: list[Trajectory] = []
    read: dict[str, int] = {}
    kept: dict[str, int] = {}
    duplicates = 0
    for source in inputs:
        name = str(source)
        trajectories = read_sft_file(source)
        unique, dropped = dedupe(trajectories, seen)
        read[name] = read.get(name, 0) + len(trajectories)
        kept[name] = kept.get(name, 0) + len(unique)
        duplicates += dropped
        rows += unique
    paths = write_sft_files(rows, out)
    report = MixReport(inputs=read, kept=kept, duplicates=duplicates, rows=len(rows), files={k: str(p) for k, p in paths.items()})
    Path(out, "mix.json").write_text(report.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return report
