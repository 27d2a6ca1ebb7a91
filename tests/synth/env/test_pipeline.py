import json

import pytest
from envscript import QUESTION_ROW, Script, doc, rejected, write_rows
from envscript import rows as table_rows
from mcp import Client

import synth.env
from agent_sdk import FunctionModel
from mcp_servers import build_env_server, load_env
from synth.env import SynthConfig, synthesize_envs


async def run(tmp_path, script, sandbox, auditor=None, rows=(QUESTION_ROW,), **cfg):
    """One pass per seed unless told otherwise: most tests here pin what one stage does with a reply."""
    inp = write_rows(tmp_path / "in.jsonl", *rows)
    config = SynthConfig(leak_audit=auditor is not None, **{"seed_attempts": 1, **cfg})
    model = FunctionModel(script)
    result = await synthesize_envs(model, tmp_path / "out", inputs=[inp], config=config, sandbox=sandbox, auditor=auditor, show_progress=False)
    return result, model


def test_public_api():
    assert {"synthesize_envs", "import_envs", "SynthConfig", "Thresholds", "render_report"} <= set(synth.env.__all__)


@pytest.mark.anyio
async def test_clean_multi_hop_end_to_end_served_over_mcp(tmp_path, sandbox, auditor):
    result, model = await run(tmp_path, Script(), sandbox, auditor)
    assert rejected(tmp_path / "out") == []
    (record,) = result.envs
    assert record.scenario == "multi_hop" and record.hops == 2 and record.tools == 2
    env = load_env(tmp_path / "out" / record.path)
    assert env.spec.id == record.env_id and env.spec.language == "en"
    assert [s.golden_call.tool for s in env.spec.subtasks] == ["get_landmark_city", "get_city_weather"]
    assert env.spec.subtasks[1].depends_on == ["q1"]
    assert "language" in env.spec.tool("get_landmark_city").input_schema["properties"]  # complexity scaling kept
    async with Client(build_env_server(env, sandbox), mode="legacy") as client:
        listed = await client.list_tools()
        assert sorted(t.name for t in listed.tools) == ["get_city_weather", "get_landmark_city"]
        city = await client.call_tool("get_landmark_city", {"landmark": "Eiffel Tower"})
        weather = await client.call_tool("get_city_weather", {"city": "Paris"})
    assert not city.is_error and "Paris" in city.content[0].text
    assert "18°C" in weather.content[0].text
    stats = json.loads((tmp_path / "out" / "stats.json").read_text())
    assert stats["outputs"] == 1 and stats["funnel"][-1] == {"stage": "assemble", "seen": 1, "accepted": 1, "rejected": 0, "reasons": {}}
    # decompose, necessity, four checks and coherence per sub-question, five calls per tool, the merge grouping
    assert stats["llm_last_run"]["calls"] == len(model.requests) == 1 + 1 + (4 + 2) + 2 * 5 + 1
    assert "609 benchmark questions" in stats["extra"]["leak_audit"]


@pytest.mark.anyio
async def test_rerun_is_free_and_identical(tmp_path, sandbox):
    first, _ = await run(tmp_path, Script(), sandbox)
    snapshot = {p: p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file() and "cache" not in p.parts and p.name != "stats.json"}
    again, model = await run(tmp_path, Script(), sandbox)
    assert model.requests == []
    assert again.envs == first.envs
    assert {p: p.read_bytes() for p in snapshot} == snapshot
    assert again.stats.runs == 2 and again.stats.llm_last_run.calls == 0


