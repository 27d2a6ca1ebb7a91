"""Rollouts: against the emulator they wait for its model, not for a real tool's time limit; a last message that answers nobody is named."""

from __future__ import annotations

import json

import anyio
import pytest

from agent_sdk import ChatMessage, FunctionModel, ModelResponse, Step, ToolCall, ToolCallRecord, ToolResult, Trajectory, Usage
from mcp_servers import EmulatorConfig
from synth.sft._docs import ServerDoc, ServerSource, ToolDoc
from synth.sft._answer_shape import call_text_problem, final_answer_problem, states_a_result
from synth.sft._rollout import RolloutConfig, RolloutServers, call_limit_s, plan_hint, rollout, rollout_problem, stops_short, usable_rollout
from synth.sft._tasks import SynthTask

SERVER = ServerDoc(
    id="srv-slowdesk",
    name="slow_desk",
    description="A travel desk documented only by its tool list.",
    tools=[
        ToolDoc(
            name="search_flights",
            description="Find flights between two cities.",
            parameters={"type": "object", "properties": {"origin": {"type": "string"}}, "required": ["origin"]},
        )
    ],
    source=ServerSource(kind="openai_schemas", ref="docs.json:1"),
)
TASK = SynthTask(id="task-slow", server_id=SERVER.id, kind="server", question="Which flights leave Paris?", target_tools=["search_flights"])


def _agent_reply(messages: list[ChatMessage], tools: object, settings: object) -> ModelResponse:
    if any(m.role == "tool" for m in messages):
        return ModelResponse(message=ChatMessage(role="assistant", content="FL-7"), usage=Usage(requests=1))
    call = ToolCall(id="call_1", name="search_flights", arguments={"origin": "Paris"})
    return ModelResponse(message=ChatMessage(role="assistant", content="", tool_calls=[call]), usage=Usage(requests=1))


async def _slow_backend(messages: list[ChatMessage], tools: object, settings: object) -> str:
    await anyio.sleep(0.5)  # a loaded CPU teacher: slower than the client's real-tool limit below
    return json.dumps({"flights": [{"id": "FL-7", "origin": "Paris"}]})


def test_the_client_waits_for_the_emulators_model_beyond_the_real_tool_limit() -> None:
    config = RolloutConfig(tool_timeout_s=0.2, emulator=EmulatorConfig(failure_rate=0.0, llm_timeout_s=5.0, attempts=2))
    assert call_limit_s("emulator", config) == 10.2
    assert call_limit_s("env", config) == call_limit_s("live", config) == 0.2

    async def play() -> object:
        async with RolloutServers([SERVER], FunctionModel(_slow_backend), config) as servers:
            return await rollout(FunctionModel(_agent_reply), servers, TASK, config)

    record = anyio.run(play)
    assert record.backend == "emulator"
    (result,) = [r.result for r in record.trajectory.tool_calls]
    assert result.ok, result.error
    assert "FL-7" in result.text


@pytest.mark.parametrize(
    ("answer", "code"),
    [
        ("", "empty_final_answer"),
        ("   ", "empty_final_answer"),
        ("<json> ", "empty_final_answer"),
        ("``` ", "empty_final_answer"),
        ("好的", None),
        ('{{"name": "get_flight_details", "arguments": {"flight_id": "1234567890"}}', "unparsed_tool_call"),
        ('query_city("北京")  <tool_response> {"city_id": "101040100"} </tool_response>', "unparsed_tool_call"),
        ("search_flights(origin='SFO', destination='JFK')", "unparsed_tool_call"),
        ("<tools>  </tools>  The standard adult dose of aspirin is 300mg.", "unparsed_tool_call"),
        ("To find the cheapest car, you can use the `search_cars` function with the following arguments: ```json {}```", "instructs_tool_use"),
        ("You should call the book_flight tool with your passport name.", "instructs_tool_use"),
        ("This response is the result of calling the `get_transactions` function with the arguments `account_id=\"12345\"`.", "narrates_tool_call"),
        ("To find them, I used the `search_restaurants` function with the parameters `city: \"New York\"`.", "narrates_tool_call"),
        ("The function returns a list of transactions for the account.", "narrates_tool_call"),
        ("This is the result from the `find_station` function call.", "narrates_tool_call"),
        ("好的，接下来我们查询成都的未来一天的天气预报。", "announces_next_step"),
        ("Okay, next I will search the trains between CHDE and CHDS.", "announces_next_step"),
        ("Let me check the seats on G11 for you.", "announces_next_step"),
        ("**Result:**  ", "empty_final_answer"),
        ("Let me try again. How can I assist you further?", "announces_next_step"),
        ("Error: Error: request to tianqi_service.get_air_quality timed out after 15s (upstream did not respond).", "echoes_error"),
        ("Err: Error: request to tianqi_service.get_weather_alerts timed out after 60s (upstream did not respond).", "echoes_error"),
        ("1. **search_flights**: - **origin**: SFO 2. **book_flight**: - **seat**: 14C", "narrates_tool_call"),
        ("Here are the tools used:\n- search_flights\n- book_flight\nFinal answer: No such city", "narrates_tool_call"),
        ("// this is the result from search_flights\n``` `FL-1` ```", "markup_debris"),
        ("Let's proceed with the book_flight function call. Please provide the output from the book_flight function call.", "asks_for_tool_output"),
        ("请提供 get_seat_availability 的返回结果。", "asks_for_tool_output"),
        ("Let's proceed with the search_trains function call.", "announces_next_step"),
        ("This is an error response. I will now call the check_tables function with the restaurant id.", "announces_next_step"),
        ("FL-1 leaves at 09:05; I will now be able to book it whenever you say.", None),
        ("Please provide your passport name so I can book seat 14C.", None),
        ("Result: FL-1 leaves SFO at 09:05.", None),
        ("FL-1 leaves at 09:05. <final_answer> FL-1 leaves at 09:05. </final_answer> </response>", "markup_debris"),
        ("Next Tuesday's train G11 leaves at 08:15.", None),
        ("FL-1 leaves SFO at 09:05 and costs $120; I booked seat 14C for you.", None),
        ("I called the airline's desk: FL-1 is on time.", None),
        ("You can use your booking reference DB-4K7Q2 at the gate.", None),
        ("I could not book it: book_flight failed twice with a 503.", None),
    ],
)
def test_a_last_message_that_answers_nobody_is_named(answer: str, code: str | None) -> None:
    found = final_answer_problem(answer, ["search_flights", "book_flight", "get_flight_details"])
    assert (found[0] if found else None) == code


