"""Stage 5: the seven-dimension judge scores, and fails closed (excluded, never passed)."""

from __future__ import annotations

import json

import pytest

from agent_sdk import FunctionModel
from synth.sft import DIMENSIONS, judge_trajectory
from synth.sft._report import judge_exclusions

MESSAGES = [
    {"role": "system", "content": "You are a helpful assistant with tools."},
    {"role": "user", "content": "Book me the cheapest flight from SFO to JFK on 2025-06-01."},
    {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "search_flights", "arguments": "{\"origin\": \"SFO\"}"}}]},
    {"role": "tool", "tool_call_id": "c1", "name": "search_flights", "content": "[{\"flight_id\": \"FL-1\", \"fare\": 120}]"},
    {"role": "assistant", "content": "", "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "book_flight", "arguments": "{\"flight_id\": \"FL-1\"}"}}]},
    {"role": "tool", "tool_call_id": "c2", "name": "book_flight", "content": "Error: the service is unreachable (503)."},
    {"role": "assistant", "content": "I found FL-1 at $120 but booking failed; please retry later."},
]

GOOD = {
    "query_understanding": "yes",
    "query_planning": "mostly",
    "tool_response_understanding": ["yes", "partly"],
    "tool_call_planning": ["mostly", "mostly"],
    "conciseness": "partly",
    "final_answer": "yes",
    "reason": "noticed the failure",
}


@pytest.mark.anyio
async def test_scores_seven_dimensions() -> None:
    verdict = await judge_trajectory(FunctionModel.from_replies(json.dumps(GOOD)), MESSAGES, error_call_ids={"c2"})
    assert verdict.judged and not verdict.missing
    assert set(verdict.dimensions) == set(DIMENSIONS)
    assert verdict.dimensions["tool_call_success"] == 0.5, "one of two calls failed"
    assert verdict.dimensions["tool_response_understanding"] == pytest.approx(0.7)
    assert verdict.findings == [], "the failure is reported and every value is a tool's"
    expected = (1.0 + 0.75 + 0.7 + 0.75 + 0.5 + 0.4 + 1.0) / 7
    assert verdict.score == pytest.approx(expected)


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("replies", "missing"),
    [
        ([RuntimeError("judge endpoint down")] * 3, [d for d in DIMENSIONS if d != "tool_call_success"]),
        (["I liked it."] * 3, [d for d in DIMENSIONS if d != "tool_call_success"]),
        ([json.dumps({**GOOD, "final_answer": None})] * 3, ["final_answer"]),
        ([json.dumps({**GOOD, "tool_call_planning": ["yes"]})] * 3, ["tool_call_planning"]),
        ([json.dumps({**GOOD, "conciseness": 8})] * 3, ["conciseness"]),
    ],
    ids=["model_error", "no_json", "missing_score", "wrong_step_count", "not_a_verdict"],
)
async def test_failing_judge_excludes_the_trajectory(replies, missing) -> None:
    verdict = await judge_trajectory(FunctionModel.from_replies(*replies), MESSAGES, error_call_ids={"c2"})
    assert not verdict.judged, "a failed judge never passes a trajectory"
    assert verdict.score is None
    assert verdict.missing == missing
    assert verdict.failure


@pytest.mark.anyio
async def test_judge_retry_recovers_and_exclusion_rates() -> None:
    fixed = await judge_trajectory(FunctionModel.from_replies(json.dumps({**GOOD, "conciseness": None}), json.dumps(GOOD)), MESSAGES)
    assert fixed.judged, "the missing score is fed back and the retry fills it"
    failed = await judge_trajectory(FunctionModel.from_replies(*[json.dumps({**GOOD, "final_answer": "great"})] * 3), MESSAGES)
    stats = judge_exclusions([{"id": "a", **fixed.model_dump()}, {"id": "b", **failed.model_dump()}])
    assert stats["unjudged"] == 1 and stats["unjudged_rate"] == 0.5
    low = 1 if fixed.dimensions["final_answer"] < 0.6 else 0
    assert stats["per_dimension"]["final_answer"] == {"missing": 1, "exclusion_rate": 0.5, "below_bar": low, "below_bar_rate": low / 2}
    assert stats["per_dimension"]["conciseness"]["missing"] == 0 and stats["per_dimension"]["conciseness"]["exclusion_rate"] == 0.0
    # below the export bar counts judged verdicts only, per dimension
    judged = {"id": "c", "judged": True, "dimensions": {"conciseness": 0.3, "final_answer": 0.9}, "missing": []}
    assert judge_exclusions([judged])["per_dimension"]["conciseness"]["below_bar"] == 1
    assert judge_exclusions([judged])["per_dimension"]["final_answer"]["below_bar"] == 0


