"""The summary: intervals for small samples, markdown and JSON, runs adding up in one directory."""

from __future__ import annotations

import json

from harness import BenchmarkRow, Summary, wilson_interval


def test_wilson_interval_brackets_the_rate_and_narrows_with_n() -> None:
    low, high = wilson_interval(25, 50)
    assert low < 0.5 < high
    wide, narrow = wilson_interval(5, 10), wilson_interval(500, 1000)
    assert wide[1] - wide[0] > narrow[1] - narrow[0]
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0


def test_rows_runs_and_published_reference_rows(tmp_path) -> None:
    first = Summary(model="m")
    first.rows.append(BenchmarkRow.from_scores("ACEBench", "agent", "m", [1, 0, 1, 1], trials=2))
    first.write(tmp_path)
    second = Summary(model="m")
    second.rows.append(BenchmarkRow.from_scores("BFCL-v3 multi-turn", "multi_turn_base", "m", [1.0] * 200))
    _, md = second.write(tmp_path)
    data = json.loads((tmp_path / "summary.json").read_text())
    assert [(r["benchmark"], r["category"]) for r in data["rows"]] == [
        ("ACEBench", "agent"), ("BFCL-v3 multi-turn", "multi_turn_base")]
    assert data["rows"][0]["ci95"] is not None and data["rows"][1]["ci95"] is None
    text = md.read_text()
    assert "| m | agent | 4 | 2 | 0.750 |" in text
    assert "| ASTRA-32B-Thinking-v1 (published) | multi_turn_base | | | 0.765 |" in text
    assert "| Qwen3-14B (published) | agent_multi_step | | | 0.575 |" in text
    second.rows.append(BenchmarkRow.from_scores("ACEBench", "agent", "m", [0, 0]))
    second.write(tmp_path)
    rows = json.loads((tmp_path / "summary.json").read_text())["rows"]
    assert [(r["category"], r["score"]) for r in rows] == [("agent", 0.0), ("multi_turn_base", 1.0)]