@pytest.mark.anyio
async def test_chinese_domain_only_sample(tmp_path, sandbox):
    landmark = doc("lookup_landmark_city", {"landmark": "string"}, {"landmark": "故宫博物院"}, "查询地标所在城市。")
    weather = doc("lookup_city_temperature", {"city": "string"}, {"city": "北京"}, "查询城市当前气温。")
    script = Script(
        decompose=[json.dumps({
            "main_question": "故宫博物院所在城市今天的气温是多少？",
            "final_answer": "21摄氏度",
            "sub_questions": [
                {"id": "q1", "question": "故宫博物院位于哪个城市？", "answer": "北京", "depends_on": []},
                {"id": "q2", "question": "北京今天的气温是多少？", "answer": "21摄氏度", "depends_on": ["q1"]},
            ],
        }, ensure_ascii=False)],
        docs={"q1": landmark, "q2": weather},
        scale="不行",
        rows={
            "lookup_landmark_city": [table_rows((["外滩"], "上海"), (["西湖"], "杭州"), (["宽窄巷子"], "成都"))],
            "lookup_city_temperature": [table_rows((["上海"], "25摄氏度"), (["杭州"], "23摄氏度"), (["成都"], "19摄氏度"))],
        },
    )
    result, model = await run(tmp_path, script, sandbox, rows=[{"domain": "在线预订（酒店、机票、门票）", "knowledge_corpus": ""}])
    assert rejected(tmp_path / "out") == []
    (record,) = result.envs
    env = load_env(tmp_path / "out" / record.path)
    assert env.spec.language == "zh" and env.spec.task.answer == "21摄氏度"
    request = model.requests[0].messages
    assert "Simplified Chinese" in request[-1].content and "静默轨道" in request[2].content, "a Chinese seed is shown the Chinese worked example"
    assert "scaling_fallback q1" in record.notes  # the scaler's garbage reply kept the unscaled document


@pytest.mark.anyio
async def test_malformed_json_then_correct_retry(tmp_path, sandbox):
    good = Script().decompose[0]
    result, model = await run(tmp_path, Script(decompose=['{"main_question": "What is', good]), sandbox)
    assert len(result.envs) == 1
    retry = model.requests[1].messages
    assert retry[-2].content == '{"main_question": "What is' and "could not be used" in retry[-1].content


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("judge", "reason"),
    [
        (RuntimeError("judge backend down"), "judge_model_error"),
        ('{"reason": "fine, I guess"}', "judge_invalid_output"),
        ("Looks good to me!", "judge_no_json"),
        ('{"reason": "q2 does not need q1", "verdict": "no"}', "low_dependency"),
        ('{"reason": "a real flaw in q2", "verdict": "partly"}', "low_dependency"),
    ],
)
async def test_a_judge_that_errors_or_omits_its_score_rejects(tmp_path, sandbox, judge, reason):
    result, _ = await run(tmp_path, Script(judge=judge), sandbox)
    assert result.envs == []
    (rej,) = rejected(tmp_path / "out")
    assert rej["stage"] == "checks" and rej["reason"] == reason
    assert not (tmp_path / "out" / "envs").exists() or not any((tmp_path / "out" / "envs").iterdir())


@pytest.mark.anyio
async def test_other_inputs_that_only_repeat_a_golden_input_are_fed_back_then_rejected(tmp_path, sandbox):
    clash = table_rows((["paris"], "9°C"), (["Paris "], "18°C"), (["PARIS"], "18°C"))
    script = Script(rows={"get_landmark_city": Script().rows["get_landmark_city"], "get_city_weather": [clash]})
    result, model = await run(tmp_path, script, sandbox, code_retries=0, retries=2)
    assert result.envs == []
    (rej,) = rejected(tmp_path / "out")
    assert (rej["stage"], rej["reason"]) == ("tools", "code_invalid_output") and "every value repeats an input" in rej["detail"]
    assert script.log.count("inputs:get_city_weather") >= 2  # retried, told why (a repeated retry prompt is answered from the cache)
    # one new input is enough: the ones repeating the golden input are left out, the golden row stands
    script = Script(rows={"get_landmark_city": Script().rows["get_landmark_city"],
                          "get_city_weather": [table_rows((["paris"], "9°C"), (["rome"], "24°C"), (["oslo"], "8°C"))]})
    (tmp_path / "again").mkdir()
    kept, _ = await run(tmp_path / "again", script, sandbox)
    env = load_env(tmp_path / "again" / "out" / kept.envs[0].path)
    code = (env.path / "tools.py").read_text()
    assert "'paris',): {'city_weather': '18°C'}" in code and "'oslo',): {'city_weather': '8°C'}" in code


