"""ACEBench agent categories: executors against the gold data (integrity), scoring, and model runs."""

from __future__ import annotations

import json
from typing import Any

import pytest
from harness.acebench import (
    AGENT_CATEGORIES,
    AgentEpisode,
    ExecutedCall,
    data_missing,
    end_state_mismatches,
    gold_paths,
    load_category,
    milestone_report,
    parse_milestone,
    play_agent_entry,
    process_accuracy,
    replay_gold_paths,
    write_results,
)
from model_run import OpenCategory, model_test
from play_script import tool_calls

from agent_sdk import FunctionModel

pytestmark = pytest.mark.skipif(data_missing() is not None, reason=data_missing() or "")

# Gold paths that do not reach their own gold end state, and why (see evals/README.md).
NOT_REPRODUCED = {
    "agent_multi_turn": {"agent_multi_turn_6"},  # views messages without logging in; gold says logged in
    "agent_multi_step": {
        "agent_multi_step_0", "agent_multi_step_1",  # orders 'Super Supreme' (menu: 'Super Supreme Pizza'); no 'To-do list' reminder
        "agent_multi_step_12", "agent_multi_step_13",  # orders without logging in to the food platform
        "agent_multi_step_14", "agent_multi_step_15", "agent_multi_step_17",  # delete message 3; gold end state lacks 4
        "agent_multi_step_16",  # reads a reminder without logging in to the device
    },
}


def _gold_calls(entry) -> list[tuple[str, dict[str, Any]]]:
    return [call for milestone in gold_paths(entry)[0] for call in parse_milestone(milestone)[0]]


def _gold_agent(entry) -> FunctionModel:
    """An agent that makes the entry's gold calls one per step, then answers."""
    calls = _gold_calls(entry)

    def script(messages, tools, settings):
        made = sum(len(m.tool_calls or []) for m in messages if m.role == "assistant")
        return tool_calls(calls[made], prefix=f"c{made}") if made < len(calls) else "All done."

    return FunctionModel(script)


@pytest.mark.parametrize("category", AGENT_CATEGORIES)
def test_milestones_are_counted_and_invalid_ones_listed(category: str, capsys) -> None:
    entries = load_category(category)
    report = milestone_report(category, entries)
    assert report.entries == len(entries) and report.milestones >= len(entries)
    assert report.valid + len(report.invalid) == report.milestones
    assert 0 < report.valid_paths <= report.entries and report.repaired > 0
    assert all(m.reason for m in report.invalid)
    with capsys.disabled():
        print(f"\nACEBench {category}: {report.valid}/{report.milestones} milestones are valid calls as written, "
              f"{report.repaired} more once stray quotes are escaped; "
              f"{report.valid_paths}/{report.entries} entries have a fully valid gold path as written; invalid:")
        for bad in report.invalid:
            print(f"  {bad.entry} path {bad.path} step {bad.index} ({'repaired' if bad.repaired else 'not repaired'}): "
                  f"{bad.reason}: {bad.milestone[:90]}")


def test_stray_apostrophes_are_repaired() -> None:
    calls, repaired = parse_milestone("[add_reminder(title='Today's spending', description='Today's spending 88.0 yuan', "
                                      "time='2024-07-15 09:30')]")
    assert repaired and calls == [("add_reminder", {"title": "Today's spending", "description": "Today's spending 88.0 yuan",
                                                    "time": "2024-07-15 09:30"})]
    assert parse_milestone("[turn_on_wifi()]") == ([("turn_on_wifi", {})], False)
    assert parse_milestone("not a call") is None


@pytest.mark.anyio
@pytest.mark.parametrize("category", AGENT_CATEGORIES)
async def test_gold_paths_reproduce_gold_end_states(category: str, capsys) -> None:
    entries = load_category(category)
    report = await replay_gold_paths(category, entries)
    with capsys.disabled():
        print(f"\nACEBench {category}: {report.reproduced}/{len(entries)} gold milestone paths reproduce the gold end state")
        for miss in (e for e in report.entries if not e.reproduced):
            print(f"  {miss.entry}: refused {miss.failed_calls[:2]}; differs {miss.mismatches[:3]}")
    assert {e.entry for e in report.entries if not e.reproduced} == NOT_REPRODUCED[category]


@pytest.mark.anyio
async def test_missing_write_fails_end_state_and_lowers_process() -> None:
    entry = load_category("agent_multi_turn", limit=1)[0]
    episode = AgentEpisode(entry)
    for name, args in _gold_calls(entry)[:-1]:
        episode.execute(name, args)
    assert end_state_mismatches(entry, episode.end_state())
    assert process_accuracy(entry, episode.calls) == pytest.approx(3 / 4)
    assert process_accuracy(entry, []) == 0.0
    failed = [ExecutedCall(name=c.name, arguments=c.arguments, ok=False, result="") for c in episode.calls]
    assert process_accuracy(entry, failed) == 0.0


