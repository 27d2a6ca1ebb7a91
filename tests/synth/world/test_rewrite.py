"""The rewrite check: a model's wording stands only when it keeps every value and adds none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_sdk import FunctionModel
from synth.world._rewrite import rewrite_problem, rewrite_question

Q = "What is the daily rate of the car of rental REN-8827?"


def test_a_rewrite_that_keeps_the_values_stands():
    assert rewrite_problem(Q, "How much per day is the car on my rental REN-8827?", ["REN-8827"], ["USD 73.69"]) is None
    zh = "租车订单REN-8827的汽车的日租金是多少？"
    assert rewrite_problem(zh, "我那单REN-8827租的车，一天多少钱？", ["REN-8827"], ["USD 73.69"]) is None


def test_a_rewrite_that_drops_a_value_is_refused():
    assert rewrite_problem(Q, "How much per day is the car I rented?", ["REN-8827"], ["USD 73.69"]) == "the rewrite drops ['REN-8827']"


def test_a_rewrite_that_adds_a_value_is_refused():
    problem = rewrite_problem(Q, "How much per day is the car of rental REN-8827 for 3 days in Lyon?", ["REN-8827"], [])
    assert problem is not None and problem.startswith("the rewrite adds") and "3" in problem
    assert rewrite_problem(Q, "What does the Tesla Model 3 on rental REN-8827 cost a day?", ["REN-8827"], []).startswith("the rewrite adds")


def test_a_rewrite_that_states_the_answer_or_asks_nothing_is_refused():
    assert rewrite_problem(Q, "Is it USD 73.69 a day for rental REN-8827?", ["REN-8827"], ["USD 73.69"]).startswith("the rewrite states")
    assert rewrite_problem(Q, "Tell me the rate for rental REN-8827.", ["REN-8827"], []) == "the rewrite is not a question"


@pytest.mark.anyio
async def test_the_template_stands_when_the_model_adds_a_value():
    model = FunctionModel.from_replies("What is the daily rate of the car of rental REN-8827 in March 2025?")
    question, reason = await rewrite_question(model, Q, ["REN-8827"], ["USD 73.69"], "en")
    assert question == Q and reason is not None and "2025" in reason


@pytest.mark.anyio
async def test_a_good_rewrite_is_kept():
    model = FunctionModel.from_replies("How much a day is the car on rental REN-8827?")
    assert await rewrite_question(model, Q, ["REN-8827"], ["USD 73.69"], "en") == ("How much a day is the car on rental REN-8827?", None)


@pytest.mark.anyio
async def test_the_pipeline_keeps_a_reworded_question_only_where_its_values_survive(tmp_path):
    from synth.world import WorldSynthConfig, load_world_file, synthesize_from_worlds

    world = load_world_file(Path(__file__).resolve().parents[3] / "examples" / "worlds" / "car_rental.yaml")

    def reword(messages, _tools, _settings):
        question = messages[-1].content.rsplit("\n\n", 1)[1]
        # Every other question gets a wording that keeps its values; the rest lose their first value.
        reword.calls += 1
        if reword.calls % 2:
            return "Quick one: " + question
        return "Could you look something up for me?"

    reword.calls = 0
    config = WorldSynthConfig(per_world=8)
    stats = await synthesize_from_worlds([world], tmp_path / "a", config, sandbox=None, rewriter=FunctionModel(reword))
    plain = await synthesize_from_worlds([world], tmp_path / "b", config, sandbox=None)
    assert stats.rewrites == {"kept": 4, "refused": 4} and plain.rewrites == {}
    questions = sorted(json.loads(p.read_text())["task"]["question"] for p in (tmp_path / "a" / "envs").glob("*/env.json"))
    templated = sorted(json.loads(p.read_text())["task"]["question"] for p in (tmp_path / "b" / "envs").glob("*/env.json"))
    assert sum(q.startswith("Quick one: ") for q in questions) == 4
    assert {q.removeprefix("Quick one: ") for q in questions} == set(templated)  # the refused ones kept the template's wording