@pytest.mark.anyio
async def test_a_synthesized_tool_is_a_deterministic_table_lookup(tmp_path, sandbox):
    result, _ = await run(tmp_path, Script(), sandbox)
    (record,) = result.envs
    env = load_env(tmp_path / "out" / record.path)
    async with Client(build_env_server(env, sandbox), mode="legacy") as client:
        found = [(await client.call_tool("get_city_weather", {"city": " Berlin "})).content[0].text for _ in range(2)]
        missing = await client.call_tool("get_city_weather", {"city": "Oslo"})
    assert found[0] == found[1] and "12°C" in found[0] and "light rain" in found[0]
    assert "not found" in missing.content[0].text and "18°C" not in missing.content[0].text


@pytest.mark.anyio
async def test_same_named_tools_that_cannot_merge_are_renamed_then_rejected_as_one_function(tmp_path, sandbox):
    # names that differ by a suffix are one function: merged when a merge verifies, never kept as lookup + lookup_2
    landmark, weather = Script().rows["get_landmark_city"][0], Script().rows["get_city_weather"][0]
    script = Script(
        docs={
            "q1": doc("lookup", {"landmark": "string"}, {"landmark": "Eiffel Tower"}),
            "q2": doc("lookup", {"city": "string"}, {"city": "Paris"}),
        },
        scale="{}",
        rows={"lookup": [lambda messages: landmark if "lookup(landmark)" in messages[1].content else weather]},
    )
    result, model = await run(tmp_path, script, sandbox)
    assert result.envs == []
    assert any("share one intent" in (r.messages[1].content or "") for r in model.requests), "the duplicates were offered to merge"
    (rej,) = rejected(tmp_path / "out")
    assert (rej["stage"], rej["reason"]) == ("assemble", "duplicate_tool")
    assert "lookup, lookup_2" in rej["detail"]


@pytest.mark.anyio
async def test_bad_input_lines_are_named_and_the_rest_still_runs(tmp_path, sandbox):
    inp = tmp_path / "in.jsonl"
    inp.write_text(json.dumps(QUESTION_ROW) + "\n" + '{"domain": \n' + json.dumps({"question": "no domain"}) + "\n")
    result = await synthesize_envs(FunctionModel(Script()), tmp_path / "out", inputs=[inp], config=SynthConfig(leak_audit=False), sandbox=sandbox, show_progress=False)
    assert len(result.envs) == 1
    errors = result.stats.input_errors
    assert errors[0].startswith(f"{inp}:2: invalid JSON") and errors[1].startswith(f"{inp}:3: domain")
    assert json.loads((tmp_path / "out" / "stats.json").read_text())["input_errors"] == errors


@pytest.mark.anyio
async def test_failing_rows_are_fixed_on_retry_with_the_failure_fed_back(tmp_path, sandbox):
    giveaway = table_rows((["rome"], "18°C"), (["paris"], "18°C"), (["madrid"], "about 18°C"))
    right = Script().rows["get_city_weather"][0]
    script = Script(rows={"get_landmark_city": Script().rows["get_landmark_city"], "get_city_weather": [giveaway, right]})
    result, model = await run(tmp_path, script, sandbox)
    assert len(result.envs) == 1
    retry = next(r.messages for r in model.requests if "Tool: get_city_weather(" in r.messages[1].content and len(r.messages) > 2)
    assert retry[-2].content == giveaway and "gives one of its answers" in retry[-1].content


