"""The agent loop with a `FunctionModel` against real in-process MCP servers."""

from __future__ import annotations

import anyio
import pytest

from agent_sdk import Agent, ArgumentRepair, ChatMessage, FunctionModel, ModelError, ModelResponse, Toolbox, Usage, parse_tool_calls

pytestmark = pytest.mark.anyio

FIXED = Usage(prompt_tokens=10, completion_tokens=5, requests=1)


def _counter_server(helpers, counter=None):
    state = {"n": 0}

    async def add(args):
        state["n"] += int(args.get("k", 1))
        return {"total": state["n"]}

    return helpers.make_server("counter", {"add": add}, counter)


async def test_final_answer_after_tool_calls(helpers):
    def script(messages, tools, settings):
        assert [t["function"]["name"] for t in tools] == ["add"]
        tool_turns = sum(m.role == "tool" for m in messages)
        if tool_turns < 2:
            return helpers.calls(helpers.call("add", f"c{tool_turns}", k=2))
        return f"total is {messages[-1].content}"

    agent = Agent(FunctionModel(script, reply_usage=FIXED), Toolbox(_counter_server(helpers)), system_prompt="be brief")
    trajectory = await agent.run("add twice")
    assert trajectory.stop_reason == "final_answer"
    assert trajectory.final_answer == 'total is {"total": 4}'
    assert [m.role for m in trajectory.messages] == ["system", "user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert trajectory.turns == 3 and len(trajectory.tool_calls) == 2
    assert trajectory.tool_calls[1].result.structured == {"total": 4}
    assert trajectory.messages[3].tool_call_id == "c0" and trajectory.messages[3].name == "add"
    assert trajectory.usage == Usage(prompt_tokens=30, completion_tokens=15, requests=3)
    assert trajectory.model == "function" and trajectory.tools[0]["function"]["name"] == "add"


async def test_parallel_calls_of_one_turn_run_concurrently(helpers):
    both_started = anyio.Event()
    started: list[str] = []

    async def wait_for_peer(args):
        started.append(args["who"])
        if len(started) == 2:
            both_started.set()
        # Only completes if the other call runs at the same time.
        with anyio.fail_after(5):
            await both_started.wait()
        return f"done {args['who']}"

    server = helpers.make_server("svc", {"wait_for_peer": wait_for_peer})

    def script(messages, tools, settings):
        if messages[-1].role == "user":
            return helpers.calls(
                helpers.call("wait_for_peer", "a", who="a"), helpers.call("wait_for_peer", "b", who="b")
            )
        return "both done"

    trajectory = await Agent(FunctionModel(script), Toolbox(server)).run("go")
    results = [r.result for r in trajectory.tool_calls]
    assert [r.ok for r in results] == [True, True]
    assert [r.text for r in results] == ["done a", "done b"]
    assert [m.tool_call_id for m in trajectory.messages if m.role == "tool"] == ["a", "b"]


async def test_without_parallel_tool_calls_a_reply_runs_its_first_call_only(helpers):
    def script(messages, tools, settings):
        if messages[-1].role == "user":  # a whole chain at once, the second call's id made up
            return helpers.calls(helpers.call("add", "c1", k=2), helpers.call("add", "c2", k=5))
        if sum(m.role == "tool" for m in messages) == 1:
            return helpers.calls(helpers.call("add", "c3", k=3))
        return f"total is {messages[-1].content}"

    agent = Agent(FunctionModel(script), Toolbox(_counter_server(helpers)), parallel_tool_calls=False)
    trajectory = await agent.run("add 2, then 3")
    assert [r.call.id for r in trajectory.tool_calls] == ["c1", "c3"]
    assert [len(m.tool_calls) for m in trajectory.messages if m.role == "assistant"] == [1, 1, 0]
    assert [m.tool_call_id for m in trajectory.messages if m.role == "tool"] == ["c1", "c3"]
    assert trajectory.final_answer == 'total is {"total": 5}'


async def test_stops_at_max_turns(helpers):
    def script(messages, tools, settings):
        return helpers.calls(helpers.call("add", f"c{len(messages)}"))

    trajectory = await Agent(FunctionModel(script), Toolbox(_counter_server(helpers)), max_turns=3).run("loop")
    assert trajectory.stop_reason == "max_turns"
    assert trajectory.turns == 3 and len(trajectory.tool_calls) == 3
    assert trajectory.messages[-1].role == "tool"
    assert trajectory.final_answer is None


async def test_stops_at_token_budget(helpers):
    def script(messages, tools, settings):
        return helpers.calls(helpers.call("add", f"c{len(messages)}"))

    agent = Agent(FunctionModel(script, reply_usage=FIXED), Toolbox(_counter_server(helpers)), max_tokens_budget=40)
    trajectory = await agent.run("loop")
    # 15 tokens per request: the budget of 40 is reached after the third request.
    assert trajectory.stop_reason == "token_budget"
    assert trajectory.turns == 3 and trajectory.usage.prompt_tokens + trajectory.usage.completion_tokens == 45


async def test_repaired_and_unparseable_arguments(helpers):
    text = "<tool_call>{'name': 'add', 'arguments': {'k': 3,}}</tool_call><tool_call>{\"name\": \"add\", \"arguments\": ??}</tool_call>"

    def script(messages, tools, settings):
        if messages[-1].role == "user":
            parsed = parse_tool_calls(text)
            message = ChatMessage(role="assistant", content=parsed.content_without_calls, tool_calls=parsed.calls)
            return ModelResponse(message=message, repairs=parsed.repairs)
        return "ok"

    trajectory = await Agent(FunctionModel(script), Toolbox(_counter_server(helpers))).run("add 3")
    first, second = trajectory.tool_calls
    assert first.call.arguments == {"k": 3} and first.result.ok and first.result.structured == {"total": 3}
    assert first.repair is not None and first.repair.fixes == ["single_quotes", "trailing_commas"]
    assert not second.result.ok and second.result.error_kind == "bad_arguments"
    assert second.repair is not None and not second.repair.ok
    assert len(trajectory.repairs) == 2 and all(isinstance(r, ArgumentRepair) for r in trajectory.repairs)
    assert "not a JSON object" in trajectory.messages[-2].content


async def test_unknown_tool_is_an_observation_not_a_crash(helpers):
    def script(messages, tools, settings):
        if messages[-1].role == "user":
            return helpers.calls(helpers.call("nope", "x"))
        return "gave up"

    trajectory = await Agent(FunctionModel(script), Toolbox(_counter_server(helpers))).run("?")
    assert trajectory.stop_reason == "final_answer"
    assert trajectory.tool_calls[0].result.error_kind == "unknown_tool"
    assert trajectory.messages[3].content.startswith("Error: unknown tool 'nope'")


async def test_model_error_ends_the_episode_as_data(helpers):
    def script(messages, tools, settings):
        if messages[-1].role == "user":
            return helpers.calls(helpers.call("add", "c1"))
        raise ModelError("server gone")

    trajectory = await Agent(FunctionModel(script), Toolbox(_counter_server(helpers))).run("x")
    assert trajectory.stop_reason == "model_error"
    assert trajectory.error == "ModelError: server gone"
    assert len(trajectory.tool_calls) == 1


async def test_cancelling_a_run_closes_its_sessions(helpers):
    counter = helpers.SessionCounter()
    in_tool = anyio.Event()

    async def hang(args):
        in_tool.set()
        await anyio.sleep(60)
        return "never"

    server = helpers.make_server("svc", {"hang": hang}, counter)
    agent = Agent(FunctionModel(lambda m, t, s: helpers.calls(helpers.call("hang", "h"))), Toolbox(server))
    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            tg.start_soon(agent.run, "hang")
            await in_tool.wait()
            assert counter.open == 1
            tg.cancel_scope.cancel()
    assert counter.open == 0
    assert not agent.toolbox.is_open


async def test_open_toolbox_is_reused_across_runs(helpers):
    def script(messages, tools, settings):
        if messages[-1].role == "user":
            return helpers.calls(helpers.call("add", "c"))
        return messages[-1].content

    async with Toolbox(_counter_server(helpers)) as box:
        agent = Agent(FunctionModel(script), box)
        first = await agent.run("one")
        second = await agent.run("two")
    assert (first.final_answer, second.final_answer) == ('{"total": 1}', '{"total": 2}')


def test_run_sync(helpers):
    agent = Agent(FunctionModel(lambda m, t, s: "42"), Toolbox(_counter_server(helpers)))
    trajectory = agent.run_sync("answer?", metadata={"env": "x"})
    assert trajectory.final_answer == "42" and trajectory.metadata == {"env": "x"}
