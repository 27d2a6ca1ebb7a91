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
    [
        ("repeated_calls", "repeated_steps"), ("hallucinated_value", "ungrounded_values"), ("error_ignored", "ignored_errors"),
        ("invented_id", "invented_arguments"), ("no_answer", "answer_problem"), ("echoed_error", "answer_problem"),
        ("asks_for_tool_output", "answer_problem"),
    ],
)  # fmt: skip
def test_each_bad_twin_of_a_readable_kind_is_found(kind, field):
    bad = [p for p in PAIRS if p["kind"] == kind]
    assert bad and all(getattr(_found(p["bad"]), field) for p in bad)


def test_a_refusal_the_answer_turns_into_good_news_is_found():
    # "sold_out" answered "Good news, still has seats"; a rejected transfer answered "Yes, it went through" has a
    # negative word ("nothing more you need to do"), and a wrong winner is no refusal: those stay with the judge
    found = {p["id"]: _found(p["bad"]).unreported_refusals for p in PAIRS if p["kind"] == "unfaithful_answer"}
    assert found == {"traj-unfaithful_answer-1": [1], "traj-unfaithful_answer-2": [1], "traj-unfaithful_answer-3": [], "traj-unfaithful_answer-4": []}

    def talk(result: dict, answer: str) -> list[dict]:
        call = {"id": "c1", "type": "function", "function": {"name": "check_room", "arguments": "{\"date\": \"2026-05-02\"}"}}
        return [{"role": "user", "content": "Is a room free on 2026-05-02?"}, {"role": "assistant", "content": "", "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "c1", "content": json.dumps(result)}, {"role": "assistant", "content": answer}]

    assert grounding(talk({"room": "A", "available": False}, "Room A is yours on 2026-05-02."), set()).unreported_refusals == [1]
    assert grounding(talk({"rooms": [{"status": "FULLY_BOOKED"}]}, "Room A is yours on 2026-05-02."), set()).unreported_refusals == [1]
    assert grounding(talk({"room": "A", "available": False}, "Sorry, room A is taken on 2026-05-02."), set()).unreported_refusals == []
    assert grounding(talk({"room": "A", "overtime": False, "status": "free"}, "Room A is yours on 2026-05-02."), set()).unreported_refusals == [], (
        "a false flag that is not about availability refuses nothing"
    )


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
    assert found.repeated_steps == [], "a retry after an error is what the timeout asks for, not a repeat"
    assert found.ignored_errors == [], "a later call succeeded"
    assert found.ungrounded_values == ["1,200"], "one digit is too common to tell; the invented price is not in any result"


@pytest.mark.anyio
@pytest.mark.parametrize(("kind", "shown"), [("hallucinated_value", "no tool result or user message contains"), ("no_answer", "does not answer the user")])
async def test_findings_are_shown_and_applied(kind, shown):
    bad = next(p for p in PAIRS if p["kind"] == kind)["bad"]
    steps = sum(len(m.get("tool_calls") or []) for m in bad["messages"])
    praise = {"reason": "fine", "query_understanding": "yes", "query_planning": "yes", "tool_call_planning": ["yes"] * steps,
              "tool_response_understanding": ["yes"] * steps, "conciseness": "yes", "final_answer": "yes"}  # fmt: skip
    model = FunctionModel.from_replies(json.dumps(praise))
    verdict = await judge_trajectory(model, bad["messages"])
    assert verdict.judged and verdict.dimensions["final_answer"] == 0.0, "a value no tool returned, or no answer, fails the answer whatever the judge says"
    if kind == "no_answer":
        assert verdict.score == 0.0, "no answer is no conversation to learn from, whatever the judge says"
    else:
        assert verdict.score == pytest.approx(6 / 7 * 0.5), "a proven flaw halves the score: the other verdicts cannot lift it over the bar"
    assert shown in model.requests[0].messages[-1].content
    assert verdict.findings


def test_a_call_with_an_id_no_one_gave_is_invented():
    # the teacher as agent called get_flight_details(flight_id='F12345') after a search that returned AA123
    def call(cid: str, name: str, arguments: dict) -> dict:
        return {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}

    messages = [
        {"role": "user", "content": "Which seats are free on my flight from LAX to JFK on October 15?"},
        {"role": "assistant", "content": "", "tool_calls": [call("a", "search_flights", {"origin": "LAX", "destination": "JFK", "date": "2026-10-15"})]},
        {"role": "tool", "tool_call_id": "a", "content": json.dumps({"flights": [{"flight_id": "AA123"}]})},
        {"role": "assistant", "content": "", "tool_calls": [call("b", "get_seats", {"flight_id": "AA123"}), call("c", "get_seats", {"flight_id": "F12345"})]},
        {"role": "tool", "tool_call_id": "b", "content": "{}"},
        {"role": "tool", "tool_call_id": "c", "content": "{}"},
        {"role": "assistant", "content": "", "tool_calls": [call("d", "get_fare", {"date": "2023-0101", "cabin": "economy"})]},
        {"role": "tool", "tool_call_id": "d", "content": "{}"},
        {"role": "assistant", "content": "Seats 14C and 15A are free."},
    ]
    found = grounding(messages, set())
    assert found.invented_arguments == [3, 4], "an id no result returned, and a malformed date; a date written out from words is a conversion"
    assert any("neither the user nor an earlier result gave" in line for line in found.lines())


def test_a_value_written_apart_from_its_unit_is_the_value_the_tool_returned():
    # e.g. an answer of "325 mg" for the tool's "325mg", once found to state an ungrounded 325
    call = {"id": "c1", "type": "function", "function": {"name": "get_medicine_info", "arguments": "{\"medicine_id\": \"12345\"}"}}
    messages = [{"role": "user", "content": "Dose of medicine 12345?"}, {"role": "assistant", "content": "", "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "c1", "content": "{\"standard_adult_dose\": \"325mg\"}"},
                {"role": "assistant", "content": "The standard dose is 325 mg; the daily maximum is 4000 mg."}]  # fmt: skip
    assert grounding(messages, set()).ungrounded_values == ["4000"]


def test_debris_beside_a_call_and_an_answer_that_states_no_result_are_found():
    # teacher rows exported at 0.98 and 0.89
    call = {"id": "c1", "type": "function", "function": {"name": "search_restaurants", "arguments": '{"city": "New York"}'}}
    messages = [
        {"role": "user", "content": "Find Italian restaurants in New York."},
        {"role": "assistant", "content": '{{"name": "check_tables", "arguments": {"restaurant_id": <restaurant-id-from-search-results>}}}', "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": '[{"name": "La Piazza", "restaurant_id": "12345"}]'},
        {"role": "assistant", "content": "Your request is valid after the restaurants are checked."},
    ]
    found = grounding(messages, set())
    assert found.debris_steps == [1] and found.states_no_result and len(found.lines()) == 2
    messages[1] = {**messages[1], "content": ""}
    messages[3] = {**messages[3], "content": "La Piazza (id 12345) serves Italian food in New York."}
    assert grounding(messages, set()).lines() == []
    assert grounding(messages[:3] + [{"role": "assistant", "content": "I could not reach the service."}], {"c1"}).states_no_result is False, (
        "after a failed call there is nothing to state"
    )
