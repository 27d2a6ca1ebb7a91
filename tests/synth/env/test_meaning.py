"""Meaning checks after verify: planted environments that pass `verify_env` and fail one check each,
and one that passes both; the duplicate-tool rule by names and by real embeddings."""

from __future__ import annotations

import pytest

from mcp_servers import Environment, find_envs, load_env, verify_env
from synth.env import MEANING_CODES, meaning_findings
from synth.env._judge import trace_problem
from synth.env._meaning import composition_problem, duplicate_tool_groups, known_to_user, left_out
from synth.env.records import Decomposition, Seed, SubQuestion

CODE = '''
TRAINS = {"G102": "Train G102 departs from Platform 7, north end of the hall", "D318": "Platform 2"}
DEPARTS = {"Shanghai Hongqiao": "G102", "Hangzhou East": "D318"}


def get_next_train(station: str) -> str:
    return DEPARTS.get(station, "no train")


def get_train_platform(train: str) -> str:
    return TRAINS.get(train, "unknown train")


def get_train_platform_2(train: str) -> str:
    return "Gate " + TRAINS.get(train, "unknown train")[-1]
'''

SCHEMA = {"type": "object", "properties": {"train": {"type": "string", "description": "A train number"}}, "required": ["train"]}
STATION = {"type": "object", "properties": {"station": {"type": "string", "description": "A station name"}}, "required": ["station"]}


def planted(**change) -> Environment:
    """A two-hop railway environment that verifies; `change` plants one flaw."""
    task = {"question": "Which platform does the next train from Shanghai Hongqiao leave from?", "answer": "Train G102 leaves from Platform 7.",
            "scenario": "multi_hop"}
    subtasks = [
        {"id": "q1", "question": "Which train leaves next from Shanghai Hongqiao?", "answer": "G102",
         "golden_call": {"tool": "get_next_train", "arguments": {"station": "Shanghai Hongqiao"}}},
        {"id": "q2", "question": "Which platform does train G102 leave from?", "answer": "Platform 7", "depends_on": ["q1"],
         "golden_call": {"tool": "get_train_platform", "arguments": {"train": "G102"}}},
    ]
    tools = [
        {"name": "get_next_train", "description": "The next train leaving a station.", "input_schema": STATION},
        {"name": "get_train_platform", "description": "The departure platform of a train.", "input_schema": SCHEMA},
    ]
    task.update(change.pop("task", {}))
    for sub, update in zip(subtasks, change.pop("subtasks", [{}, {}]), strict=True):
        sub.update(update)
    tools += change.pop("extra_tools", [])
    assert not change
    return Environment.build(CODE, domain="railway", source={"kind": "authored", "ref": "tests"}, task=task, subtasks=subtasks, tools=tools)


CASES = {
    "answer_not_composed": {"task": {"answer": "The train is on time."}},
    "main_not_question": {"task": {"question": "Next train from Shanghai Hongqiao and its platform."}},
    "main_question_malformed": {"task": {"question": "Which platform does the next train from Shanghai Hongqiao leave from? [truncated]` Error - Incorrect response forma"}},
    "answer_malformed": {"task": {"answer": "G102', 'Platform 7"}},
    "hop_not_atomic": {"subtasks": [{}, {"question": "Which platform and which end of the hall does train G102 leave from?",
                                         "answer": "Platform 7, north end of the hall"}],
                       "task": {"answer": "Train G102 leaves from Platform 7, north end of the hall."}},
    "answer_not_value": {"task": {"answer": "G102: Train G102 departs from Platform 7, north end of the hall"},
                         "subtasks": [{}, {"answer": "Train G102 departs from Platform 7, north end of the hall"}]},
    "duplicate_tool": {"extra_tools": [{"name": "get_train_platform_2", "description": "Gate of a train.", "input_schema": SCHEMA}]},
}


@pytest.mark.anyio
@pytest.mark.parametrize("code", list(CASES))
async def test_a_planted_flaw_passes_verify_and_fails_its_meaning_check(sandbox, code):
    env = planted(**CASES[code])
    assert (await verify_env(env, sandbox=sandbox)).passed
    assert [f.code for f in meaning_findings(env.spec)] == [code]


