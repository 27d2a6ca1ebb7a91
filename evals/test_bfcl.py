"""BFCL-v3 multi-turn: gold replay through the MCP exposure (integrity) and model runs."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from harness.bfcl import (
    CATEGORIES,
    BfclEpisode,
    call_string,
    load_entries,
    parse_call_string,
    play_entry,
    replay_ground_truth,
    score_entry,
    write_result_file,
)
from harness.bfcl._score import BFCL_REGISTRY
from model_run import OpenCategory, model_test
from play_script import calls_this_turn, tool_calls, user_turn

from agent_sdk import FunctionModel

CHECKER_ERRORS = {
    "multi_turn:instance_state_mismatch",
    "multi_turn:execution_response_mismatch",
    "multi_turn:empty_turn_model_response",
}


@pytest.mark.anyio
@pytest.mark.parametrize("category", CATEGORIES)
async def test_ground_truth_replay_passes_every_entry(category: str) -> None:
    entries = load_entries(category)
    assert len(entries) == 200
    failures = []
    for entry in entries:
        outcome = await replay_ground_truth(entry)
        verdict = score_entry(entry, outcome.turns)
        if not verdict["valid"]:
            failures.append((entry.id, verdict.get("error_type"), verdict.get("error_message")))
    assert failures == [], f"{len(failures)}/200 ground-truth replays rejected: {failures[:3]}"


@pytest.mark.anyio
@pytest.mark.parametrize("category", CATEGORIES)
async def test_dropping_a_call_fails_with_the_checkers_error(category: str) -> None:
    for entry in load_entries(category, limit=15):
        turn = next(i for i, calls in enumerate(entry.ground_truth) if calls)
        outcome = await replay_ground_truth(entry, drop=(turn, len(entry.ground_truth[turn]) - 1))
        verdict = score_entry(entry, outcome.turns)
        assert verdict["valid"] is False, entry.id
        assert verdict["error_type"] in CHECKER_ERRORS, (entry.id, verdict["error_type"])


@pytest.mark.anyio
async def test_held_out_function_is_hidden_until_its_turn() -> None:
    from mcp import Client

    entry = load_entries("multi_turn_miss_func", limit=1)[0]
    (turn, docs), = entry.missed_function.items()
    episode = BfclEpisode(entry)
    async with Client(episode.server, mode="legacy") as client:
        before = {t.name for t in (await client.list_tools()).tools}
    assert not {d["name"] for d in docs} & before
    assert episode.reveal(int(turn)) == [d["name"] for d in docs]
    async with Client(episode.server, mode="legacy") as client:
        after = {t.name for t in (await client.list_tools()).tools}
    assert {d["name"] for d in docs} <= after


@pytest.mark.anyio
async def test_result_files_are_accepted_by_bfcl_evaluate(tmp_path) -> None:
    entries = load_entries("multi_turn_base", limit=3)
    rows = [(await replay_ground_truth(e)).result_row() for e in entries]
    write_result_file(tmp_path / "result", "multi_turn_base", rows)
    command = [sys.executable, "-m", "bfcl_eval", "evaluate", "--model", BFCL_REGISTRY,
               "--test-category", "multi_turn_base", "--result-dir", str(tmp_path / "result"),
               "--score-dir", str(tmp_path / "score"), "--partial-eval"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=240, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    score_files = list((tmp_path / "score").rglob("*multi_turn_base_score.json"))
    assert score_files, done.stdout[-2000:]
    header = json.loads(score_files[0].read_text().splitlines()[0])
    assert header["accuracy"] == 1.0 and header["total_count"] == 3


@model_test("category", CATEGORIES)
async def test_model_on_bfcl(category: str, category_run: OpenCategory) -> None:
    run = category_run("bfcl", category)
    model = run.models.chat_model()
    played = await run.play(load_entries(category), lambda entry: entry.id, lambda entry: play_entry(entry, model))
    results = [(e, t, o, score_entry(e, o.turns)) for e, t, o in played]
    out = run.config.results_dir / "bfcl"
    for trial in range(run.config.trials):
        rows = [o.result_row() for e, t, o, _ in results if t == trial]
        write_result_file(out / f"trial{trial}" / "result", category, rows)
    scores = out / f"{category}_scores.jsonl"
    scores.parent.mkdir(parents=True, exist_ok=True)
    scores.write_text("".join(json.dumps({"id": e.id, "trial": t, "valid": v["valid"], "error_type": v.get("error_type"),
                                          "errors": o.errors}) + "\n" for e, t, o, v in results))
    row = run.add_row([float(v["valid"]) for *_, v in results],
                      extra={"model_errors": float(sum(bool(o.errors) for _, _, o, _ in results))})
    assert row.n == len(played) > 0


def _gold_player(entry, *, one_step: bool = False, drop_last: bool = False) -> tuple[FunctionModel, list[list[str]]]:
    """A model that makes each turn's ground-truth calls (one per step, or all in one step), then answers.

    Returns the model and, per turn, the calls as the MCP server logs them (keyword form).
    """
    episode = BfclEpisode(entry)
    planned = [[(name, episode.positional_to_keywords(name, args, kwargs))
                for name, args, kwargs in map(parse_call_string, turn)] for turn in entry.ground_truth]
    if drop_last:
        planned[-1] = planned[-1][:-1]

    def script(messages, tools, settings):
        todo, made = planned[user_turn(messages)], calls_this_turn(messages)
        if one_step:
            return tool_calls(*todo) if todo and not made else "Done."
        return tool_calls(todo[made], prefix=f"c{made}") if made < len(todo) else "Done."

    return FunctionModel(script), [[call_string(name, args) for name, args in turn] for turn in planned]


@pytest.mark.anyio
@pytest.mark.parametrize("category", ["multi_turn_base", "multi_turn_miss_func"])
async def test_play_entry_hands_the_checker_each_steps_calls(category: str) -> None:
    entry = load_entries(category, limit=1)[0]
    model, expected = _gold_player(entry)
    outcome = await play_entry(entry, model)
    # Per turn: one step per call, then the answering step without calls.
    assert outcome.turns == [[[call] for call in turn] + [[]] for turn in expected]
    assert outcome.errors == [] and not outcome.force_terminated
    assert score_entry(entry, outcome.turns)["valid"] is True
    if category == "multi_turn_miss_func":
        (reveal, docs), = entry.missed_function.items()
        held_out = {d["name"] for d in docs}
        first_user = next(i for i, r in enumerate(model.requests) if user_turn(r.messages) == int(reveal))
        assert not held_out & set(model.requests[first_user - 1].tool_names)
        assert held_out <= set(model.requests[first_user].tool_names)


@pytest.mark.anyio
async def test_play_entry_keeps_parallel_calls_in_one_step_and_a_missed_call_fails() -> None:
    entry = load_entries("multi_turn_base", limit=1)[0]
    model, expected = _gold_player(entry, one_step=True)
    outcome = await play_entry(entry, model)
    assert outcome.turns == [[turn, []] for turn in expected]
    assert score_entry(entry, outcome.turns)["valid"] is True
    wrong, expected = _gold_player(entry, drop_last=True)
    outcome = await play_entry(entry, wrong)
    assert outcome.turns[-1] == [[call] for call in expected[-1]] + [[]]
    verdict = score_entry(entry, outcome.turns)
    assert verdict["valid"] is False and verdict["error_type"] in CHECKER_ERRORS


def test_a_call_with_argument_names_python_cannot_take_still_round_trips() -> None:
    """A model's key like `(required` is kept (in `**{...}`), so the result file and the checker get the call."""
    from harness.bfcl._score import step_text

    arguments = {"symbol": "Zeta Corp", "(required": "True", "class": 1}
    text = call_string("remove_stock_from_watchlist", arguments)
    assert text == "remove_stock_from_watchlist(symbol='Zeta Corp',**{'(required': 'True', 'class': 1})"
    assert parse_call_string(text) == ("remove_stock_from_watchlist", [], arguments)
    assert json.loads(step_text([text]).split("\n")[1]) == {"name": "remove_stock_from_watchlist", "arguments": arguments}