@pytest.mark.anyio
async def test_a_dead_endpoint_rejects_then_the_rerun_retries(tmp_path, sandbox):
    down = Script(decompose=[ConnectionError("endpoint unreachable")])
    await run(tmp_path, down, sandbox, retries=1)
    (rej,) = rejected(tmp_path / "out")
    assert (rej["stage"], rej["reason"]) == ("decompose", "model_error")
    result, _ = await run(tmp_path, Script(), sandbox)
    assert len(result.envs) == 1 and rejected(tmp_path / "out") == []


@pytest.mark.anyio
async def test_a_decomposition_copying_the_prompt_example_is_rejected(tmp_path, sandbox):
    from synth.env.prompts import DECOMPOSE_EXAMPLE

    result, model = await run(tmp_path, Script(decompose=[DECOMPOSE_EXAMPLE.text]), sandbox, retries=1, decompose_draws=1)
    assert result.envs == []
    (rej,) = rejected(tmp_path / "out")
    assert (rej["stage"], rej["reason"]) == ("decompose", "copied_example") and "copied the format example" in rej["detail"]
    assert len(model.requests) == 2


@pytest.mark.anyio
async def test_a_seed_whose_first_draw_fails_is_drawn_again_at_a_seeded_temperature(tmp_path, sandbox):
    from synth.env.prompts import DECOMPOSE_EXAMPLE

    good, calls = Script().decompose[0], []

    def reply(messages):  # the first draw copies the example twice (its retry too), the second writes a trace
        calls.append(messages)
        return good if len(calls) > 2 else DECOMPOSE_EXAMPLE.text

    result, model = await run(tmp_path, Script(decompose=[reply]), sandbox, retries=1)
    assert len(result.envs) == 1 and rejected(tmp_path / "out") == []
    asked = [r.settings for r in model.requests if "Break the main question" in r.messages[1].content]
    assert [(s.temperature, s.seed) for s in asked] == [(0.0, None), (0.0, None), (0.8, 1)], "a draw is a fresh request with its own seed"


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("q2", "message"),
    [
        ("In which city is the Eiffel Tower located?", "ask the same thing"),
        ("What is the current temperature there?", "q2 depend on q1 but their text does not use q1's answer ('Paris'); write {q1}"),
    ],
    ids=["repeated", "unused_dependency"],
)
async def test_duplicate_or_unlinked_sub_questions_are_sent_back(tmp_path, sandbox, q2, message):
    bad = json.loads(Script().decompose[0])
    bad["sub_questions"][1]["question"] = q2
    result, model = await run(tmp_path, Script(decompose=[json.dumps(bad), Script().decompose[0]]), sandbox)
    assert len(result.envs) == 1
    assert message in model.requests[1].messages[-1].content


@pytest.mark.anyio
@pytest.mark.parametrize("written", ["{q1}", "Paris"], ids=["reference", "undeclared"])
async def test_a_reference_to_an_earlier_answer_is_filled_in_and_becomes_a_dependency(tmp_path, sandbox, written):
    trace = json.loads(Script().decompose[0])
    assert "Paris" not in trace["main_question"], "the user did not give the value: it comes from q1"
    trace["sub_questions"][1].update(question=f"What is the current temperature in {written}?", depends_on=[])
    result, model = await run(tmp_path, Script(decompose=[json.dumps(trace)]), sandbox)
    (record,) = result.envs
    env = load_env(tmp_path / "out" / record.path)
    q2 = env.spec.subtasks[1]
    assert (q2.question, q2.depends_on) == ("What is the current temperature in Paris?", ["q1"])
    assert len([r for r in model.requests if "Break the main question" in r.messages[1].content]) == 1


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("change", "code", "feedback"),
    [
        ({"final_answer": "It is warm."}, "answer_not_composed", "final_answer must state the values found"),
        ({"main_question": "The weather near the Eiffel Tower."}, "main_not_question", "must be a question"),
        ({"sub_questions": [{"answer": "18°C"}, {"question": "What is the current temperature in {q1}?"}]}, "repeated_answer", "different facts have different values"),
        ({"sub_questions": [{"answer": "The tower stands in the city of Paris."}, {"question": "What is the temperature in {q1}?"}]}, "answer_not_value", "not a sentence"),
    ],
    ids=["composed", "question", "repeated", "value"],
)
async def test_a_trace_that_means_nothing_is_sent_back_then_rejected_with_its_code(tmp_path, sandbox, change, code, feedback):
    bad = json.loads(Script().decompose[0])
    for key, value in change.items():
        if key == "sub_questions":
            for sub, update in zip(bad["sub_questions"], value, strict=True):
                sub.update(update)
        else:
            bad[key] = value
    result, model = await run(tmp_path, Script(decompose=[json.dumps(bad, ensure_ascii=False)]), sandbox, retries=1)
    assert result.envs == []
    (rej,) = rejected(tmp_path / "out")
    assert (rej["stage"], rej["reason"]) == ("decompose", code)
    assert feedback in model.requests[1].messages[-1].content