@pytest.mark.anyio
async def test_the_clean_twin_passes_verify_and_every_meaning_check(sandbox):
    env = planted()
    assert (await verify_env(env, sandbox=sandbox)).passed
    assert meaning_findings(env.spec) == []


def test_different_facts_with_one_value_are_a_repeated_answer():
    # a ZIP code equal to an order number: verify cannot tell, the answers can
    env = planted(subtasks=[{}, {"answer": "G102", "question": "Which platform does train G102 leave from?"}],
                  task={"answer": "Train G102 leaves from G102."})
    assert "repeated_answer" in [f.code for f in meaning_findings(env.spec)]
    assert set(MEANING_CODES) >= {f.code for f in meaning_findings(env.spec)}


def test_tools_that_embed_alike_are_one_function_and_different_ones_are_not(embedder):
    weather = {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}}, "required": ["city"]}
    tools = [
        ("get_city_weather", "Current weather conditions of a city.", weather),
        ("fetch_weather_for_city", "Current weather conditions for a city.", weather),
        ("get_train_platform", "The departure platform of a train.", SCHEMA),
    ]
    assert duplicate_tool_groups(tools, embedder) == [[0, 1]]
    assert duplicate_tool_groups(tools) == [], "without embeddings only names decide"
    assert duplicate_tool_groups([("getX", "a", {}), ("getX_2", "b", {}), ("getX_3", "c", {})]) == [[0, 1, 2]]


def test_the_authored_environments_mean_something(embedder):
    paths = [*find_envs("examples/envs"), *find_envs("examples/train_envs")]
    assert len(paths) >= 40
    for path in paths:
        assert meaning_findings(load_env(path).spec, embedder) == [], path.name


@pytest.mark.anyio
async def test_a_placeholder_in_the_final_answer_is_not_a_value(sandbox):
    # the 0.5B's kept restaurant environment answered "{ticket_reference_number} The most recent ticket ..."
    env = planted(task={"answer": "Train G102 leaves from Platform 7, reference {ticket_reference_number}."})
    assert (await verify_env(env, sandbox=sandbox)).passed
    assert [f.code for f in meaning_findings(env.spec)] == ["answer_not_value"]


ROW = ("background: You want the tracking number for your recent order because you misplaced the order confirmation.\n"
       " Known Infomation: Your name is Alex Rivera and your email is alex.rivera@example.com.\n"
       " Information Needed: You don't remember your order number.")


_TOLD = "What is the tracking number for my recent order? My email is alex.rivera@example.com."


def _trace(*subs: tuple[str, str, str, list[str]], answer: str, main: str = "What is the tracking number for my recent order?") -> Decomposition:
    return Decomposition(main_question=main, final_answer=answer,
                         sub_questions=[SubQuestion(id=i, question=q, answer=a, depends_on=d) for i, q, a, d in subs])


def test_a_sub_question_the_user_already_answered_is_not_a_hop():
    # the teacher's trace: two of its three hops ask for facts the row says the user knows
    seed = Seed(id="s-1", mode="corpus", domain="ecommerce", language="en", knowledge_corpus=ROW, min_hops=2, max_hops=4, ref="t:1")
    known = _trace(("q1", "What is your name?", "Alex Rivera", []), ("q2", "What is your email?", "alex.rivera@example.com", []),
                   ("q3", "What is the tracking number of the order?", "1Z999AA10123456784", []),
                   answer="Alex Rivera, alex.rivera@example.com: tracking number 1Z999AA10123456784.")
    code, feedback = trace_problem(known, seed)
    assert code == "answer_known" and "Alex Rivera" in feedback
    lookups = _trace(("q1", "What is the most recent order of the customer alex.rivera@example.com?", "W7781", []),
                     ("q2", "What is the tracking number of order W7781?", "1Z999AA10123456784", ["q1"]),
                     answer="Your order W7781 has tracking number 1Z999AA10123456784.", main=_TOLD)
    assert trace_problem(lookups, seed) is None, "a known value inside a sub-question's text is what it should be"
    untold = trace_problem(lookups.model_copy(update={"main_question": "What is the tracking number for my recent order?"}), seed)
    assert untold is not None and untold[0] == "hop_value_unknown", "the agent is asked the main question only: the user must say it there"
    assert known_to_user("Information Needed: the order number") == "", "a row without a known part gives nothing known"


