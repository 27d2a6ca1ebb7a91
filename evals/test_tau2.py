"""tau2-bench: gold-action replay through the MCP exposure (integrity) and model runs."""

from __future__ import annotations

import random

import pytest
from harness import EvalConfig
from harness.tau2 import DOMAINS, Tau2Episode, load_tasks, play_task, replay_gold, write_results
from model_run import OpenCategory, model_test
from play_script import calls_this_turn, tool_calls, user_turn

from agent_sdk import FunctionModel

CI_SAMPLE = 10
SEED = 0


def _sample(tasks: list, full: bool, n: int = CI_SAMPLE) -> list:
    return list(tasks) if full else random.Random(SEED).sample(list(tasks), min(n, len(tasks)))


@pytest.mark.anyio
@pytest.mark.timeout(0)
@pytest.mark.parametrize("domain", DOMAINS)
async def test_gold_replay_scores_one(domain: str, eval_config: EvalConfig) -> None:
    tasks = _sample(load_tasks(domain), eval_config.full_replay)
    failures = []
    for task in tasks:
        outcome = await replay_gold(domain, task)
        if outcome.reward != 1.0:
            failures.append((task.id, outcome.reward, outcome.simulation["reward_info"].get("info")))
    assert failures == [], f"{len(failures)}/{len(tasks)} gold replays below 1.0: {failures[:2]}"


@pytest.mark.anyio
async def test_telecom_solo_gold_replay_scores_one(eval_config: EvalConfig) -> None:
    tasks = [t for t in load_tasks("telecom") if getattr(t, "ticket", None)]
    for task in _sample(tasks, eval_config.full_replay, n=3):
        outcome = await replay_gold("telecom", task, solo_mode=True)
        assert outcome.reward == 1.0, (task.id, outcome.simulation["reward_info"].get("info"))


@pytest.mark.anyio
async def test_missing_a_write_action_scores_zero() -> None:
    from harness.tau2._run import _evaluate
    from tau2.data_model.message import AssistantMessage

    task = next(t for t in load_tasks("retail") if t.evaluation_criteria and t.evaluation_criteria.actions)
    outcome = _evaluate("retail", task, [AssistantMessage(role="assistant", content="Done.")], "agent_stop", False, 0.0)
    assert outcome.reward == 0.0


@pytest.mark.anyio
async def test_user_tools_are_a_separate_server_and_solo_merges_them() -> None:
    from mcp import Client

    task = load_tasks("telecom")[0]
    episode = Tau2Episode("telecom", task)
    assert episode.user_server is not None
    async with Client(episode.agent_server, mode="legacy") as agent, Client(episode.user_server, mode="legacy") as user:
        agent_tools = {t.name for t in (await agent.list_tools()).tools}
        user_tools = {t.name for t in (await user.list_tools()).tools}
    assert agent_tools and user_tools and not agent_tools & user_tools
    solo = Tau2Episode("telecom", task, solo_mode=True)
    async with Client(solo.agent_server, mode="legacy") as client:
        solo_tools = {t.name for t in (await client.list_tools()).tools}
    assert solo.user_server is None and agent_tools | user_tools | {"done"} == solo_tools


@model_test("variant", [*DOMAINS, "telecom-solo"])
async def test_model_on_tau2(variant: str, category_run: OpenCategory) -> None:
    run = category_run("tau2", variant)
    domain, solo = variant.removesuffix("-solo"), variant.endswith("-solo")
    tasks = load_tasks(domain)
    if solo:
        tasks = [t for t in tasks if getattr(t, "ticket", None)]
    agent, user = run.models.chat_model(), run.models.chat_model(user=True)
    played = await run.play(tasks, lambda task: task.id,
                            lambda task: play_task(domain, task, agent, None if solo else user, solo_mode=solo))
    tasks = list({task.id: task for task, _, _ in played}.values())
    simulations = [{**o.simulation, "trial": k} for _, k, o in played]
    write_results(run.config.results_dir / "tau2" / f"{variant}_results.json", domain, tasks, simulations,
                  agent=agent.name, user=None if solo else user.name, trials=run.config.trials, solo_mode=solo,
                  max_exchanges=30)
    errored = sum(o.termination in {"agent_error", "user_error"} for *_, o in played)
    row = run.add_row([o.reward for *_, o in played], extra={"model_errors": float(errored)})
    assert row.n == len(played) > 0