@pytest.mark.anyio
async def test_a_tool_that_requires_a_value_the_agent_lacks_is_sent_back(tmp_path, sandbox):
    # the teacher's "last four digits of my saved card" tool required a card id no one had given
    trace = json.loads(Script().decompose[0])
    trace["sub_questions"][0]["question"] = "Which city is it in?"
    needs_id = doc("get_landmark_city", {"landmark_id": "string"}, {"landmark_id": "x"}, "Find the city of a landmark.")
    signed_in = doc("get_landmark_city", {}, {}, "The city of the landmark the user is visiting.")
    script = Script(decompose=[json.dumps(trace)], docs={**Script().docs, "q1": [needs_id, signed_in]}, scale="{}")
    result, model = await run(tmp_path, script, sandbox)
    assert len(result.envs) == 1 and script.log.count("doc:q1") == 2
    retry = next(r.messages for r in model.requests if "Sub-question (q1)" in r.messages[1].content and len(r.messages) > 2)
    assert "requires ['landmark_id'], but neither the main question nor an earlier answer gives the agent a value" in retry[-1].content
    assert "The agent has no value for this call" in retry[1].content
    stuck = Script(decompose=[json.dumps(trace)], docs={**Script().docs, "q1": needs_id})
    (tmp_path / "stuck").mkdir()
    await run(tmp_path / "stuck", stuck, sandbox, retries=1)
    (rej,) = rejected(tmp_path / "stuck" / "out")
    assert (rej["stage"], rej["reason"]) == ("tools", "golden_call_ungrounded")


@pytest.mark.anyio
async def test_a_tool_without_parameters_is_its_golden_row(tmp_path, sandbox):
    script = Script(docs={
        "q1": doc("get_landmark_city", {"landmark": "string"}, {"landmark": "Eiffel Tower"}, "Find the city of a landmark."),
        "q2": doc("get_city_weather", {}, {}, "Current weather where the user is."),
    }, scale="{}")
    result, _ = await run(tmp_path, script, sandbox)
    (record,) = result.envs
    env = load_env(tmp_path / "out" / record.path)
    assert "rows:get_city_weather" not in script.log  # no other input to write a row for
    assert "args:q2" not in script.log and "args:q1" in script.log, "a call without parameters is not asked for"
    async with Client(build_env_server(env, sandbox), mode="legacy") as client:
        weather = await client.call_tool("get_city_weather", {})
    assert "18°C" in weather.content[0].text
    # scaled, it takes an optional parameter its golden call leaves out (a tool failed there with a TypeError)
    scaled = Script(docs=script.docs)
    (tmp_path / "scaled").mkdir()
    result, _ = await run(tmp_path / "scaled", scaled, sandbox)
    (record,) = result.envs
    env = load_env(tmp_path / "scaled" / "out" / record.path)
    assert "units" in next(t for t in env.spec.tools if t.name == "get_city_weather").input_schema["properties"]
    assert env.spec.subtasks[1].golden_call.arguments == {}


