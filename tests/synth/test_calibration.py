"""The judge calibration: the committed set loads; a scripted judge that sees the planted flaw ranks
every pair right, one that scores everything alike ranks none (ties are wrong), and one that fails
closed scores 0; the CLI prints the table."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent_sdk import FunctionModel
from synth.calibration import CALIBRATION_FILES, JUDGES, calibrate, load_pairs

SET = Path(__file__).resolve().parents[2] / "examples" / "calibration"


def test_the_committed_set_has_pairs_for_every_judge_and_planted_kind():
    kinds = {f: {p.kind for p in load_pairs(SET, f)} for f in CALIBRATION_FILES}
    assert kinds["sft_trajectory"] == {
        "wrong_tool", "hallucinated_value", "repeated_calls", "unfaithful_answer", "error_ignored",
        "invented_id", "no_answer", "echoed_error", "asks_for_tool_output",
    }  # fmt: skip
    assert kinds["decomposition"] == {"non_atomic", "wrong_dependency", "describes_answer", "incoherent"}
    assert kinds["task"] == {"off_server", "trivial"}
    for file_kind, kind in JUDGES.values():
        assert [p for p in load_pairs(SET, file_kind) if kind is None or p.kind == kind], (file_kind, kind)


def small_set(tmp_path: Path) -> Path:
    """One pair per file, the bad twin marked Planted so a scripted judge can see it."""
    root = tmp_path / "cal"
    root.mkdir()
    for file_kind, name in CALIBRATION_FILES.items():
        pairs = load_pairs(SET, file_kind)
        chosen = [next(p for p in pairs if p.kind == kind) for kind in dict.fromkeys(p.kind for p in pairs)]
        lines = []
        for pair in chosen:
            row = pair.model_dump()
            lines.append(json.dumps({**row, "bad": _mark(row["bad"])}, ensure_ascii=False))
        (root / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def _mark(item):
    if isinstance(item, str):
        return item + " Planted"
    if "messages" in item:
        return {**item, "messages": [*item["messages"][:-1], {**item["messages"][-1], "content": item["messages"][-1]["content"] + " Planted"}]}
    return {**item, "final_answer": item["final_answer"] + " Planted"}


def seeing_judge(messages, tools, settings):
    """Scores by whether the item carries the planted marker, in each judge's own reply format."""
    prompt = next(m.content for m in messages if m.role == "user")
    bad = "Planted" in prompt
    if "Judge this criterion only" in prompt or "Judge lookup" in prompt:
        return json.dumps({"reason": "checked", "verdict": "no" if bad else "yes"})
    if "A user sends this request" in prompt:
        s = "no" if bad else "yes"
        tool = "none" if bad else re.search(r"^- (\w+)\(", prompt, re.MULTILINE).group(1)
        return json.dumps({"reason": "scored", "first_tool": tool, "needs_tools": "no" if bad else "yes", "clear": s, "realistic": s})
    steps = int(re.search(r"\((\d+) tool steps\)", prompt).group(1))
    s = "partly" if bad else "yes"
    return json.dumps({"reason": "judged", "query_understanding": s, "query_planning": s, "tool_response_understanding": [s] * steps,
                       "tool_call_planning": [s] * steps, "conciseness": s, "final_answer": s})


@pytest.mark.anyio
async def test_a_judge_that_sees_the_flaw_ranks_every_pair_right(tmp_path):
    results = await calibrate(FunctionModel(seeing_judge), small_set(tmp_path))
    by = {r.judge: r for r in results}
    assert set(by) == set(JUDGES)
    assert by["sft_trajectory"].pairs == 9 and by["decomposition"].pairs == 4 and by["task"].pairs == 2
    for r in results:
        assert r.accuracy == 1.0 and r.ties == 0 and r.unscored == 0 and r.misranked == [], r.judge
        assert r.spread > 0.5
    assert by["coherence"].by_kind == {"incoherent": 1.0}


@pytest.mark.anyio
async def test_a_judge_that_scores_alike_or_fails_ranks_nothing(tmp_path):
    root = small_set(tmp_path)

    def alike(messages, tools, settings):
        return seeing_judge([m.model_copy(update={"content": (m.content or "").replace("Planted", "")}) for m in messages], tools, settings)

    (flat,) = await calibrate(FunctionModel(alike), root, judges=["task"])
    assert (flat.accuracy, flat.ties, flat.spread) == (0.0, 2, 0.0)
    (ruled,) = await calibrate(FunctionModel(alike), root, judges=["decomposition"])
    assert ruled.by_kind == {"describes_answer": 1.0, "incoherent": 1.0, "non_atomic": 1.0, "wrong_dependency": 0.0}, (
        "the trace rules reject three planted twins before any judge is asked; a wrong dependency needs the judge"
    )
    (broken,) = await calibrate(FunctionModel(lambda *_: "no idea"), root, judges=["atomicity"])
    assert broken.accuracy == 0.0 and broken.unscored == 1 and broken.good_mean == 0.0, "the good twin fails closed; the rule scores the planted one"


@pytest.mark.anyio
async def test_a_wrong_dependency_the_pipeline_repairs_into_the_good_twin_counts_right_unjudged(tmp_path):
    root = tmp_path / "cal"
    root.mkdir()
    planted = [p for p in load_pairs(SET, "decomposition") if p.kind == "wrong_dependency"]
    (root / CALIBRATION_FILES["decomposition"]).write_text("\n".join(p.model_dump_json() for p in planted) + "\n", encoding="utf-8")

    def unasked(*_):
        raise AssertionError("a repaired pair is not judged")

    (ruled,) = await calibrate(FunctionModel(unasked), root, judges=["decomposition"])
    assert (ruled.accuracy, ruled.repaired, ruled.by_kind) == (1.0, len(planted), {"wrong_dependency": 1.0}), (
        "declared-but-unused dependencies are dropped and carried-but-undeclared ones added before any judge"
    )


def test_the_cli_names_an_unknown_judge_or_set_before_starting_a_model(tmp_path):
    from astra_cli import app

    runner = CliRunner()
    bad = runner.invoke(app, ["judge", "calibrate", "--judge", "nope"])
    assert bad.exit_code == 2 and "judges are" in bad.output
    missing = runner.invoke(app, ["judge", "calibrate", "--set", str(tmp_path / "none")])
    assert missing.exit_code == 2 and "no such calibration directory" in missing.output
