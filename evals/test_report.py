"""The summary: intervals for small samples, markdown and JSON, runs adding up in one directory."""

from __future__ import annotations

import json

from harness import BenchmarkRow, RunInfo, Summary, wilson_interval


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
    assert ("| category | m | Qwen3-14B (published) | Qwen3-32B (published) | ASTRA-14B-Thinking-v1 (published) "
            "| ASTRA-32B-Thinking-v1 (published) |") in text
    assert "| multi_turn_base | 1.000 (n=200) | 0.540 | 0.590 | 0.670 | 0.765 |" in text
    assert "| agent_multi_step |  | 0.575 | 0.637 | 0.838 | 0.838 |" in text
    second.rows.append(BenchmarkRow.from_scores("ACEBench", "agent", "m", [0, 0]))
    second.write(tmp_path)
    rows = json.loads((tmp_path / "summary.json").read_text())["rows"]
    assert [(r["category"], r["score"]) for r in rows] == [("agent", 0.0), ("multi_turn_base", 1.0)]


def test_two_labels_sit_side_by_side_with_overall_means(tmp_path) -> None:
    categories = ("multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context")
    for label, model, scores in (("base", "embedded", [0, 0, 1]), ("trained", "/ckpt/trained", [1, 1, 0])):
        run = Summary(model=label, runs={label: RunInfo(model=model, protocol="sampled")})
        for category in categories:
            run.add(BenchmarkRow.from_scores("BFCL-v3 multi-turn", category, label, scores), tmp_path)
    summary = Summary.model_validate_json((tmp_path / "summary.json").read_text())
    assert list(summary.runs) == ["base", "trained"] and summary.runs["trained"].model == "/ckpt/trained"
    text = (tmp_path / "summary.md").read_text()
    assert "| base | embedded | sampled |" in text and "| trained | /ckpt/trained | sampled |" in text
    assert "| category | base | trained | Qwen3-14B (published) |" in text
    assert "| multi_turn_base | 0.333 (n=3) | 0.667 (n=3) | 0.540 |" in text
    assert "| overall | 0.333 | 0.667 | 0.445 |" in text
    assert "| overall (agent) | 0.517 |" in text  # no run rows for ACEBench: published columns only