def test_an_answer_that_only_names_its_slot_is_a_placeholder():
    # the teacher's pharmacy trace: q2 "What is the city where ...?" answered "City Name"
    def problem(question: str, answer: str) -> str | None:
        found = composition_problem("Which city is the pharmacy in?", f"It is in {answer}.", [("q1", question, answer, [])])
        return found[0] if found else None

    assert problem("What is the city where John Doe's pharmacy is?", "City Name") == "answer_not_value"
    assert problem("What is the order number?", "Order number 5") is None, "a number is a value"
    assert problem("Which city is the pharmacy in, Denver or Austin?", "Denver") == "hop_value_unknown", "choices the user never gave"


def test_a_final_answer_that_states_values_no_sub_question_found_is_made_up():
    # the teacher's trace: asked for bags and bikes, it looked up a train number, an id and a date
    subs = [("q1", "What is the train number?", "1234567890", []), ("q2", "What is the reservation ID?", "us1001", []),
            ("q3", "What is the date of my reservation?", "Sep 10, 2025", [])]  # fmt: skip
    made_up = composition_problem("How many bags and bikes are on my reservation?",
                                  "You have 2 bags and 1 bike. Train 1234567890, reservation us1001, Sep 10, 2025.", subs)  # fmt: skip
    assert made_up is not None and made_up[0] == "answer_adds_value" and "['2', '1']" in made_up[1]
    assert composition_problem("What is the price of order 88412?", "Order 88412 costs $1,500.", [("q1", "What is the price of order 88412?", "$1500", [])]) is None, (
        "a number the question gives, and one written with a thousands separator, are found"
    )


def test_a_code_the_final_answer_invents_is_made_up():
    # the teacher's Detroit trace: station ids in the answer that no sub-question found
    subs = [("q1", "What is the location ID for Detroit?", "68", []), ("q2", "What is the timezone of Detroit (location 68)?", "Eastern Time", ["q1"])]
    made_up = composition_problem("What are the timezone and nearby stations of Detroit?", "Detroit is on Eastern Time; its stations are DCTT and KDTW.", subs)
    assert made_up is not None and made_up[0] == "answer_adds_value" and "['DCTT', 'KDTW']" in made_up[1]
    found = [("q1", "Which station is nearest to Detroit?", "KDTW", []), ("q2", "What is the timezone at station KDTW?", "EST", [])]
    assert composition_problem("Which station is nearest to Detroit, and its timezone?", "Station KDTW, on EST.", found) is None


def test_a_long_or_templated_main_question_is_malformed():
    subs = [("q1", "Which train leaves next from Shanghai Hongqiao?", "G102", []), ("q2", "Which platform does train G102 leave from?", "Platform 7", ["q1"])]
    brief = "Please walk me through " + "every detail of my trip, " * 12 + "and tell me which platform the next train from Shanghai Hongqiao leaves from?"
    for question in (brief, "Which platform does {train} leave from?", "Which platform does the next train leave from ..."):
        problem = composition_problem(question, "Train G102 leaves from Platform 7.", subs)
        assert problem is not None and problem[0] == "main_question_malformed", question