@pytest.mark.anyio
async def test_results_file_loads_in_tau2(tmp_path) -> None:
    from tau2.data_model.simulation import Results

    tasks = load_tasks("retail")[:2]
    outcomes = [await replay_gold("retail", t) for t in tasks]
    path = write_results(tmp_path / "retail.json", "retail", tasks, [o.simulation for o in outcomes],
                         agent="gold-replay", user=None, trials=1, solo_mode=False, max_exchanges=30)
    loaded = Results.load(path)
    assert [s.task_id for s in loaded.simulations] == [t.id for t in tasks]
    assert all(s.reward_info.reward == 1.0 for s in loaded.simulations)



def _summary(messages: list) -> list[tuple]:
    """tau2 messages as (role, who made the call (tool results), text (not tool results), call names)."""
    return [(m.role, m.requestor if m.role == "tool" else None, None if m.role == "tool" else m.content,
             [c.name for c in (getattr(m, "tool_calls", None) or [])]) for m in messages]


def _script(turns: list) -> FunctionModel:
    """A model that, in its n-th turn, makes the calls of `turns[n][0]` one per step, then says `turns[n][1]`."""

    def script(messages, tools, settings):
        turn = user_turn(messages)
        planned, reply = turns[turn]
        made = calls_this_turn(messages)
        return tool_calls(planned[made], prefix=f"t{turn}_{made}") if made < len(planned) else reply

    return FunctionModel(script)


def _call_messages(requestor: str, calls: list) -> list[tuple]:
    return [entry for name, _ in calls for entry in ((requestor, None, None, [name]), ("tool", requestor, None, []))]


@pytest.mark.anyio
@pytest.mark.parametrize("skip_write", [False, True])
async def test_play_task_hands_tau2_the_dialogue_and_the_agents_calls(skip_write: bool) -> None:
    task = load_tasks("retail")[0]
    gold = [(a.name, dict(a.arguments)) for a in task.evaluation_criteria.actions]
    assert gold[-1][0] == "exchange_delivered_order_items"
    made = gold[:-1] if skip_write else gold
    agent = _script([(made, "Your exchange is confirmed.")])
    user = _script([([], "I want to exchange two items."), ([], "Thanks! ###STOP###")])
    outcome = await play_task("retail", task, agent, user)
    assert _summary(outcome.messages) == [
        ("assistant", None, "Hi! How can I help you today?", []), ("user", None, "I want to exchange two items.", []),
        *_call_messages("assistant", made),
        ("assistant", None, "Your exchange is confirmed.", []), ("user", None, "Thanks! ###STOP###", []),
    ]
    sent = [(c.name, c.arguments) for m in outcome.messages if m.role == "assistant" for c in (m.tool_calls or [])]
    assert sent == made and not any(m.error for m in outcome.messages if m.role == "tool")
    assert outcome.termination == "user_stop"
    assert outcome.reward == (0.0 if skip_write else 1.0)
    assert outcome.simulation["reward_info"]["db_check"]["db_match"] is not skip_write


@pytest.mark.anyio
async def test_play_task_records_the_users_own_tool_calls() -> None:
    task = next(t for t in load_tasks("telecom") if t.evaluation_criteria.actions
                and all(a.requestor == "user" for a in t.evaluation_criteria.actions))
    actions = [(a.name, dict(a.arguments)) for a in task.evaluation_criteria.actions]
    agent = _script([([], "Please fix the settings on your phone.")])
    user = _script([([], "My mobile data does not work."), (actions, "It works now. ###STOP###")])
    outcome = await play_task("telecom", task, agent, user)
    assert _summary(outcome.messages)[3:] == [*_call_messages("user", actions), ("user", None, "It works now. ###STOP###", [])]
    assert [m.requestor for m in outcome.messages if m.role == "tool"] == ["user"] * len(actions)
    assert outcome.termination == "user_stop" and outcome.reward == 1.0
    idle = await play_task("telecom", task, agent, _script([([], "My mobile data does not work."), ([], "Bye ###STOP###")]))
    assert idle.reward == 0.0


@pytest.mark.anyio
async def test_solo_play_ends_on_done_and_leaves_done_out_of_the_trajectory() -> None:
    task = next(t for t in load_tasks("telecom") if getattr(t, "ticket", None))
    actions = [(a.name, dict(a.arguments)) for a in task.evaluation_criteria.actions]
    agent = _script([([*actions, ("done", {})], "unreachable")])
    outcome = await play_task("telecom", task, agent, solo_mode=True)
    assert _summary(outcome.messages) == _call_messages("assistant", actions)
    assert outcome.termination == "agent_stop" and outcome.reward == 1.0