@pytest.mark.anyio
async def test_a_leaf_the_final_answer_does_not_use_is_dropped_while_enough_hops_remain(tmp_path, sandbox):
    # the teacher's padding: "the delivery time of product A" looked up with its stock and price, answered "15 days"
    trace = json.loads(Script().decompose[0])
    trace["sub_questions"].append({"id": "q3", "question": "What is the height of the Eiffel Tower?", "answer": "330 m", "depends_on": []})
    result, model = await run(tmp_path, Script(decompose=[json.dumps(trace, ensure_ascii=False)]), sandbox)
    (record,) = result.envs
    env = load_env(tmp_path / "out" / record.path)
    assert [s.id for s in env.spec.subtasks] == ["q1", "q2"] and env.spec.task.answer == "18°C"
    assert "dropped q3: known to the user or unused by the final answer" in record.notes
    assert len([r for r in model.requests if "Break the main question" in r.messages[1].content]) == 1, "no retry spent on it"


@pytest.mark.anyio
async def test_a_final_answer_that_leaves_out_a_leaf_it_needs_is_sent_back(tmp_path, sandbox):
    trace = json.loads(Script().decompose[0])
    trace["final_answer"] = "It is warm there."
    result, model = await run(tmp_path, Script(decompose=[json.dumps(trace, ensure_ascii=False)] * 3), sandbox)
    assert result.envs == []
    (rej,) = rejected(tmp_path / "out")
    assert (rej["stage"], rej["reason"]) == ("decompose", "answer_not_composed") and "q2 ('18°C')" in rej["detail"]


def test_answers_are_cleaned_and_placeholders_are_not_values():
    from synth.env._judge import repair
    from synth.env._meaning import composition_problem
    from synth.env.records import Decomposition

    d = Decomposition.model_validate({
        "main_question": "What are the last four digits of my saved card?", "final_answer": "They are 1234.",
        "sub_questions": [{"id": "q1", "question": "What are the last four digits of the saved card?", "answer": "',1234'"}],
    })  # fmt: skip
    fixed = repair(d)
    assert fixed.sub_questions[0].answer == "1234", "debris of constrained decoding is not part of the value"
    assert composition_problem(fixed.main_question, fixed.final_answer, [("q1", "", "1234", [])]) is None
    for placeholder in ("{payment_method_id}", "'?' (unknown)", "YYYY-MM-DD", "unknown", "a number with its unit"):
        code, _ = composition_problem("What is it?", f"It is {placeholder}.", [("q1", "What is it?", placeholder, [])])
        assert code == "answer_not_value", placeholder


def _two_parallel_facts():
    """A sample of two lookups, neither depending on the other."""
    from synth.env._judge import scenario_of
    from synth.env.records import Sample, Seed, SubQuestion

    subs = [SubQuestion(id="q1", question="What is the balance?", answer="1000 EUR"), SubQuestion(id="q2", question="What is the status?", answer="active")]
    scenario, subs = scenario_of(subs)
    seed = Seed(id="s", mode="question", domain="bank", language="en", question="What is my balance and status?", min_hops=1, max_hops=4, ref="t:1")
    sample = Sample(id="s", seed=seed, question="What is my balance and status?", answer="1000 EUR, active", scenario=scenario, sub_questions=subs)
    return sample


@pytest.mark.anyio
async def test_serialization_holds_without_asking_when_nothing_depends():
    from synth.env._judge import judge_check

    sample = _two_parallel_facts()
    model = FunctionModel.from_replies()
    judged = await judge_check(model, sample, "serialization", SynthConfig())
    assert judged.verdict == "yes" and model.requests == []