@pytest.mark.anyio
async def test_a_judge_copying_its_example_is_rejected_with_its_own_code() -> None:
    from synth.sft._judge import judge_example

    example = judge_example(2)
    assert all(v == "no" for k, v in example.value.items() if k in ("query_understanding", "final_answer")), "the example fails the export bar"
    placeholder = json.dumps({**GOOD, "reason": "<one sentence>"})
    for copy in (example.text, placeholder):
        model = FunctionModel.from_replies(copy, copy, copy)
        verdict = await judge_trajectory(model, MESSAGES, error_call_ids={"c2"})
        assert not verdict.judged and verdict.score is None and verdict.failure_code == "copied_example"
        assert "copied the format example" in model.requests[1].messages[-1].content, "the retry says why"


@pytest.mark.anyio
async def test_the_judge_shows_its_example_only_when_the_schema_is_not_enforced() -> None:
    from synth.sft._judge import judge_example

    for enforced in (False, True):
        model = FunctionModel(lambda *_: "no json", supports_output_schema=enforced)
        await judge_trajectory(model, MESSAGES)
        prompt = model.requests[0].messages[-1].content
        assert (judge_example(2).text in prompt, "Format" in prompt) == (not enforced, not enforced), "shown scores anchor a small judge"


def test_the_judge_schema_asks_exactly_one_verdict_per_step() -> None:
    import jsonschema

    from synth.sft._judge import judge_schema

    schema = judge_schema(2)
    jsonschema.validate(GOOD, schema)
    for bad in ({**GOOD, "tool_call_planning": ["yes"]}, {**GOOD, "tool_call_planning": ["yes"] * 3}, {**GOOD, "conciseness": 8}, {**GOOD, "final_answer": "great"}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)
    assert judge_schema(3)["properties"]["tool_response_understanding"]["minItems"] == 3


@pytest.mark.anyio
async def test_an_error_the_answer_hides_halves_the_score() -> None:
    hidden = [*MESSAGES[:-1], {"role": "assistant", "content": "Done: FL-1 at $120 is yours."}]
    honest = await judge_trajectory(FunctionModel.from_replies(json.dumps(GOOD)), MESSAGES, error_call_ids={"c2"})
    hiding = await judge_trajectory(FunctionModel.from_replies(json.dumps(GOOD)), hidden, error_call_ids={"c2"})
    assert hiding.findings == ["step 2 returned an error that the assistant neither recovered from nor told the user about"]
    dims = hiding.dimensions
    assert dims["final_answer"] == 0.4 and dims["tool_response_understanding"] == pytest.approx(0.5), "capped at partly; the step zeroed"
    assert hiding.score == pytest.approx(sum(dims.values()) / 7 * 0.5) and hiding.score < honest.score / 2


@pytest.mark.anyio
async def test_verdicts_weigh_by_the_judges_own_probabilities_when_the_endpoint_returns_them() -> None:
    import math
    import re

    from agent_sdk import ChatMessage, ModelResponse, TokenChoice

    text = json.dumps(GOOD)

    def reply(p_final: float) -> ModelResponse:
        # The final_answer's "yes" is the last "yes" of the reply; its alternatives are "yes" and "no".
        last = text.rindex('"yes"') + 1
        choices, at = [], 0
        for token in re.findall(r"\w+|\s+|[^\w\s]", text):
            top = {"yes": p_final, "no": 1 - p_final} if at == last else {}
            choices.append(TokenChoice(token=token, logprob=math.log(top.get(token, 1.0)), top={t: math.log(p) for t, p in top.items()}))
            at += len(token)
        return ModelResponse(message=ChatMessage(role="assistant", content=text), token_choices=choices)

    sure = await judge_trajectory(FunctionModel(lambda messages, tools, settings: reply(0.95)), MESSAGES, error_call_ids={"c2"})
    unsure = await judge_trajectory(FunctionModel(lambda messages, tools, settings: reply(0.55)), MESSAGES, error_call_ids={"c2"})
    assert sure.dimensions["final_answer"] == pytest.approx(0.95) and unsure.dimensions["final_answer"] == pytest.approx(0.55)
    assert unsure.score < sure.score
    assert {k: v for k, v in sure.dimensions.items() if k != "final_answer"} == {k: v for k, v in unsure.dimensions.items() if k != "final_answer"}
    model = FunctionModel(lambda messages, tools, settings: reply(0.95))
    await judge_trajectory(model, MESSAGES)
    assert model.requests[0].settings.top_logprobs == 5, "the judge asks for the probabilities"
