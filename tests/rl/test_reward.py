"""The F1 reward: docs/design.md §6's worked examples, properties, and golden replays on real environments."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_sdk import Step, ToolCall, ToolCallRecord, Toolbox, ToolResult, Trajectory
from mcp_servers import Environment, load_env
from rl.reward import f1_from_counts, f1_reward

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "envs"

CODE = '''
PRICES = {"apple": "1.20", "pear": "0.95", "plum": "2,500", "fig": "3.0"}


def price(fruit: str) -> dict:
    return {"fruit": fruit, "price": PRICES[fruit]}
'''


def _spec():
    fruits = ["apple", "pear", "plum", "fig"]
    answers = ["1.2", "0.95", "2500", "3"]
    subtasks = [
        {
            "id": f"s{i}",
            "question": f"price of {f}?",
            "answer": a,
            "golden_call": {"tool": "price", "arguments": {"fruit": f}},
        }
        for i, (f, a) in enumerate(zip(fruits, answers), start=1)
    ]
    env = Environment.build(
        CODE,
        domain="shop",
        source={"kind": "authored"},
        task={"question": "prices of four fruits?", "answer": "1.2, 0.95, 2500, 3", "scenario": "parallel_single_hop"},
        subtasks=subtasks,
        tools=[
            {
                "name": "price",
                "description": "Price of a fruit.",
                "input_schema": {"type": "object", "properties": {"fruit": {"type": "string"}}, "required": ["fruit"]},
            }
        ],
    )
    return env.spec


PRICES = {"apple": "1.20", "pear": "0.95", "plum": "2,500", "fig": "3.0"}


def _record(i: int, tool: str, fruit: str, *, ok: bool = True, name: str | None = None) -> ToolCallRecord:
    text = f'{{"fruit": "{fruit}", "price": "{PRICES.get(fruit, "?")}"}}' if ok else "Error: boom"
    return ToolCallRecord(
        turn=1,
        call=ToolCall(id=f"c{i}", name=name or tool, arguments={"fruit": fruit}),
        result=ToolResult(ok=ok, text=text, tool=tool, server="shop"),
    )


def _trajectory(records: list[ToolCallRecord]) -> Trajectory:
    return Trajectory(task="prices", steps=[Step(turn=1, message_index=2, calls=records)])


ALL = ["apple", "pear", "plum", "fig"]


def test_worked_example_all_solved_with_four_calls():
    parts = f1_reward(_trajectory([_record(i, "price", f) for i, f in enumerate(ALL)]), _spec())
    assert (parts.n, parts.n_hat, parts.c, parts.reward) == (4, 4, 4, 1.0)
    assert parts.hits == {"s1": True, "s2": True, "s3": True, "s4": True}


def test_worked_example_two_extra_calls_give_0_8():
    records = [_record(i, "price", f) for i, f in enumerate(ALL)]
    records += [_record(4, "price", "kiwi", ok=False), _record(5, "get_weather", "x", name="get_weather")]
    parts = f1_reward(_trajectory(records), _spec(), distractor_names=["get_weather"])
    assert (parts.n_hat, parts.c) == (4, 6)
    assert parts.reward == pytest.approx(0.8)


def test_worked_example_three_of_four_gives_0_75():
    records = [_record(0, "price", "apple"), _record(1, "price", "pear"), _record(2, "price", "plum")]
    records.append(_record(3, "price", "fig", ok=False))
    parts = f1_reward(_trajectory(records), _spec())
    assert (parts.n, parts.n_hat, parts.c) == (4, 3, 4)
    assert parts.reward == pytest.approx(0.75)
    assert parts.recall == pytest.approx(0.75) and parts.precision == pytest.approx(0.75)
    assert parts.hits["s4"] is False


def test_nothing_solved_is_zero():
    assert f1_reward(_trajectory([]), _spec()).reward == 0.0
    wrong = [_record(0, "price", "kiwi", ok=False), _record(1, "price", "pear", name="pricey_distractor")]
    parts = f1_reward(_trajectory(wrong), _spec(), distractor_names=["pricey_distractor"])
    assert (parts.n_hat, parts.c, parts.reward) == (0, 2, 0.0)


def test_numbers_are_matched_whole_and_normalized():
    # "2,500" answers "2500"; "3.0" answers "3"; the same call cannot count twice.
    records = [_record(0, "price", "plum"), _record(1, "price", "fig"), _record(2, "price", "plum")]
    parts = f1_reward(_trajectory(records), _spec())
    assert parts.hits == {"s1": False, "s2": False, "s3": True, "s4": True}
    assert (parts.n_hat, parts.c) == (2, 3)


def test_one_call_solves_at_most_one_subtask():
    both = ToolCallRecord(
        turn=1,
        call=ToolCall(id="c0", name="price", arguments={}),
        result=ToolResult(ok=True, text="apple 1.20, pear 0.95", tool="price"),
    )
    parts = f1_reward(_trajectory([both]), _spec())
    assert (parts.n_hat, parts.c) == (1, 1)
    assert parts.reward == pytest.approx(2 / 5)


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 12), data=st.data())
def test_bounded_monotone_in_n_hat_and_decreasing_in_c(n, data):
    c = data.draw(st.integers(0, 40))
    n_hat = data.draw(st.integers(0, min(n, c)))
    reward = f1_from_counts(n, n_hat, c)
    assert 0.0 <= reward <= 1.0
    if n_hat < min(n, c):
        assert f1_from_counts(n, n_hat + 1, c) > reward
    if n_hat > 0:
        assert f1_from_counts(n, n_hat, c + 1) < reward
    assert (reward == 1.0) == (n_hat == n == c)


@settings(max_examples=100, deadline=None)
@given(picks=st.lists(st.sampled_from(ALL + ["kiwi"]), max_size=10), fail=st.lists(st.booleans(), max_size=10))
def test_trajectory_reward_matches_its_parts(picks, fail):
    records = [_record(i, "price", f, ok=not (i < len(fail) and fail[i]) and f != "kiwi") for i, f in enumerate(picks)]
    parts = f1_reward(_trajectory(records), _spec())
    assert 0.0 <= parts.reward <= 1.0
    assert parts.c == len(picks) and parts.n_hat == sum(parts.hits.values())
    assert parts.reward == pytest.approx(f1_from_counts(parts.n, parts.n_hat, parts.c))


def test_impossible_counts_are_rejected():
    with pytest.raises(ValueError, match="impossible"):
        f1_from_counts(2, 3, 3)


@pytest.mark.anyio
@pytest.mark.parametrize("name", ["order_items", "zh_hospital", "currency_convert"])
async def test_golden_replay_on_example_env_scores_one(name):
    env = load_env(EXAMPLES / name)
    records = []
    async with Toolbox(EXAMPLES / name) as box:
        for i, subtask in enumerate(s for s in env.spec.subtasks if s.golden_call is not None):
            golden = subtask.golden_call
            result = await box.call_tool(golden.tool, golden.arguments)
            records.append(ToolCallRecord(turn=i + 1, call=ToolCall(id=f"g{i}", name=golden.tool, arguments=golden.arguments), result=result))
    parts = f1_reward(_trajectory(records), env.spec)
    assert parts.reward == 1.0, parts
    assert parts.n == len(env.spec.target_subtasks)
