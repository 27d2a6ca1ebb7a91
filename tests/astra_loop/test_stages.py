"""Stage sequencing and resume: markers, a failure mid-run, --redo and --until."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from astra_loop import LoopConfigError, Stage, StageBook, StageError, run_stages

pytestmark = pytest.mark.anyio


def _stages(out: Path, calls: list[str], fail: set[str]) -> list[Stage]:
    """Three stages that each write a file from the previous one's, failing on demand."""

    def make(name: str, previous: str | None) -> Stage:
        async def run() -> dict:
            calls.append(name)
            if name in fail:
                raise RuntimeError(f"{name} was killed")
            text = (out / f"{previous}.txt").read_text() if previous else ""
            (out / f"{name}.txt").write_text(text + name)
            return {"wrote": f"{name}.txt"}

        return Stage(name=name, run=run)

    return [make("a", None), make("b", "a"), make("c", "b")]


async def test_a_rerun_resumes_at_the_first_unfinished_stage(tmp_path: Path) -> None:
    calls: list[str] = []
    with pytest.raises(StageError, match="stage 'b' failed: RuntimeError: b was killed"):
        await run_stages(tmp_path, _stages(tmp_path, calls, fail={"b"}))
    book = StageBook(tmp_path)
    assert book.record("a") is not None and book.record("b") is None
    assert calls == ["a", "b"]

    calls.clear()
    records = await run_stages(tmp_path, _stages(tmp_path, calls, fail=set()))
    assert calls == ["b", "c"]
    assert [r.name for r in records] == ["a", "b", "c"]
    assert (tmp_path / "c.txt").read_text() == "abc"
    by_name = {r.name: r for r in records}
    assert by_name["a"].attempts == 1 and by_name["b"].attempts == 2
    assert by_name["c"].summary == {"wrote": "c.txt"}
    assert json.loads((tmp_path / "stages" / "c.json").read_text())["name"] == "c"

    calls.clear()
    await run_stages(tmp_path, _stages(tmp_path, calls, fail=set()))
    assert calls == []


async def test_redo_reruns_a_stage_and_every_later_one_and_until_stops(tmp_path: Path) -> None:
    calls: list[str] = []
    records = await run_stages(tmp_path, _stages(tmp_path, calls, fail=set()), until="b")
    assert calls == ["a", "b"] and [r.name for r in records] == ["a", "b"]
    calls.clear()
    await run_stages(tmp_path, _stages(tmp_path, calls, fail=set()))
    assert calls == ["c"]
    calls.clear()
    events: list[tuple[str, str]] = []
    await run_stages(tmp_path, _stages(tmp_path, calls, fail=set()), redo="b", on_event=lambda s, e: events.append((s, e)))
    assert calls == ["b", "c"]
    assert events == [("a", "skip"), ("b", "start"), ("b", "done"), ("c", "start"), ("c", "done")]


async def test_unknown_stage_names_are_refused(tmp_path: Path) -> None:
    with pytest.raises(LoopConfigError, match="--redo 'x': no such stage; stages are \\['a', 'b', 'c'\\]"):
        await run_stages(tmp_path, _stages(tmp_path, [], fail=set()), redo="x")
    with pytest.raises(LoopConfigError, match="--until 'z'"):
        await run_stages(tmp_path, _stages(tmp_path, [], fail=set()), until="z")


async def test_a_stage_failing_inside_a_task_group_names_the_inner_error(tmp_path: Path) -> None:
    import anyio

    async def run() -> dict:
        async def episode() -> None:
            raise TimeoutError("the arena did not answer within 30 s")

        async with anyio.create_task_group() as tg:
            tg.start_soon(episode)
        return {}

    with pytest.raises(StageError, match="stage 'grpo' failed: TimeoutError: the arena did not answer within 30 s"):
        await run_stages(tmp_path, [Stage(name="grpo", run=run)])
