"""Resumable stage sequencing: one marker file per finished stage in `OUT/stages/`.

A stage is an async function returning a JSON-able summary of what it produced. When it
returns, `stages/<name>.json` is written atomically (a `StageRecord`: summary and wall
time); a re-run skips every stage that has its marker and starts at the first one without,
so a run killed at any point resumes there. A stage's own pipelines resume inside it
(the synthesis stores skip finished ids), so a killed stage loses little. `redo` removes the
markers of a stage and of every stage after it, and their outputs (`Stage.outputs`): a redone
GRPO starts from step 0 instead of resuming its state, and no stale evaluation is reused.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from astra_loop.exceptions import LoopConfigError, RecipeError, StageError

StageFn = Callable[[], Awaitable[dict[str, Any]]]
"""A stage body: does its work, returns a summary of its outputs (stored in its record)."""


@dataclass(frozen=True, kw_only=True)
class Stage:
    """A named step of the loop."""

    name: str
    run: StageFn
    description: str = ""
    outputs: tuple[Path, ...] = ()
    """Files and directories the stage writes, removed when it is redone."""


class StageRecord(BaseModel):
    """The marker of a finished stage (`stages/<name>.json`)."""

    name: str
    finished_at: str = Field(description="UTC ISO time the stage finished.")
    wall_s: float = Field(description="Wall time of the run that finished it.")
    attempts: int = Field(default=1, description="Runs that started this stage (more than 1 after a kill or a failure).")
    summary: dict[str, Any] = Field(default_factory=dict)


class StageBook:
    """The markers of one output directory."""

    def __init__(self, out: Path) -> None:
        self.directory = out / "stages"

    def _marker(self, name: str) -> Path:
        return self.directory / f"{name}.json"

    def _attempts(self, name: str) -> Path:
        return self.directory / f"{name}.attempts"

    def record(self, name: str) -> StageRecord | None:
        """The record of a finished stage, or None when it has not finished."""
        path = self._marker(name)
        if not path.is_file():
            return None
        return StageRecord.model_validate_json(path.read_bytes())

    def records(self, names: Sequence[str]) -> list[StageRecord]:
        """Records of the finished stages among `names`, in that order."""
        return [r for r in (self.record(n) for n in names) if r is not None]

    def start(self, name: str) -> int:
        """Count a start of `name`; returns how many runs started it so far."""
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self._attempts(name)
        count = int(path.read_text() or 0) + 1 if path.is_file() else 1
        path.write_text(str(count))
        return count

    def finish(self, record: StageRecord) -> None:
        """Write the marker atomically (a kill mid-write leaves no marker, so the stage reruns)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        tmp = self._marker(record.name).with_suffix(".json.tmp")
        tmp.write_text(record.model_dump_json(indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, self._marker(record.name))

    def clear(self, name: str) -> None:
        """Forget that `name` finished."""
        self._marker(name).unlink(missing_ok=True)


async def run_stages(
    out: Path,
    stages: Sequence[Stage],
    *,
    redo: str | None = None,
    until: str | None = None,
    on_event: Callable[[str, str], None] | None = None,
) -> list[StageRecord]:
    """Run `stages` in order, skipping those already finished in `out`.

    Args:
        out: the loop's output directory.
        stages: the stages, in order.
        redo: rerun this stage and every later one even if finished.
        until: stop after this stage.
        on_event: called with (stage name, "skip" | "start" | "done") for progress output.

    Returns:
        The records of every finished stage among `stages`.

    Raises:
        LoopConfigError: when `redo` or `until` names no stage.
        StageError: when a stage fails (wrapping its error); earlier markers stay.
        RecipeError: a stage's own loop error (e.g. `OverlapError`), unwrapped.
    """
    names = [s.name for s in stages]
    for option, value in (("redo", redo), ("until", until)):
        if value is not None and value not in names:
            raise LoopConfigError(f"--{option} {value!r}: no such stage; stages are {names}")
    book = StageBook(out)
    if redo is not None:
        for stage in stages[names.index(redo) :]:
            book.clear(stage.name)
            for path in stage.outputs:
                if path.is_dir():
                    shutil.rmtree(path)
                elif path.exists():
                    path.unlink()
    notify = on_event or (lambda name, event: None)
    for stage in stages:
        if book.record(stage.name) is not None:
            notify(stage.name, "skip")
        else:
            attempts = book.start(stage.name)
            notify(stage.name, "start")
            started = time.monotonic()
            try:
                summary = await stage.run()
            except RecipeError:
                raise
            except Exception as exc:
                raise StageError(f"stage {stage.name!r} failed: {_describe(exc)}") from exc
            book.finish(
                StageRecord(
                    name=stage.name, finished_at=datetime.now(UTC).isoformat(timespec="seconds"),
                    wall_s=round(time.monotonic() - started, 2), attempts=attempts, summary=summary,
                )
            )
            notify(stage.name, "done")
        if stage.name == until:
            break
    return book.records(names)


def _describe(exc: BaseException) -> str:
    """`Type: message` of the error, or of each error an exception group holds (a task group's own text names none)."""
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_describe(inner) for inner in exc.exceptions)
    return f"{type(exc).__name__}: {exc}"