def test_an_answer_the_token_budget_cut_off_is_named() -> None:
    # e.g. an exported answer "Your flight departs at 09:05 and the baggage allowance is"
    answer = "Your flight departs at 09:05 and the baggage allowance is"
    assert final_answer_problem(answer, [], finish_reason="stop") is None
    found = final_answer_problem(answer, [], finish_reason="length")
    assert found is not None and found[0] == "answer_cut_off" and "allowance is" in found[1]


def test_a_rollout_without_a_usable_answer_is_played_again_a_little_hotter() -> None:
    temperatures: list[float] = []

    def agent(messages: list[ChatMessage], tools: object, settings: object) -> ModelResponse:
        temperatures.append(settings.temperature)
        if settings.temperature < 0.75:  # the first sample writes its call as text, which answers nobody
            return ModelResponse(message=ChatMessage(role="assistant", content="search_flights(origin='Paris')"), usage=Usage(requests=1))
        return _agent_reply(messages, tools, settings)

    config = RolloutConfig(attempts=2, emulator=EmulatorConfig(failure_rate=0.0))

    async def play(config: RolloutConfig) -> tuple:
        async with RolloutServers([SERVER], FunctionModel(_slow_backend), config) as servers:
            return await usable_rollout(FunctionModel(agent), servers, TASK, config, ["search_flights"])

    record, problem = anyio.run(play, config)
    assert problem is None and record.attempt == 2 and record.trajectory.final_answer == "FL-7"
    assert temperatures == [0.7, pytest.approx(0.8), pytest.approx(0.8)], "one request for the failed sample, two for the usable one"
    record, problem = anyio.run(play, config.model_copy(update={"attempts": 1}))
    assert problem is not None and problem[0] == "no_tool_calls" and record.attempt == 1, "one attempt keeps the old behaviour"


def test_a_rollout_runs_the_first_call_of_a_reply_and_the_row_holds_that_call_alone() -> None:
    def agent(messages: list[ChatMessage], tools: object, settings: object) -> ModelResponse:
        if any(m.role == "tool" for m in messages):
            return ModelResponse(message=ChatMessage(role="assistant", content="FL-7"), usage=Usage(requests=1))
        calls = [ToolCall(id="call_1", name="search_flights", arguments={"origin": "Paris"}),
                 ToolCall(id="call_2", name="search_flights", arguments={"origin": "FL-12345"})]  # fmt: skip
        return ModelResponse(message=ChatMessage(role="assistant", content="", tool_calls=calls), usage=Usage(requests=1))

    async def play(config: RolloutConfig) -> object:
        async with RolloutServers([SERVER], FunctionModel(_slow_backend), config) as servers:
            return await rollout(FunctionModel(agent), servers, TASK, config)

    config = RolloutConfig(emulator=EmulatorConfig(failure_rate=0.0))
    record = anyio.run(play, config)
    assert [r.call.id for r in record.trajectory.tool_calls] == ["call_1"]
    assert [len(m.get("tool_calls", [])) for m in record.openai_messages() if m["role"] == "assistant"] == [1, 0]
    record = anyio.run(play, config.model_copy(update={"parallel_tool_calls": True}))
    assert [r.call.id for r in record.trajectory.tool_calls] == ["call_1", "call_2"]