@pytest.mark.anyio
async def test_executors_refuse_what_the_scenario_forbids() -> None:
    entry = load_category("agent_multi_turn", limit=1)[0]  # Wi-Fi off, logged in, inbox full
    episode = AgentEpisode(entry)
    ok, text = episode.execute("send_message", {"sender_name": "Grace", "receiver_name": "Frank", "message": "hi"})
    assert not ok and "Wi-Fi" in text
    episode.execute("turn_on_wifi", {})
    ok, text = episode.execute("send_message", {"sender_name": "Grace", "receiver_name": "Frank", "message": "hi"})
    assert not ok and "full" in text
    assert episode.execute("get_earliest_message_id", {}) == (True, json.dumps({"status": True, "message_id": 3}))
    assert not episode.execute("delete_message", {"message_id": 99})[0]
    assert not episode.execute("send_message", {"sender_name": "Grace"})[0]
    assert not episode.execute("no_such_function", {})[0]
    travel = AgentEpisode(load_category("agent_multi_turn")[28])
    ok, text = travel.execute("reserve_flight", {"user_id": "user3", "password": "password789", "flight_no": "MU3561",
                                                 "cabin": "Business Class", "payment_method": "bank", "baggage_count": 1})
    assert ok and json.loads(text)["charged"] == 3000.0
    ok, text = travel.execute("reserve_flight", {"user_id": "user3", "password": "password789", "flight_no": "CZ1765",
                                                 "cabin": "Business Class", "payment_method": "bank", "baggage_count": 1})
    assert not ok and "Insufficient" in text
    ok, text = travel.execute("reserve_flight", {"user_id": "user3", "password": "password789", "flight_no": "MU3561",
                                                 "cabin": "Economy", "payment_method": "bank", "baggage_count": "two"})
    assert not ok and "TypeError" in text


@pytest.mark.anyio
async def test_multi_turn_with_simulated_user_over_mcp() -> None:
    entry = load_category("agent_multi_turn", limit=1)[0]
    turns = iter(["Please send Frank: 'Are you free tomorrow to have lunch with me?'", "finish conversation"])
    user = FunctionModel(lambda messages, tools, settings: next(turns))
    outcome = await play_agent_entry(entry, _gold_agent(entry), user)
    assert outcome.end_state_ok and outcome.process == 1.0 and outcome.error is None
    assert [d["role"] for d in outcome.dialogue] == ["user", "assistant", "user"]
    assert [c["name"] for c in outcome.calls][-1] == "send_message" and all(c["ok"] for c in outcome.calls)
    eager = await play_agent_entry(entry, FunctionModel(lambda m, t, s: "What do you need?"),
                                   FunctionModel(lambda m, t, s: "finish conversation"))
    assert [d["role"] for d in eager.dialogue] == ["user", "assistant", "user"]
    with pytest.raises(ValueError, match="user model"):
        await play_agent_entry(entry, _gold_agent(entry))


@pytest.mark.anyio
async def test_multi_step_agent_alone_and_a_silent_agent_scores_zero() -> None:
    entry = load_category("agent_multi_step")[2]
    outcome = await play_agent_entry(entry, _gold_agent(entry))
    assert outcome.calls == [{"name": name, "arguments": args, "ok": True} for name, args in _gold_calls(entry)]
    assert outcome.end_state_ok and outcome.process == 1.0 and outcome.mismatches == []
    idle = await play_agent_entry(entry, FunctionModel(lambda messages, tools, settings: "I cannot help."))
    assert not idle.end_state_ok and idle.process == 0.0 and idle.mismatches


@model_test("category", AGENT_CATEGORIES)
async def test_model_on_acebench_agent(category: str, category_run: OpenCategory) -> None:
    run = category_run("acebench", category)
    model = run.models.chat_model()
    user = run.models.chat_model(user=True) if category == "agent_multi_turn" else None
    played = await run.play(load_category(category), lambda entry: entry.id, lambda entry: play_agent_entry(entry, model, user))
    write_results(run.config.results_dir, category, (o.record(t) for _, t, o in played))
    process = sum(o.process for *_, o in played) / len(played)
    row = run.add_row([float(o.end_state_ok) for *_, o in played],
                      extra={"process_accuracy": process, "model_errors": float(sum(bool(o.error) for *_, o in played))})
    assert row.n == len(played) > 0
