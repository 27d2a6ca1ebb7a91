import json
import os
import signal
import subprocess
import sys
import textwrap

import anyio
import pytest

from synth.core import JsonlStore, LLMCounts, PipelineStats, Stage, map_ordered, record_id, rejections_store
from synth.exceptions import StoreCorrupt


def test_append_skip_and_compact(tmp_path):
    store = JsonlStore(tmp_path / "s.jsonl")
    for i in (3, 1, 2):
        store.append({"id": f"r{i}", "v": i})
    store.append({"id": "r1", "v": 999})  # already done: not written twice
    reopened = JsonlStore(tmp_path / "s.jsonl")
    assert len(reopened) == 3 and reopened.get("r1")["v"] == 1
    reopened.compact(["r1", "r2", "r3"])
    lines = (tmp_path / "s.jsonl").read_text().splitlines()
    assert [json.loads(x)["id"] for x in lines] == ["r1", "r2", "r3"]


def test_torn_last_line_is_truncated(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text('{"id": "a"}\n{"id": "b"}\n{"id": "c", "v": "hal')
    store = JsonlStore(path)
    assert "c" not in store and len(store) == 2
    assert path.read_text() == '{"id": "a"}\n{"id": "b"}\n'
    store.append({"id": "c", "v": "whole"})
    assert JsonlStore(path).get("c") == {"id": "c", "v": "whole"}


def test_a_bad_line_before_the_last_is_corruption_naming_file_and_line(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text('{"id": "a"}\n{"id": \n{"id": "c"}\n')
    with pytest.raises(StoreCorrupt, match=f"{path}:2: invalid JSON"):
        JsonlStore(path)


def test_stage_done_covers_accepted_and_rejected(tmp_path):
    rejected = rejections_store(tmp_path)
    decompose = Stage.open(tmp_path, "decompose", rejected)
    checks = Stage.open(tmp_path, "checks", rejected)
    decompose.accept({"id": "x"})
    decompose.reject("y", "invalid_output", "score missing")
    checks.reject("x", "low_score")
    assert decompose.done("x") and decompose.done("y") and not decompose.done("z")
    assert checks.done("x") and not checks.done("y")
    again = Stage.open(tmp_path, "decompose", rejections_store(tmp_path))
    assert [r.reason for r in again.rejections()] == ["invalid_output"]
    assert again.rejections()[0].detail == "score missing"


def test_record_id_is_content_derived():
    assert record_id({"a": 1, "b": [2]}) == record_id({"b": [2], "a": 1})
    assert record_id({"a": 1}) != record_id({"a": 2})


def test_kill_9_mid_run_then_resume_loses_and_duplicates_nothing(tmp_path):
    path = tmp_path / "s.jsonl"
    writer = textwrap.dedent(
        f"""
        import sys, time
        from synth.core import JsonlStore
        s = JsonlStore({str(path)!r})
        for i in range(100000):
            s.append({{"id": f"r{{i}}", "pad": "x" * 200}})
            if i == 20:
                print("ready", flush=True)
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", writer], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    store = JsonlStore(path)
    done = len(store)
    assert done >= 21
    assert path.read_bytes().endswith(b"\n")
    for i in range(done + 50):
        store.append({"id": f"r{i}", "pad": "x" * 200})
    ids = [json.loads(line)["id"] for line in path.read_text().splitlines()]
    assert len(ids) == len(set(ids)) == done + 50


@pytest.mark.anyio
async def test_map_ordered_keeps_input_order_and_limit():
    in_flight = 0
    peak = 0

    async def work(x):
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await anyio.sleep(0.001 * (10 - x))
        in_flight -= 1
        return x * x

    out = await map_ordered(list(range(10)), work, limit=3, show_progress=False)
    assert out == [x * x for x in range(10)]
    assert peak == 3


def test_stats_funnel_and_accumulated_llm_counts(tmp_path):
    rejected = rejections_store(tmp_path)
    a = Stage.open(tmp_path, "a", rejected)
    b = Stage.open(tmp_path, "b", rejected)
    for i in range(4):
        a.accept({"id": str(i)})
    a.reject("4", "no_json")
    b.accept({"id": "0"})
    b.reject("1", "low_score")
    b.reject("2", "low_score")
    kwargs = dict(pipeline="t", stages=[a, b], wall_time_s=1.5, input_records=5, outputs=1)
    PipelineStats.finish(tmp_path / "stats.json", llm=LLMCounts(calls=7, prompt_tokens=100), **kwargs)
    stats = PipelineStats.finish(tmp_path / "stats.json", llm=LLMCounts(calls=0, cache_hits=7), **kwargs)
    assert [(f.stage, f.seen, f.accepted, f.reasons) for f in stats.funnel] == [
        ("a", 5, 4, {"no_json": 1}),
        ("b", 3, 1, {"low_score": 2}),
    ]
    assert stats.llm_total.calls == 7 and stats.llm_total.cache_hits == 7 and stats.runs == 2
    on_disk = json.loads((tmp_path / "stats.json").read_text())
    assert on_disk["wall_time_s_total"] == 3.0


def test_discard_removes_records_durably(tmp_path):
    store = rejections_store(tmp_path)
    stage = Stage.open(tmp_path, "decompose", store)
    stage.reject("a", "model_error", "endpoint down")
    stage.reject("b", "no_json")
    assert store.discard(["decompose:a", "decompose:zzz"]) == 1
    again = Stage.open(tmp_path, "decompose", rejections_store(tmp_path))
    assert not again.done("a") and again.done("b")