def test_the_agent_is_told_the_tools_of_its_task_and_the_stored_row_is_not() -> None:
    seen: list[str] = []

    def agent(messages: list[ChatMessage], tools: object, settings: object) -> ModelResponse:
        seen.append(messages[0].content or "")
        return _agent_reply(messages, tools, settings)

    chain_task = TASK.model_copy(update={"kind": "chain", "chain": ["search_flights", "book_flight"], "target_tools": ["search_flights", "book_flight"]})
    assert "in this order: search_flights, book_flight" in plan_hint(chain_task)
    assert plan_hint(TASK).startswith(" This request is answered with these tools: search_flights.")

    async def play(config: RolloutConfig) -> object:
        async with RolloutServers([SERVER], FunctionModel(_slow_backend), config) as servers:
            return await rollout(FunctionModel(agent), servers, TASK, config)

    config = RolloutConfig(plan_hint=True, emulator=EmulatorConfig(failure_rate=0.0))
    record = anyio.run(play, config)
    assert seen and all(s == config.system_prompt + plan_hint(TASK) for s in seen)
    stored = record.openai_messages()
    assert stored[0] == {"role": "system", "content": config.system_prompt} and record.trajectory.final_answer == "FL-7"
    seen.clear()
    record = anyio.run(play, config.model_copy(update={"plan_hint": False}))
    assert seen and all(s == config.system_prompt for s in seen)


@pytest.mark.parametrize(
    ("answer", "called", "code"),
    [
        ("I found Riverside station. Please provide the station codes for both stations.", ["search_flights"], "asks_user_midway"),
        ("请提供您的账户号码，以便我查询。", ["search_flights"], "asks_user_midway"),
        ("Flight FL-7 leaves at 9:40. Could you tell me which one to book?", ["search_flights", "book_flight"], None),
        ("Flight FL-7 leaves Paris at 9:40 and is booked.", ["search_flights"], "task_tools_uncalled"),
        ("Flight FL-7 leaves Paris at 9:40 and is booked.", ["search_flights", "book_flight"], None),
    ],
)
def test_an_answer_before_the_tasks_tools_were_called_stops_short(answer: str, called: list[str], code: str | None) -> None:
    task = TASK.model_copy(update={"target_tools": ["search_flights", "book_flight"]})
    calls = [
        ToolCallRecord(turn=1, call=ToolCall(id=f"c{i}", name=n, arguments={}), result=ToolResult(ok=True, text='{"flight": "FL-7"}', tool=n))
        for i, n in enumerate(called)
    ]
    trajectory = Trajectory(task=task.question, steps=[Step(turn=1, message_index=1, calls=calls)], final_answer=answer, stop_reason="final_answer")
    found = stops_short(trajectory, task)
    assert (found[0] if found else None) == code


@pytest.mark.parametrize(
    ("answer", "states"),
    [
        ("Your request to obtain the next day's weather forecast is valid after the air quality is checked.", False),
        ("成都的空气质量指数是 50，首要污染物是 PM2.5。", True),
        ("The AQI in Chengdu is 50.", True),
    ],
)
def test_an_answer_must_state_something_the_tools_returned(answer: str, states: bool) -> None:
    # e.g. a row answering the first sentence after two successful calls, judged 0.89
    results = ['{"city_id": 1001, "province": "四川省", "timezone": "东八区"}', '{"aqi": 50, "primary_pollutant": "PM2.5", "ok": true}']
    assert states_a_result(answer, results) is states
    task = TASK.model_copy(update={"target_tools": ["search_flights"]})
    calls = [ToolCallRecord(turn=1, call=ToolCall(id="c1", name="search_flights", arguments={}), result=ToolResult(ok=True, text=results[1], tool="search_flights"))]
    trajectory = Trajectory(task=task.question, steps=[Step(turn=1, message_index=1, calls=calls)], final_answer=answer, stop_reason="final_answer")
    found = stops_short(trajectory, task)
    assert (found[0] if found else None) == (None if states else "answer_states_no_result")
    failed = [r.model_copy(update={"result": ToolResult(ok=False, text="Error: timed out", tool="search_flights")}) for r in calls]
    assert stops_short(trajectory.model_copy(update={"steps": [Step(turn=1, message_index=1, calls=failed)]}), task) is None, (
        "after a failed call, saying what could not be done is the answer"
    )