@pytest.mark.anyio
async def test_a_check_verdict_scores_as_the_judges_expectation_of_the_scale():
    import math

    from agent_sdk import ChatMessage, ModelResponse, TokenChoice
    from synth.env._judge import judge_check

    sample = _two_parallel_facts()
    text = '{"reason": "both facts are asked", "verdict": "yes"}'
    head, word = text[: text.rindex("yes")], "yes"
    top = {"yes": math.log(0.7), "mostly": math.log(0.2), "no": math.log(0.1)}
    reply = ModelResponse(
        message=ChatMessage(role="assistant", content=text),
        token_choices=[TokenChoice(token=head, logprob=0.0), TokenChoice(token=word, logprob=top["yes"], top=top), TokenChoice(token='"}', logprob=0.0)],
    )
    model = FunctionModel(lambda messages, tools, settings: reply)
    judged = await judge_check(model, sample, "completeness", SynthConfig())
    assert judged.verdict == "yes" and judged.score == pytest.approx(0.7 + 0.2 * 0.75)
    assert model.requests[0].settings.top_logprobs == 5
    plain = await judge_check(FunctionModel.from_replies(text), sample, "completeness", SynthConfig())
    assert plain.score == 1.0, "without probabilities the word scores"


@pytest.mark.anyio
async def test_coherence_is_asked_of_each_sub_question_and_the_least_needed_one_scores():
    from synth.env._judge import judge_check

    sample = _two_parallel_facts()
    needed = '{"reason": "the user asked for it", "verdict": "yes"}'
    unneeded = '{"reason": "the user did not ask for this", "verdict": "no"}'
    model = FunctionModel(lambda messages, tools, settings: unneeded if "Judge lookup q2" in messages[-1].content else needed)
    judged = await judge_check(model, sample, "coherence", SynthConfig())
    assert (judged.verdict, judged.score, judged.reason) == ("no", 0.0, "the user did not ask for this")
    assert [sample.answer in r.messages[-1].content for r in model.requests] == [True, True], "the judge sees what the user is told"


@pytest.mark.anyio
async def test_a_flaw_the_trace_proves_scores_no_unasked():
    from synth.env._judge import judge_check

    sample = _two_parallel_facts()
    unasked = FunctionModel.from_replies()
    hidden = sample.sub_questions[1].model_copy(update={"question": "What is the status of the account holding 1000 EUR?"})
    chained = sample.model_copy(update={"sub_questions": [sample.sub_questions[0], hidden]})
    judged = await judge_check(unasked, chained, "dependency", SynthConfig())
    assert (judged.verdict, judged.score) == ("no", 0.0) and "q2 uses the answers of ['q1'] without declaring them" in judged.reason
    judged = await judge_check(unasked, sample.model_copy(update={"answer": "Your account is fine."}), "completeness", SynthConfig())
    assert judged.score == 0.0 and "['q1', 'q2']" in judged.reason
    both = sample.sub_questions[0].model_copy(update={"question": "What are the balance and the overdraft limit?", "answer": "1000 EUR, 500 EUR"})
    judged = await judge_check(unasked, sample.model_copy(update={"sub_questions": [both, sample.sub_questions[1]]}), "atomicity", SynthConfig())
    assert judged.score == 0.0 and "['1000 EUR', '500 EUR']" in judged.reason and unasked.requests == []


def test_the_worked_examples_keep_every_decomposition_rule():
    from synth.env._demos import DEMONSTRATIONS
    from synth.env._judge import repair, trace_problem
    from synth.env.records import Decomposition

    for demo in DEMONSTRATIONS.values():
        trace = Decomposition.model_validate(demo.reply)
        assert trace_problem(trace, demo.seed) is None
        assert "LN-90412" in repair(trace, demo.seed).sub_questions[1].question, "its {q1} is filled in"


@pytest.mark.anyio
async def test_a_reply_that_repeats_the_worked_example_is_a_copy(tmp_path, sandbox):
    from synth.env._demos import demonstration

    copy = json.loads(Script().decompose[0])
    copy["sub_questions"][0]["answer"] = "LN-90412"
    result, _ = await run(tmp_path, Script(decompose=[json.dumps(copy), demonstration("en").text]), sandbox, retries=1)
    assert result.envs == []
    (rej,) = rejected(tmp_path / "out")
    assert (rej["stage"], rej["reason"]) == ("decompose", "copied_example")

