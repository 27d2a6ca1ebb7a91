"""ACEBench normal/special categories: checker integrity on the possible answers, and model runs."""

from __future__ import annotations

import json

import pytest
from harness.acebench import (
    NORMAL_CATEGORIES,
    SPECIAL_CATEGORIES,
    check_output,
    data_missing,
    load_category,
    parse_calls,
    play_entry,
    render_answer,
    system_prompt,
    write_results,
)
from model_run import OpenCategory, model_test

from agent_sdk import FunctionModel, ModelError

pytestmark = pytest.mark.skipif(data_missing() is not None, reason=data_missing() or "")


@pytest.mark.parametrize("category", NORMAL_CATEGORIES + SPECIAL_CATEGORIES)
def test_possible_answers_score_full_marks(category: str) -> None:
    entries = load_category(category)
    assert entries
    failures = [
        (e.id, r.error)
        for e in entries
        if not (r := check_output(category, render_answer(category, e.ground_truth, e.functions), e.ground_truth, e.functions)).ok
    ]
    assert failures == []


def test_checker_rejects_wrong_values_extra_calls_and_calls_in_special_cases() -> None:
    entry = load_category("normal_single_turn_single_function", limit=1)[0]
    (name, args), = entry.ground_truth.items()
    key = next(k for k, v in args.items() if isinstance(v, str))
    wrong = {**args, key: args[key] + " something else"}
    assert not check_output(entry.category, f"[{name}({', '.join(f'{k}={v!r}' for k, v in wrong.items())})]",
                            entry.ground_truth, entry.functions).ok
    good = render_answer(entry.category, entry.ground_truth, entry.functions)
    assert not check_output(entry.category, good[:-1] + ", " + good[1:], entry.ground_truth, entry.functions).ok
    assert not check_output(entry.category, "I would call the function.", entry.ground_truth, entry.functions).ok
    irrelevant = load_category("special_irrelevant", limit=1)[0]
    assert not check_output("special_irrelevant", good, irrelevant.ground_truth, irrelevant.functions).ok
    incomplete = load_category("special_incomplete", limit=1)[0]
    assert not check_output("special_incomplete", "Please give more details.", incomplete.ground_truth, incomplete.functions).ok


@model_test("category", NORMAL_CATEGORIES + SPECIAL_CATEGORIES)
async def test_model_on_acebench(category: str, category_run: OpenCategory) -> None:
    run = category_run("acebench", category)
    model = run.models.chat_model()
    played = await run.play(load_category(category), lambda entry: entry.id, lambda entry: play_entry(entry, model))
    write_results(run.config.results_dir, category,
                  ({"id": e.id, "trial": t, "result": reply, "valid": v.ok, "error": v.error} for e, t, (reply, v) in played))
    errored = sum((v.error or "").startswith("model error") for *_, (_, v) in played)
    row = run.add_row([float(v.ok) for *_, (_, v) in played], extra={"model_errors": float(errored)})
    assert row.n == len(played) > 0


@pytest.mark.anyio
@pytest.mark.parametrize("category", ["normal_single_turn_parallel_function", "normal_preference", "special_irrelevant"])
async def test_play_entry_shows_the_prompt_and_hands_the_reply_to_the_checker(category: str) -> None:
    entry = load_category(category, limit=1)[0]
    answer = render_answer(category, entry.ground_truth, entry.functions)
    model = FunctionModel(lambda messages, tools, settings: answer)
    reply, verdict = await play_entry(entry, model)
    assert reply == answer and verdict.ok, verdict.error
    (request,) = model.requests
    messages, offered = request.messages, request.tools
    assert [(m.role, m.content) for m in messages] == [("system", system_prompt(entry)), ("user", entry.question)]
    assert offered == [] and json.dumps(entry.functions, ensure_ascii=False) in messages[0].content
    if entry.profile:
        assert entry.profile in messages[0].content


@pytest.mark.anyio
async def test_play_entry_fails_a_wrong_call_a_missing_call_and_a_model_error() -> None:
    entry = load_category("normal_single_turn_parallel_function", limit=1)[0]
    answer = render_answer(entry.category, entry.ground_truth, entry.functions)
    calls = parse_calls(answer)
    assert calls and len(calls) > 1
    (name, args), *_ = calls
    first = f"[{name}({', '.join(f'{k}={v!r}' for k, v in args.items())})]"
    _, fewer = await play_entry(entry, FunctionModel(lambda messages, tools, settings: first))
    assert not fewer.ok and fewer.error
    _, prose = await play_entry(entry, FunctionModel(lambda messages, tools, settings: "I would call the functions."))
    assert not prose.ok

    def broken(messages, tools, settings):
        raise ModelError("context length exceeded")

    reply, failed = await play_entry(entry, FunctionModel(broken))
    assert reply == "" and not failed.ok and failed.error == "model error: context length exceeded"