@pytest.mark.parametrize(
    ("text", "bad"),
    [
        ('{{"name": "check_tables", "arguments": {"date": "2023-06-15", "restaurant_id": <restaurant-id-from-search-results>}}}', True),
        ("2. Check tables for Restaurant ID: `restaurant_id_from_search_results` (from step 1)", True),
        ("// Wait for search_city to return city_id", True),
        ("Here's how the tools would potentially respond based on the given inputs:", True),
        ("Let's assume it works. To book it, you would use the function:", True),
        ("", False),
        ("I'll look up the city first.", False),
        ("We can use search_city to find the city id first.", False),
        ("先查询城市编号。", False),
    ],
)
def test_text_beside_a_call_that_is_debris_is_named(text: str, bad: bool) -> None:
    found = call_text_problem(text)
    assert (found[0] if found else None) == ("text_beside_call" if bad else None)


def test_a_rollout_whose_call_came_with_a_placeholder_plan_is_no_usable_conversation() -> None:
    call = ToolCall(id="c1", name="search_flights", arguments={"origin": "Paris"})
    messages = [
        ChatMessage(role="user", content=TASK.question),
        ChatMessage(role="assistant", content='Then {"name": "book_flight", "arguments": {"flight_id": "<id-from-search>"}}', tool_calls=[call]),
        ChatMessage(role="tool", content='{"flight": "FL-7"}', tool_call_id="c1"),
        ChatMessage(role="assistant", content="Flight FL-7 leaves Paris."),
    ]
    record = ToolCallRecord(turn=1, call=call, result=ToolResult(ok=True, text='{"flight": "FL-7"}', tool="search_flights"))
    steps = [Step(turn=1, message_index=1, calls=[record]), Step(turn=2, message_index=3)]
    trajectory = Trajectory(task=TASK.question, messages=messages, steps=steps, final_answer="Flight FL-7 leaves Paris.", stop_reason="final_answer")
    found = rollout_problem(trajectory, ["search_flights", "book_flight"])
    assert found is not None and found[0] == "text_beside_call" and found[1].startswith("turn 1:")
    clean = [*messages[:1], messages[1].model_copy(update={"content": "I'll search first."}), *messages[2:]]
    assert rollout_problem(trajectory.model_copy(update={"messages": clean}), ["search_flights", "book_flight"]) is None


def test_an_empty_tools_tag_pair_beside_a_call_is_dropped_from_the_row() -> None:
    # the teacher wrote "<tools>\n\n</tools>" (its chat template's tag for the tool list) beside its calls
    def agent(messages: list[ChatMessage], tools: object, settings: object) -> ModelResponse:
        if any(m.role == "tool" for m in messages):
            return ModelResponse(message=ChatMessage(role="assistant", content="Flight FL-7 leaves Paris."), usage=Usage(requests=1))
        call = ToolCall(id="call_1", name="search_flights", arguments={"origin": "Paris"})
        return ModelResponse(message=ChatMessage(role="assistant", content="<tools>\n\n</tools>", tool_calls=[call]), usage=Usage(requests=1))

    async def play(config: RolloutConfig) -> object:
        async with RolloutServers([SERVER], FunctionModel(_slow_backend), config) as servers:
            return await rollout(FunctionModel(agent), servers, TASK, config)

    record = anyio.run(play, RolloutConfig(emulator=EmulatorConfig(failure_rate=0.0)))
    assert [m.get("content") for m in record.openai_messages() if m["role"] == "assistant"] == ["", "Flight FL-7 leaves Paris."]
    assert rollout_problem(record.trajectory, ["search_flights"]) is None


def test_a_failure_the_agent_caused_with_a_made_up_id_does_not_excuse_uncalled_tools() -> None:
    # e.g. get_medicine_info(medicine_id="12345") before any search, "not found", then an answer
    task = TASK.model_copy(update={"target_tools": ["search_flights", "book_flight"]})

    def played(flight_id: str) -> Trajectory:
        call = ToolCall(id="c1", name="book_flight", arguments={"flight_id": flight_id})
        messages = [ChatMessage(role="user", content="Book flight FL-7 from Paris for me."), ChatMessage(role="assistant", tool_calls=[call]),
                    ChatMessage(role="tool", content="Error: flight not found", tool_call_id="c1"),
                    ChatMessage(role="assistant", content="I could not book it: the flight was not found.")]  # fmt: skip
        record = ToolCallRecord(turn=1, call=call, result=ToolResult(ok=False, text="Error: flight not found", tool="book_flight"))
        return Trajectory(task=task.question, messages=messages, steps=[Step(turn=1, message_index=1, calls=[record]), Step(turn=2, message_index=3)],
                          final_answer=messages[-1].content, stop_reason="final_answer")  # fmt: skip

    found = stops_short(played("FL-12345"), task)
    assert found is not None and found[0] == "task_tools_uncalled" and "made up" in found[1]
    assert stops_short(played("FL-7"), task) is None, "a failure on the id the user gave is reported, and that is the answer"