def test_a_yes_or_no_leaf_is_sent_back_for_the_value_that_decides_it():
    # the teacher's bank trace: "whether my checking account is allowed" -> "Yes"; verify never takes a bare
    # yes as evidence (`answer_not_distinctive`), so the hop is sent back where the teacher can still fix it
    subs = [("q1", "What is the ID of beneficiary Alem Kebede?", "BEN-4471", []),
            ("q2", "Is checking account 4321 allowed to pay {q1}?", ">>Yes<", ["q1"]),
            ("q3", "What is the daily transfer limit for {q1}?", "5000 ETB", ["q1"])]  # fmt: skip
    main = "Can I send money to Alem Kebede from my checking account, and what is my daily limit?"
    problem = composition_problem(main, "Your checking account is allowed; the daily limit is 5000 ETB.", subs)
    assert problem is not None and problem[0] == "answer_not_value" and "q2's answer '>>Yes<' is a bare yes" in problem[1]
    status = [*subs[:1], ("q2", "What is the payment status of checking account 4321 for {q1}?", "eligible", ["q1"]), subs[2]]
    assert composition_problem(main, "Your checking account is eligible; the daily limit is 5000 ETB.", status) is None
    missing = composition_problem(main, "Your checking account is eligible.", status)
    assert missing is not None and missing[0] == "answer_not_composed" and "q3" in missing[1] and "q2" not in missing[1]
    assert not left_out("Yes", "Your checking account is allowed."), "a yes is stated in words, never quoted"


def test_a_lookup_of_what_the_main_question_states_is_not_a_hop_but_a_comparison_may_name_it():
    main = "What is the average cost of the compound with code 'ABC123'?"
    given = composition_problem(main, "Compound ABC123 costs $5.67 per unit.",
                                [("q1", "What is the code of the compound?", "ABC123", []), ("q2", "What is the average cost of ABC123?", "$5.67 per unit", ["q1"])])  # fmt: skip
    assert given is not None and given[0] == "answer_given"
    compared = composition_problem("Which city had cleaner air, Tbilisi or Yerevan?", "Tbilisi (AQI 87 vs AQI 142).",
                                   [("a", "What was Tbilisi's AQI?", "AQI 87", []), ("b", "What was Yerevan's AQI?", "AQI 142", []),
                                    ("c", "Which of the two had the lower AQI?", "Tbilisi", ["a", "b"])])  # fmt: skip
    assert compared is None, "a comparison of two looked-up values names an option the user gave"


def test_a_dependency_cycle_is_named_and_sent_back():
    seed = Seed(id="s-2", mode="corpus", domain="ecommerce", language="en", knowledge_corpus=ROW, min_hops=2, max_hops=4, ref="t:2")
    # each text carries the other's answer, so neither can be looked up first
    cycle = _trace(("q1", "Which order has tracking number 1Z999AA10123456784?", "W7781", ["q2"]),
                   ("q2", "What is the tracking number of order W7781?", "1Z999AA10123456784", ["q1"]),
                   answer="Your order W7781 has tracking number 1Z999AA10123456784.")
    code, feedback = trace_problem(cycle, seed)
    assert code == "cyclic_dependency" and "('q1', ['q2'])" in feedback


