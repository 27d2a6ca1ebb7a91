"""Walks: the four scenarios, arguments only from the question or earlier answers, and each rejection planted."""

from __future__ import annotations

import json
import random

import pytest

from mcp_servers import answer_in_output
from synth.world import (
    SCENARIOS,
    FieldSpec,
    Walker,
    WalkRejected,
    WalkSpec,
    World,
    compile_tools,
    environment_code,
)
from synth.world._build import run_module


def _walker(world: World, language: str = "en") -> Walker:
    tools = compile_tools(world, language)
    return Walker(world, language, tools, run_module(environment_code(world, language, tools)))


def _walks(walker: Walker, scenario: str, n: int = 40):
    out = []
    for i in range(n):
        try:
            out.append(walker.walk(scenario, random.Random(f"{scenario}:{i}")))
        except WalkRejected:
            continue
    return out


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_each_scenario_has_its_shape(rental, scenario):
    walks = _walks(_walker(rental), scenario)
    assert walks, f"no {scenario} walk in 40 tries"
    for walk in walks:
        roots = [s for s in walk.steps if not s.depends_on]
        if scenario == "single_hop":
            assert walk.hops == 1 and len(walk.steps) == 1
        elif scenario == "parallel_single_hop":
            assert walk.hops == 1 and len(walk.steps) == 2 and len(roots) == 2
        elif scenario == "multi_hop":
            assert 2 <= walk.hops <= 4 and len(walk.steps) == walk.hops and len(roots) == 1
        else:
            assert 2 <= walk.hops <= 3 and len(walk.steps) == 2 * walk.hops and len(roots) == 2


def test_arguments_come_from_the_question_or_an_earlier_answer(rental):
    walker = _walker(rental)
    for scenario in SCENARIOS:
        for walk in _walks(walker, scenario, 20):
            answers = {s.id: s.answer for s in walk.steps}
            for step in walk.steps:
                for value in step.arguments.values():
                    allowed = list(walk.given) + [answers[d] for d in step.depends_on]
                    assert str(value) in allowed, (walk.question, step)
                    if str(value) in walk.given:
                        assert answer_in_output(str(value), walk.question)


def test_every_answer_is_read_from_executing_its_call(rental):
    walker = _walker(rental)
    for walk in _walks(walker, "multi_hop", 20):
        for step in walk.steps:
            output = json.dumps(walker.call(step.tool, step.arguments), ensure_ascii=False)
            assert answer_in_output(step.answer, output)
        assert all(answer_in_output(s.answer, walk.answer) for s in walk.steps if not any(s.id in o.depends_on for o in walk.steps))


def _rejected(walker: Walker, scenario: str, spec: WalkSpec) -> str:
    with pytest.raises(WalkRejected) as exc:
        walker.walk_spec(scenario, spec, random.Random(0))
    return exc.value.code


def test_a_name_several_rows_share_is_rejected(rental):
    for row in rental.entity("branch").rows:
        row["name"] = "Harbour Street"
    spec = WalkSpec("handle", "branch", end=("field", "city"))
    assert _rejected(_walker(rental), "single_hop", spec) == "ambiguous_question"


def test_a_search_several_rows_match_is_rejected(rental):
    for row in rental.entity("rental").rows:
        row["customer"] = "Ada Park"
    spec = WalkSpec("search", "rental", search_field="customer", fks=("plate",), end=("field", "daily_rate"))
    assert _rejected(_walker(rental), "multi_hop", spec) == "ambiguous_question"


def test_a_question_that_states_its_answer_is_rejected(rental):
    spec = WalkSpec("handle", "car", end=("field", "model"))  # a car named by its model, asked for its model
    assert _rejected(_walker(rental), "single_hop", spec) == "answer_in_question"


def test_two_hops_with_one_answer_are_rejected(rental):
    for row in rental.entity("car").rows:
        row["car_class"] = "compact"
    spec = WalkSpec("handle", "car", end=("field", "car_class"))
    assert _rejected(_walker(rental), "parallel_single_hop", spec) == "repeated_answer"


