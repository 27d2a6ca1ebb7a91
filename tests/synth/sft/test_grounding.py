"""The judge's evidence read off the conversation: on the calibration set's real pairs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_sdk import FunctionModel
from synth.sft import judge_trajectory
from synth.sft._grounding import grounding

PAIRS = [json.loads(line) for line in (Path(__file__).parents[3] / "examples" / "calibration" / "sft_trajectory.jsonl").open()]


def _found(item):
    return grounding(item["messages"], set(item.get("error_call_ids") or []))


def test_no_good_twin_has_a_finding():
    flagged = [p["id"] for p in PAIRS if _found(p["good"]).lines()]
    assert flagged == [], "ISO timestamps, long codes and CJK answers are read as the tools wrote them"


@pytest.mark.parametrize(
    ("kind", "field"),
    [("repeated_calls", "repeated_steps"), ("hallucinated_value", "ungrounded_values"), ("error_ignored", "ignored_errors")],
)
def test_each_bad_twin_of_a_readable_kind_is_found(kind, field):
    bad = [p for p in PAIRS if p["kind"] == kind]
    assert bad and all(getattr(_found(p["bad"]), field) for p in bad)


def test_values_and_recovery():
    messages = [
        {"role": "user", "content": "When does G11 leave on 2026-03-14?"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_train", "arguments": "{\"train\": \"G11\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "Error: timeout"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "get_train", "arguments": "{\"train\": \"G11\"}"}}]},
        {"role": "tool", "tool_call_id": "c2", "content": "{\"departs\": \"2026-03-14T14:05\", \"price_cny\": 662.0}"},
        {"role": "assistant", "content": "G11 leaves at 14:05 on 2026-03-14 and costs ¥662; 3 seats are left at ¥1,200."},
    ]
    found = grounding(messages, {"c1"})
    assert found.repeated_steps == [2], "the retry repeats the call"
    assert found.ignored_errors == [], "a later call succeeded"
    assert found.ungrounded_values == ["1,200"], "one digit is too common to tell; the invented price is not in any result"


@pytest.mark.anyio
async def test_findings_are_shown_and_applied():
    bad = next(p for p in PAIRS if p["kind"] == "hallucinated_value")["bad"]
    steps = sum(len(m.get("tool_calls") or []) for m in bad["messages"])
    praise = {"reason": "fine", "query_understanding": "yes", "query_planning": "yes", "tool_call_planning": ["yes"] * steps,
              "tool_response_understanding": ["yes"] * steps, "conciseness": "yes", "final_answer": "yes"}  # fmt: skip
    model = FunctionModel.from_replies(json.dumps(praise))
    verdict = await judge_trajectory(model, bad["messages"])
    assert verdict.judged and verdict.dimensions["final_answer"] == 0.0, "a value no tool returned fails the answer, whatever the judge says"
    assert verdict.score == pytest.approx(6 / 7 * 0.5), "a proven flaw halves the score: the other verdicts cannot lift it over the bar"
    assert "no tool result or user message contains" in model.requests[0].messages[-1].content
    assert verdict.findings