def test_a_known_hop_is_dropped_when_enough_hops_remain():
    from synth.env._judge import repair

    seed = Seed(id="s-1", mode="corpus", domain="ecommerce", language="en", knowledge_corpus=ROW, min_hops=2, max_hops=4, ref="t:1")
    trace = _trace(("q1", "What is your email?", "alex.rivera@example.com", []),
                   ("q2", "What is the most recent order of alex.rivera@example.com?", "W7781", ["q1"]),
                   ("q3", "What is the tracking number of order W7781?", "1Z999AA10123456784", ["q2"]),
                   answer="Your order W7781 has tracking number 1Z999AA10123456784.", main=_TOLD)  # fmt: skip
    assert trace_problem(trace, seed) is None, "the known hop is repaired away, not fed back"
    fixed = repair(trace, seed)
    assert [(q.id, q.depends_on) for q in fixed.sub_questions] == [("q2", []), ("q3", ["q2"])]
    assert "alex.rivera@example.com" in fixed.sub_questions[0].question, "the known value stays in the text that uses it"
    assert [q.id for q in repair(trace).sub_questions] == ["q1", "q2", "q3"], "without the seed nothing is known"
    debris = trace.model_copy(update={"final_answer": ", " + trace.final_answer})
    assert repair(debris, seed).final_answer == trace.final_answer, "the comma a constrained decoder left in front is cleaned off"
    unused = _trace(("q1", "What is your email?", "alex.rivera@example.com", []), ("q2", "What is the latest order?", "W7781", []),
                    ("q3", "What is the tracking number of order W7781?", "1Z999AA10123456784", ["q2"]), answer=trace.final_answer, main=_TOLD)
    assert trace_problem(unused, seed) is None and [q.id for q in repair(unused, seed).sub_questions] == ["q2", "q3"], (
        "a known hop nothing needs is dropped"
    )
    lost = _trace(("q1", "What is your email?", "alex.rivera@example.com", []), ("q2", "What is the latest order of that email?", "W7781", ["q1"]),
                  ("q3", "What is the tracking number of order W7781?", "1Z999AA10123456784", ["q2"]), answer=trace.final_answer)
    assert trace_problem(lost, seed)[0] == "unused_dependency", "a known hop that a hop refers back to but does not name is fed back, not dropped"
    habit = _trace(("q1", "What is your email?", "alex.rivera@example.com", []), ("q2", "What is the latest order?", "W7781", ["q1"]),
                   ("q3", "What is the tracking number of order W7781?", "1Z999AA10123456784", ["q2"]), answer=trace.final_answer)
    assert trace_problem(habit, seed) is None and [q.id for q in repair(habit, seed).sub_questions] == ["q2", "q3"], (
        "declared by a self-contained text, the known hop is a habit of the decoder and is dropped"
    )
    named = _trace(("q1", "What is your email?", "alex.rivera@example.com", []), ("q2", "What is the latest order?", "W7781", []),
                   ("q3", "What is the tracking number of order W7781?", "1Z999AA10123456784", ["q2"]),
                   answer=trace.final_answer, main="Which tracking number has the latest order of alex.rivera@example.com?")
    assert trace_problem(named, seed) is None, "a known hop the main question names is dropped: its value lives on there"
    assert [q.id for q in repair(named, seed).sub_questions] == ["q2", "q3"]


def test_a_value_with_a_trailing_period_is_a_value_and_a_verb_makes_a_sentence():
    # the teacher's slice answers: the first two were rejected as sentences for their period alone
    subs = lambda answer: [("q1", "Which medication and dose is on the refill?", answer, [])]  # noqa: E731
    for value in ("Lipitor (atorvastatin) 40 mg.", "2 out of 4 seats available."):
        assert composition_problem("Which medication and dose is on my refill?", f"Your refill is {value}", subs(value)) is None, value
    for sentence in ("Alem Kebede's ID is not known", "The mop was delivered."):
        problem = composition_problem("Which medication and dose is on my refill?", f"Your refill: {sentence}", subs(sentence))
        assert problem is not None and problem[0] == "answer_not_value", sentence


def test_an_entity_named_by_a_letter_is_a_stand_in_not_a_value():
    # e.g. "我的公司最近的供应商有哪些？" -> "A供应商和B供应商", which passed every other check
    subs = lambda answer: [("q1", "Which supplier shipped my last order?", answer, [])]  # noqa: E731
    for stand_in in ("A供应商和B供应商", "Supplier A", "Company X"):
        problem = composition_problem("Which supplier shipped my last order?", f"It was {stand_in}.", subs(stand_in))
        assert problem is not None and problem[0] == "answer_not_value", stand_in
    for value in ("Nordlicht Handels GmbH", "Vitamin A", "Model S", "北方供应链公司"):
        assert composition_problem("Which supplier shipped my last order?", f"It was {value}.", subs(value)) is None, value