def test_a_multi_hop_question_one_call_answers_is_rejected(rental_raw):
    # a car row that copies its branch's city: the first call already answers "the city of the car's branch"
    rental_raw["entities"][1]["fields"].append({"name": "branch_city", "label": {"en": "branch city", "zh": "门店城市"}, "type": "name"})
    from synth.world import fill_rows

    world = fill_rows(World.model_validate(rental_raw))
    cities = {b["branch_id"]: b["city"] for b in world.entity("branch").rows}
    for car in world.entity("car").rows:
        car["branch_city"] = cities[car["branch_id"]]
    spec = WalkSpec("handle", "car", fks=("branch_id",), end=("field", "city"))
    assert _rejected(_walker(world), "multi_hop", spec) == "single_call_shortcut"
    assert isinstance(world.entity("car").field("branch_city"), FieldSpec)


def test_english_and_chinese_rendering(rental):
    spec = WalkSpec("handle", "rental", fks=("plate",), end=("field", "daily_rate"))
    en = _walker(rental, "en").walk_spec("multi_hop", spec, random.Random(3))
    zh = _walker(rental, "zh").walk_spec("multi_hop", spec, random.Random(3))
    rental_id, plate = en.steps[0].arguments["rental"], en.steps[0].answer
    assert en.steps[0].question == f"What is the id of the car of rental {rental_id}?"
    assert en.steps[1].question == f"What is the daily rate of car {plate}?"
    assert f"the daily rate of the car of rental {rental_id}?" in en.question and en.question.endswith("?")
    assert en.answer == f"The daily rate of the car of rental {rental_id} is {en.steps[1].answer}."
    assert zh.steps[0].question == f"租车订单{rental_id}的汽车的编号是什么？"
    assert zh.steps[1].question == f"汽车{plate}的日租金是什么？"
    assert f"租车订单{rental_id}的汽车的日租金" in zh.question and zh.question.endswith(("？", "吗？"))
    assert zh.answer == f"租车订单{rental_id}的汽车的日租金是{zh.steps[1].answer}。"


def test_a_name_that_says_what_it_is_is_not_prefixed(rental):
    from synth.world._render import phrasing

    assert phrasing("en").named("airport", "Des Moines International Airport") == "Des Moines International Airport"
    assert phrasing("zh").named("诊所", "明德诊所") == "明德诊所"
    assert phrasing("zh").named("医生", "郭波") == "医生郭波"


def test_no_task_asks_for_a_password(rental_raw):
    from synth.world import fill_rows

    rental_raw["entities"][0]["fields"].append({"name": "password", "label": {"en": "password", "zh": "密码"}, "type": "code"})
    world = fill_rows(World.model_validate(rental_raw))
    walker = _walker(world)
    assert ("field", "password") not in walker._ends(world.entity("branch")) and ("field", "city") in walker._ends(world.entity("branch"))


def test_a_birth_date_is_decades_back(rental_raw):
    from synth.world import fill_rows

    rental_raw["entities"][2]["fields"].append({"name": "date_of_birth", "label": {"en": "date of birth", "zh": "出生日期"}, "type": "date"})
    world = fill_rows(World.model_validate(rental_raw))
    assert all("1950" <= r["date_of_birth"] < "2007" for r in world.entity("rental").rows)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_walks_use_only_the_tools_the_environment_kept(rental, scenario):
    """A lookup dropped as a near-duplicate of another tool is never called: no walk ends on, or passes through, its entity's rows."""
    dropped = "get_branch"
    tools = [t for t in compile_tools(rental, "en") if t.spec.name != dropped]
    walker = Walker(rental, "en", tools, run_module(environment_code(rental, "en", tools)))
    kept = {t.spec.name for t in tools}
    walks = _walks(walker, scenario)
    assert walks, f"no {scenario} walk without {dropped}"
    for walk in walks:
        assert {s.tool for s in walk.steps} <= kept, walk.question
