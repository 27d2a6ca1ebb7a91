"""JSONL stage stores: append as you go, skip what is done, survive `kill -9`.

Each record is one line, written with flush + fsync, so after a crash the file holds every
finished record plus at most one torn last line; opening the store truncates that torn tail.
`Stage` pairs a stage's output store with the shared `rejected.jsonl`, so a re-run skips
every id the stage already accepted or rejected. (Pipeline input is read with
`agent_sdk.read_jsonl(..., on_problem="collect")`: bad lines are reported, the rest still runs.)
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from agent_sdk import JsonlError, read_jsonl
from synth.exceptions import StoreCorrupt

__all__ = ["JsonlStore", "Rejection", "Stage", "record_id", "rejections_store"]


class Rejection(BaseModel):
    """One rejected record, as written to `rejected.jsonl`."""

    id: str = Field(description="The record id.")
    stage: str = Field(description="The stage that rejected it.")
    reason: str = Field(description="A stable reason code, e.g. `invalid_output`, `answer_missing`.")
    detail: str = Field(default="", description="Human-readable evidence: the judge's reason, the error text.")


class JsonlStore:
    """An append-only JSONL file of JSON objects keyed by `key(record)` (default: its `id`)."""

    def __init__(self, path: str | Path, key: Callable[[dict[str, Any]], str] = lambda r: r["id"]) -> None:
        self.path = Path(path)
        self._key = key
        self._records: dict[str, dict[str, Any]] = {}
        self._load()

    def _load(self) -> None:
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        end = data.rfind(b"\n") + 1
        if end < len(data):
            # a record torn by a crash mid-write: drop it, the stage redoes that id
            with open(self.path, "r+b") as fh:
                fh.truncate(end)
        try:
            records = read_jsonl(self.path).values
        except JsonlError as exc:
            raise StoreCorrupt(str(exc)) from exc
        for record in records:
            self._records[self._key(record)] = record

    def __contains__(self, key: str) -> bool:
        return key in self._records

    def __len__(self) -> int:
        return len(self._records)

    def get(self, key: str) -> dict[str, Any] | None:
        """The record stored under `key`, or None."""
        return self._records.get(key)

    def records(self) -> list[dict[str, Any]]:
        """All records, in file order."""
        return list(self._records.values())

    def append(self, record: BaseModel | dict[str, Any]) -> None:
        """Append one record durably (flush + fsync); a record already stored is not written twice."""
        data = record.model_dump(mode="json") if isinstance(record, BaseModel) else record
        key = self._key(data)
        if key in self._records:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps(data, ensure_ascii=False, sort_keys=True) + "\n"
        with open(self.path, "ab") as fh:
            fh.write(line.encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())
        # Keep what the file holds (sorted keys), so a record reads the same before and after a
        # resume: prompts, cache keys and exports built from it must not depend on that.
        self._records[key] = json.loads(line)

    def discard(self, keys: Iterable[str]) -> int:
        """Remove records (atomically rewriting the file); returns how many were removed.

        Used to retry records whose failure was not a verdict on them, e.g. an unreachable model.
        """
        drop = {k for k in keys if k in self._records}
        if drop:
            self._records = {k: v for k, v in self._records.items() if k not in drop}
            self._rewrite()
        return len(drop)

    def _rewrite(self) -> None:
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "wb") as fh:
            for record in self._records.values():
                fh.write((json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.path)

    def compact(self, order: Sequence[str]) -> None:
        """Rewrite the file sorted by `order` (keys not in it go last, sorted), atomically.

        Pipelines call this at the end of a run, so the file is identical whatever order the
        records completed in and however many times the run was interrupted.
        """
        rank = {k: i for i, k in enumerate(order)}
        keys = sorted(self._records, key=lambda k: (rank.get(k, len(rank)), k))
        self._records = {k: self._records[k] for k in keys}
        self._rewrite()


class Stage:
    """One pipeline stage: its output store plus the shared rejections store.

    Args:
        name: the stage name recorded in rejections.
        out: where accepted records go (`<dir>/<name>.jsonl`).
        rejected: the pipeline's `rejected.jsonl` store (keyed by stage and id).
    """

    def __init__(self, name: str, out: JsonlStore, rejected: JsonlStore) -> None:
        self.name = name
        self.out = out
        self.rejected = rejected

    @classmethod
    def open(cls, directory: str | Path, name: str, rejected: JsonlStore) -> Stage:
        """The stage `name` stored in `directory/<name>.jsonl`."""
        return cls(name, JsonlStore(Path(directory) / f"{name}.jsonl"), rejected)

    def done(self, record_id: str) -> bool:
        """Whether this stage already accepted or rejected `record_id`."""
        return record_id in self.out or f"{self.name}:{record_id}" in self.rejected

    def accept(self, record: BaseModel | dict[str, Any]) -> None:
        """Store an accepted record."""
        self.out.append(record)

    def reject(self, record_id: str, reason: str, detail: str = "") -> None:
        """Record that this stage rejected `record_id` with `reason`."""
        self.rejected.append(Rejection(id=record_id, stage=self.name, reason=reason, detail=detail[:2000]))

    def rejections(self) -> list[Rejection]:
        """This stage's rejections."""
        return [Rejection.model_validate(r) for r in self.rejected.records() if r["stage"] == self.name]


def rejections_store(directory: str | Path) -> JsonlStore:
    """The pipeline's `rejected.jsonl`, keyed by `stage:id`."""
    return JsonlStore(Path(directory) / "rejected.jsonl", key=lambda r: f"{r['stage']}:{r['id']}")


def record_id(data: Any, prefix: str = "") -> str:
    """A stable id derived from a record's content (canonical JSON, SHA-256)."""
    blob = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return prefix + hashlib.sha256(blob.encode()).hexdigest()[:12]
