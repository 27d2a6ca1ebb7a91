"""Stage 3: task generation keeps only valid tasks, in the server's language, above every score threshold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_sdk import FunctionModel
from sft_world import assert_example_only_without_schema
from synth.sft import TaskScores, TaskThresholds, ingest_file
from synth.sft._graph import chain_inputs
from synth.sft._request_shape import request_problem
from synth.sft._tasks import (
    augment,
    chain_tasks,
    detect_language,
    load_personas,
    missing_inputs,
    pick_persona,
    score_task,
    server_tasks,
)

ROOT = Path(__file__).resolve().parents[3]
TRAVEL = ingest_file(ROOT / "examples" / "tool_docs" / "travel_desk.json").servers[0]


@pytest.mark.anyio
async def test_server_tasks_drop_invalid_ones() -> None:
    reply = {"tasks": [
        {"question": "Find me a flight SFO to JFK on June 1 and book it for Ana Silva.", "tools": ["search_flights", "book_flight"]},
        {"question": "Teleport me to JFK and book a seat for Ana Silva.", "tools": ["teleport", "book_flight"]},
        {"question": "帮我查一下明天从上海到北京的航班并预订。", "tools": ["search_flights", "book_flight"]},
    ]}
    tasks, result = await server_tasks(FunctionModel.from_replies(json.dumps(reply)), TRAVEL, n=3, k=2)
    assert result.ok and [t.question for t in tasks] == [reply["tasks"][0]["question"]]
    assert tasks[0].kind == "server" and tasks[0].target_tools == ["search_flights", "book_flight"]


@pytest.mark.parametrize(
    ("question", "code"),
    [
        ("{0}市今天上午的天气预报和空气质量指数和气象预警，请提供目标城市和时间范围。", "placeholder"),
        ("Book me the cheapest flight on <date> for Ana Silva.", "placeholder"),
        ("The user needs to search for flights, get seat availability, and book the seat.", "not_a_request"),
        ("2. A user wants to find a flight from New York to London on a specific date.", "not_a_request"),
        ("Why is this request being interpreted as requiring more careful tool use? Here are the added constraints.", "about_the_request"),
        ("Please use search_flights to find me a SFO-JFK flight on 2025-06-01.", "names_a_tool"),
        ("I'm looking for flights from New York to Tokyo on a specific date. Can you help me find them?", "missing_detail"),
        ("What is the stock in branch X?", "missing_detail"),
        ("帮我查一下某天从上海到北京的航班。", "missing_detail"),
        (",查询北京今天上午的天气预报，并获取该城市当前的空气质量指数和气象预警。", "fragment"),
        ("}Which ship runs the first ferry from Kelmarsh to Brannock on 21 June 2025?", "fragment"),
        ("But I want to renew my loan at the library branch where I checked the book out last week.", "fragment"),
        ("It appears you're looking to find the first ferry from Kelmarsh to Brannock on June 21, 2025.", "assistant_voice"),
        ("Do you need to check the availability of the book 'The Great Gatsby' by F. Scott Fitzgerald?", "assistant_voice"),
        ("Butterscotch desserts: which bakery in Porto sells them today?", None),
        ("Which branch should I go to for this book?", "no_antecedent"),
        ("Calculate the security deposit for this quote", "no_antecedent"),
        ("I need the cheapest compact car at Faro Airport for 5 days from 2 August 2025, and the security deposit for this car.", None),
        ("Is there a table for 4 at The Bistro this Saturday?", None),
        ("Is the specific non-fiction book 'The Great Gatsby' on the shelf at Central Library?", None),
        ("Find me a flight SFO to JFK on June 1 and book it for Ana Silva.", None),
        ("帮我查一下明天从上海到北京的航班，选最便宜的一班帮我订上。", None),
        ("Can I take a bag [23 kg] on flight UA-12 and what does the seat cost?", None),
    ],
)
def test_what_no_user_would_send_is_named(question: str, code: str | None) -> None:
    found = request_problem(question, [t.name for t in TRAVEL.tools])
    assert (found[0] if found else None) == code


@pytest.mark.anyio
async def test_a_generated_template_is_sent_back_and_never_kept() -> None:
    template = json.dumps({"questions": ["The user needs to search flights from {origin} and book one."]})
    fixed = json.dumps({"questions": ["Find me a flight from SFO to JFK on 2025-06-01 and book it for Ana Silva."]})
    model = FunctionModel.from_replies(template, fixed)
    (task,), result = await chain_tasks(model, TRAVEL, ["search_flights", "book_flight"], [], n=1)
    assert result.ok and task.question.startswith("Find me a flight")
    assert "placeholder '{origin}'" in model.requests[1].messages[-1].content, "the retry says what is wrong"


def test_a_chain_asks_the_user_only_for_what_no_earlier_step_returns() -> None:
    bank = ingest_file(ROOT / "examples" / "tool_docs" / "bank_desk.json").servers[0]
    rail = ingest_file(ROOT / "examples" / "tool_docs" / "rail_tickets.json").servers[0]
    names = lambda server, chain: [(i.tool, i.name) for i in chain_inputs(server, chain)]  # noqa: E731
    assert names(bank, ["list_accounts", "get_transactions", "freeze_card"]) == [
        ("list_accounts", "customer_id"), ("get_transactions", "start_date"), ("get_transactions", "end_date"), ("freeze_card", "card_last4"),
    ], "account_id is in list_accounts' description; the card's digits are nowhere"  # fmt: skip
    assert names(rail, ["find_station", "search_trains", "get_seat_availability"]) == [("find_station", "name"), ("search_trains", "date")], (
        "find_station returns station codes (from_code, to_code); search_trains returns train_no"
    )
    assert names(rail, ["search_trains"]) == [("search_trains", "from_code"), ("search_trains", "to_code"), ("search_trains", "date")]
    inputs = chain_inputs(bank, ["list_accounts", "get_transactions"])
    assert [i.name for i in missing_inputs("Show what I spent last month on my checking account.", inputs)] == ["customer_id", "start_date", "end_date"]
    assert missing_inputs("I'm customer C-4410292: list my checking transactions from 2026-03-01 to 2026-03-31.", inputs) == []
    assert [i.name for i in missing_inputs("Customer 4410292 here: what did I spend last month?", inputs)] == ["start_date", "end_date"]
    assert missing_inputs("Customer 4410292 here: what did I spend since March 1?", inputs) == [], "one date may bound both ends (until today)"


@pytest.mark.anyio
async def test_a_request_without_the_values_its_first_calls_need_is_sent_back() -> None:
    vague = json.dumps({"questions": ["Can I freeze my credit card?"]})
    fixed = json.dumps({"questions": ["I'm customer C-4410292 and lost my card ending 8841: please freeze it."]})
    bank = ingest_file(ROOT / "examples" / "tool_docs" / "bank_desk.json").servers[0]
    model = FunctionModel.from_replies(vague, fixed)
    (task,), result = await chain_tasks(model, bank, ["list_accounts", "freeze_card"], [], n=1)
    assert result.ok and task.question.startswith("I'm customer C-4410292")
    assert "customer_id (Customer number, e.g. 'C-7702615'), card_last4 (Last four digits of the card)" in model.requests[0].messages[-1].content
    assert "gives no customer_id for list_accounts" in model.requests[1].messages[-1].content, "the retry names the missing value"
    base = task.model_copy(update={"question": "I'm customer C-4410292 and lost my card ending 8841: please freeze it."})
    dropped = FunctionModel.from_replies(*[json.dumps({"question": "As a nurse on night shifts, I lost my card: please freeze it."})] * 3)
    rewritten, failed = await augment(dropped, base, "persona", persona="a nurse", inputs=chain_inputs(bank, base.chain))
    assert rewritten is None and "gives no customer_id" in failed.detail, "a rewrite that drops the customer number is never kept"


@pytest.mark.anyio
async def test_chain_tasks_in_the_wrong_language_fail_closed() -> None:
    chinese = json.dumps({"questions": ["请帮我预订从旧金山到纽约的航班，然后取消它。"]})
    tasks, result = await chain_tasks(FunctionModel.from_replies(chinese, chinese, chinese), TRAVEL, ["search_flights", "book_flight"], [], n=1)
    assert tasks == [] and result.reason_code == "invalid_output"
    assert "must be in 'en'" in result.detail
    assert detect_language("请帮我预订航班") == "zh" and detect_language("Book a flight to Paris") == "en"


@pytest.mark.anyio
async def test_augmentation_and_scores() -> None:
    personas = load_personas(ROOT / "examples" / "personas.jsonl")
    assert len(personas) >= 10
    base_reply = json.dumps({"questions": ["Find the cheapest SFO to JFK flight on 2025-06-01 and book it for Ana Silva."]})
    (base,), _ = await chain_tasks(FunctionModel.from_replies(base_reply), TRAVEL, ["search_flights", "book_flight"], ["book a cheap flight"], n=1)
    persona = pick_persona(personas, base.id, seed=0)
    assert persona == pick_persona(personas, base.id, seed=0), "the persona choice is seeded"
    model = FunctionModel.from_replies(json.dumps({"question": "As a retired teacher, I need the cheapest SFO-JFK flight on June 1 booked for Ana Silva."}))
    rewritten, _ = await augment(model, base, "persona", persona=persona)
    assert rewritten.parent == base.id and rewritten.augmentation == "persona" and rewritten.target_tools == base.target_tools
    assert persona in model.requests[0].messages[-1].content
    reply = {"wanted": "book a flight", "first_tool": "search_flights", "covers": "yes", "known_answer": "lookup", "needs_tools": "yes",
             "reason": "clear", "clear": "yes", "realistic": "mostly"}  # fmt: skip
    scores = await score_task(FunctionModel.from_replies(json.dumps(reply)), TRAVEL, rewritten)
    assert (scores.value.question_quality, scores.value.scenario_realism, scores.value.tool_necessity) == (5, 4, 5)
    for change in ({"first_tool": "none"}, {"covers": "no"}, {"needs_tools": "no"}):
        failed = await score_task(FunctionModel.from_replies(json.dumps(reply | change)), TRAVEL, rewritten)
        assert TaskThresholds().failures(failed.value) == ["tool_necessity"], "off the server or trivial: no tool of it is needed"
    unknown = await score_task(FunctionModel.from_replies(*[json.dumps(reply | {"first_tool": "rent_car"})] * 3), TRAVEL, rewritten)
    assert unknown.value is None and "first_tool must be one of" in unknown.detail
    assert TaskThresholds().failures(TaskScores(question_quality=3, scenario_realism=3, tool_necessity=3)) == []
    garbage = await score_task(FunctionModel.from_replies("great question", "10/10", "yes"), TRAVEL, rewritten)
    assert garbage.value is None and garbage.reason_code == "no_json", "an unparseable score rejects, never passes"


@pytest.mark.anyio
async def test_copied_examples_fail_task_writing_and_scoring() -> None:
    from synth.sft._tasks import (
        SCORE_EXAMPLE,
        _ScoreReply,
        questions_example,
        server_tasks_schema,
    )

    copy = questions_example(1).text
    tasks, result = await chain_tasks(FunctionModel.from_replies(copy, copy, copy), TRAVEL, ["search_flights", "book_flight"], [], n=1)
    assert tasks == [] and result.reason_code == "copied_example"
    (base,), _ = await chain_tasks(FunctionModel.from_replies(json.dumps({"questions": ["Book the cheapest SFO to JFK flight on June 1 for Ana Silva."]})), TRAVEL, ["search_flights", "book_flight"], [], n=1)
    assert TaskThresholds().failures(_ScoreReply.model_validate(SCORE_EXAMPLE.value).scores()) == ["question_quality", "scenario_realism", "tool_necessity"]
    scored = await score_task(FunctionModel.from_replies(*[SCORE_EXAMPLE.text] * 3), TRAVEL, base)
    assert scored.value is None and scored.reason_code == "copied_example"
    schema = server_tasks_schema({"search_flights", "book_flight", "cancel_booking"}, n=2, k=2)
    tools = schema["properties"]["tasks"]["items"]["properties"]["tools"]
    assert tools["items"]["enum"] == ["book_flight", "cancel_booking", "search_flights"] and tools["minItems"] == 2
    assert schema["properties"]["tasks"]["maxItems"] == 2


@pytest.mark.anyio
async def test_task_prompts_show_their_example_only_when_the_schema_is_not_enforced() -> None:
    from synth.sft._tasks import REWRITE_EXAMPLE, SCORE_EXAMPLE, SynthTask, questions_example, server_tasks_example

    chain = ["search_flights", "book_flight"]
    base = SynthTask(id="t", server_id=TRAVEL.id, kind="chain", question="Book the cheapest SFO to JFK flight for Ana.", target_tools=chain)
    stages = [
        (questions_example(1), lambda m: chain_tasks(m, TRAVEL, chain, [], n=1)),
        (server_tasks_example(2), lambda m: server_tasks(m, TRAVEL, n=1, k=2)),
        (REWRITE_EXAMPLE, lambda m: augment(m, base, "diverse")),
        (SCORE_EXAMPLE, lambda m: score_task(m, TRAVEL, base)),
    ]
    await assert_example_only_without_schema(stages)


@pytest.mark.anyio
async def test_scores_weigh_each_answer_by_the_scorers_own_probability() -> None:
    """A scorer that names a tool but is unsure of it scores the task's necessity below one that is sure."""
    import math
    import re

    from agent_sdk import ChatMessage, ModelResponse, TokenChoice

    (task,), _ = await chain_tasks(FunctionModel.from_replies(json.dumps({"questions": ["Book the cheapest SFO to JFK flight on June 1 for Ana Silva."]})), TRAVEL, ["search_flights", "book_flight"], [], n=1)
    text = json.dumps({"wanted": "a flight", "first_tool": "search_flights", "covers": "yes", "known_answer": "lookup", "needs_tools": "yes",
                       "reason": "ok", "clear": "yes", "realistic": "mostly"})  # fmt: skip

    def reply(p_tool: float, p_clear: float) -> ModelResponse:
        # Weighed: the tool's name and the third "yes" (`clear`; the first two are `covers` and `needs_tools`).
        weighed = {("search_flights", 1): {"search_flights": p_tool, "none": 1 - p_tool}, ("yes", 3): {"yes": p_clear, "partly": 1 - p_clear}}
        seen: dict[str, int] = {}
        choices = []
        for token in re.findall(r"\w+|\s+|[^\w\s]", text):
            seen[token] = seen.get(token, 0) + 1
            top = weighed.get((token, seen[token]), {})
            choices.append(TokenChoice(token=token, logprob=math.log(top.get(token, 1.0)), top={t: math.log(p) for t, p in top.items()}))
        return ModelResponse(message=ChatMessage(role="assistant", content=text), token_choices=choices)

    sure = await score_task(FunctionModel(lambda messages, tools, settings: reply(0.99, 0.99)), TRAVEL, task)
    unsure = await score_task(FunctionModel(lambda messages, tools, settings: reply(0.4, 0.5)), TRAVEL, task)
    assert sure.value.tool_necessity == pytest.approx(1 + 4 * 0.99)
    assert unsure.value.tool_necessity == pytest.approx(1 + 4 * 0.4) and TaskThresholds().failures(unsure.value) == ["tool_necessity"]
    assert unsure.value.question_quality < sure.value.question_quality <= 5
    assert sure.value.scenario_realism == unsure.value.scenario_realism == 4, "a word without alternatives keeps its points"