def test_an_id_answered_with_a_name_is_not_a_value():
    # e.g. "What is the internal club ID of the Cleveland Cavaliers?" -> "LeBron James"
    subs = lambda question, answer: [("q1", question, answer, [])]  # noqa: E731
    main = "What is the club ID of the Cleveland Cavaliers?"
    for question, answer in (("What is the internal club ID of the Cleveland Cavaliers?", "LeBron James"), ("这个工单的编号是什么？", "已处理"),
                             ("What is your reservation ID?", "Cleveland Cavaliers")):  # fmt: skip
        problem = composition_problem(main, f"It is {answer}.", subs(question, answer))
        assert problem is not None and problem[0] == "answer_not_value" and "asks for an id or a code" in problem[1], answer
    for question, answer in (("What is the club ID of the Cavaliers?", "CLE-1970"), ("What is the airport code of the Cleveland Cavaliers?", "KCLE"),
                             ("What is the route code of the Cleveland Cavaliers?", "WSU/IRL"), ("What is the name of the Cavaliers' arena?", "Rocket Arena"),
                             ("What is the status of the Cleveland Cavaliers with club ID CLE-1970?", "active"),
                             ("编号是CLE的Cleveland Cavaliers状态是什么？", "正常")):  # fmt: skip
        assert composition_problem(main, f"It is {answer}.", subs(question, answer)) is None, answer


def test_letters_where_a_value_goes_make_the_main_question_malformed():
    # e.g. "设备编号是XX的设备最近一次维护预警的时间是什么？", which passed every other check
    for main in ("设备编号是XX的设备最近一次维护预警的时间是什么？", "When is the next service of device xxx?"):
        assert "main_question_malformed" in [f.code for f in meaning_findings(planted(task={"question": main}).spec)], main
    for main in ("Is the XXL jacket in stock in Berlin?", "Which train leaves Berlin first?"):
        assert "main_question_malformed" not in [f.code for f in meaning_findings(planted(task={"question": main}).spec)], main


def test_a_final_answer_that_stops_mid_sentence_is_malformed():
    env = planted(task={"answer": "Train G102 leaves from Platform 7, which makes"})
    assert [(f.code, f.message) for f in meaning_findings(env.spec)] == [("answer_malformed", "the final answer stops mid-sentence at 'makes'")]
    assert meaning_findings(planted(task={"answer": "Train G102 leaves from Platform 7 and is on time."}).spec) == []


def test_a_final_answer_holding_code_is_malformed():
    code = "Moving costs PLN 447. Your remaining balance is PLN '+str(447 - 335)+'. You can pay with plpm888.'}"
    assert "answer_malformed" in [f.code for f in meaning_findings(planted(task={"answer": code}).spec)]


def test_quoted_clauses_and_a_word_glued_to_chinese_are_malformed():
    # teacher environments that passed every other check
    for answer in ("The tracking number for order 4B4rwtH' is TN-000912987; 'The current price of the pack' is $59.00.",
                   "In公司的供应链协同管理系统中，追踪的发票金额为0元。"):  # fmt: skip
        assert "answer_malformed" in [f.code for f in meaning_findings(planted(task={"answer": answer}).spec)], answer
    for answer in ("Train G102 (the Reyes' favourite) leaves from Platform 7.", "G102 次列车从7号站台出发，iPhone 用户可扫码。"):
        assert "answer_malformed" not in [f.code for f in meaning_findings(planted(task={"answer": answer}).spec)], answer


def test_a_long_final_answer_without_a_closing_mark_was_cut_off():
    cut = "Train G102 leaves from Platform 7 at 07:28 and you can board it as soon as the doors open; seats are not reserved, " \
          "so arrive early if there are no delays and your De"
    assert [f.code for f in meaning_findings(planted(task={"answer": cut}).spec)] == ["answer_malformed"]
    assert meaning_findings(planted(task={"answer": "G102 from Platform 7"}).spec) == [], "a short answer needs no full stop"


def test_a_reference_in_the_final_answer_is_filled_in():
    from synth.env._judge import repair

    seed = Seed(id="s-1", mode="corpus", domain="ecommerce", language="en", knowledge_corpus=ROW, min_hops=2, max_hops=4, ref="t:1")
    trace = _trace(("q1", "What is the most recent order of alex.rivera@example.com?", "W7781", []),
                   ("q2", "What is the tracking number of order {q1}?", "1Z999AA10123456784", ["q1"]),
                   answer="Your order {q1} has tracking number {q2}.", main=_TOLD)  # fmt: skip
    assert trace_problem(trace, seed) is None
    assert repair(trace, seed).final_answer == "Your order W7781 has tracking number 1Z999AA10123456784."
