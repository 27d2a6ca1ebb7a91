"""Honest judges: copies of prompt examples rejected per stage, per-call schemas, the judge model,
corpus chunking, the one answer rule, and context_overflow as a terminal, counted rejection."""

import json

import jsonschema
import pytest
from envscript import Script, rejected
from envscript import rows as table_rows

import agent_sdk
from agent_sdk import FunctionModel
from mcp_servers import load_env
from synth.core import VERDICTS
from synth.core.values import call_values, fits_parameter, shared_cjk_spans
from synth.env import SynthConfig, _schemas, load_seeds, prompts, render_report, synthesize_envs
from synth.env._seeds import chunk_text, estimate_tokens
from synth.env._tools import arguments_problem, doc_problem, grounded_values, named_for_values, ungrounded_parameters
from synth.env.records import Sample, SubQuestion, ToolDoc

ROW = {"question": "What is the current temperature in the city where the Eiffel Tower stands?", "domain": "travel"}


async def run(tmp_path, script, sandbox, *, judge=None, rows=(ROW,), **cfg):
    inp = tmp_path / "in.jsonl"
    inp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    model = FunctionModel(script)
    result = await synthesize_envs(
        model, tmp_path / "out", inputs=[inp], config=SynthConfig(leak_audit=False, **{"seed_attempts": 1, **cfg}), sandbox=sandbox,
        show_progress=False, judge_model=judge,
    )
    return result, model


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("field", "reply", "stage", "reason"),
    [
        ("necessity", prompts.necessity_example(["q1", "q2"]).text, "necessity", "copied_example"),
        ("judge", prompts.CHECK_EXAMPLE.text, "checks", "judge_copied_example"),
        ("judge", '{"verdict": "yes", "reason": "<one sentence>"}', "checks", "judge_copied_example"),
        ("docs", {"q1": prompts.DOC_EXAMPLE.text, "q2": Script().docs["q2"]}, "tools", "tool_doc_copied_example"),
    ],
    ids=["necessity", "check", "check_placeholder_with_passing_score", "tool_doc"],
)
async def test_every_judge_rejects_a_copy_of_its_example(tmp_path, sandbox, field, reply, stage, reason):
    result, model = await run(tmp_path, Script(**{field: reply}), sandbox, retries=1)
    assert result.envs == []
    (rej,) = rejected(tmp_path / "out")
    assert (rej["stage"], rej["reason"]) == (stage, reason)
    assert any("copied the format example" in (m.content or "") for r in model.requests for m in r.messages if m.role == "user"), "the retry says why"
    assert result.stats.funnel[[f.stage for f in result.stats.funnel].index(stage)].reasons == {reason: 1}


@pytest.mark.anyio
async def test_a_copied_merge_grouping_skips_the_merge_and_keeps_the_sample(tmp_path, sandbox):
    result, _ = await run(tmp_path, Script(groups=prompts.GROUPS_EXAMPLE.text), sandbox, retries=0)
    (record,) = result.envs
    assert "merge_skipped: copied_example" in record.notes


def test_prompts_show_no_passing_values():
    # every example fails its own stage when copied: no tool needed, scores of 0, ids that name nothing
    assert not any(i["needs_tool"] for i in prompts.necessity_example(["q1", "q2"]).value["items"])
    assert VERDICTS[prompts.CHECK_EXAMPLE.value["verdict"]] == 0.0
    assert all(i.startswith("<") for g in prompts.GROUPS_EXAMPLE.value["groups"] for i in g["ids"])


def test_prompts_show_their_example_only_when_the_schema_is_not_enforced(tmp_path):
    # shown `needs_tool: false` / `score: 0.0`, the embedded model answered with them whatever its reason said
    (seed,) = seeds_of(tmp_path, [ROW])
    q1 = SubQuestion(id="q1", question="Which city?", answer="Paris")
    sample = Sample(id="s", seed=seed, question="Q?", answer="A", scenario="single_hop", sub_questions=[q1])
    params = {"type": "object", "properties": {"landmark": {"type": "string"}}}
    doc = {"name": "find_city", "description": "The city of a landmark.", "parameters": params}
    builders = [
        (prompts.DECOMPOSE_EXAMPLE, lambda m: prompts.decompose(seed, m)),
        (prompts.necessity_example(["q1"]), lambda m: prompts.necessity(sample, m, ["q1"])),
        (prompts.CHECK_EXAMPLE, lambda m: prompts.check(sample, "atomicity", m)),
        (prompts.DOC_EXAMPLE, lambda m: prompts.tool_doc(sample, q1, m, [])),
        (prompts.GROUPS_EXAMPLE, lambda m: prompts.merge_groups(sample, [("q1", doc)], m)),
        (prompts.merged_doc_example(["q1"]), lambda m: prompts.merged_doc(sample, [q1], [doc], m)),
    ]
    for example, build in builders:
        assert example.text in build(FunctionModel.from_replies())[1].content
        enforced = build(FunctionModel.from_replies(supports_output_schema=True))[1].content
        assert "Format" not in enforced and example.text not in enforced, "an enforced schema needs no format example"
    # reason first: a constrained model decides after it has said why
    assert list(_schemas.CHECK_SCHEMA["properties"]) == ["reason", "verdict"]
    item = _schemas.necessity_schema(["q1"])["properties"]["items"]["prefixItems"][0]
    assert list(item["properties"]) == ["id", "reason", "needs_tool"]


def seeds_of(tmp_path, rows, **cfg):
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    seeds, errors = load_seeds([path], SynthConfig(**cfg))
    assert errors == []
    return seeds


def test_per_call_schemas_take_their_shape_from_the_input():
    necessity = _schemas.necessity_schema(["q1", "q2", "q3"])
    item = lambda i: {"id": i, "needs_tool": True, "reason": "lookup"}
    jsonschema.validate({"items": [item("q1"), item("q2"), item("q3")]}, necessity)
    for bad in ([item("q1"), item("q2")], [item("q1"), item("q2"), item("q4")], [item("q1"), item("q1"), item("q2"), item("q3")]):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"items": bad}, necessity)
    decomposition = _schemas.decomposition_schema(2, 3)
    sub = {"id": "q1", "question": "Which city?", "statement": "It is Paris.", "answer": "Paris", "depends_on": []}
    jsonschema.validate({"main_question": "m", "final_answer": "f", "sub_questions": [sub, {**sub, "id": "q2"}]}, decomposition)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"main_question": "m", "final_answer": "f", "sub_questions": [sub]}, decomposition)
    # positional ids, dependencies on earlier sub-questions only: no self, unknown or forward edges
    later = {"id": "q2", "question": "Its mayor?", "statement": "Paris's mayor is Anne.", "answer": "Anne", "depends_on": ["q1"]}
    jsonschema.validate({"main_question": "m", "final_answer": "f", "sub_questions": [sub, later]}, decomposition)
    for bad in ([sub, {**later, "depends_on": ["q2"]}], [{**sub, "depends_on": ["q2"]}, later], [sub, {**later, "id": "q1"}],
                [sub, {**later, "depends_on": ["q7"]}]):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"main_question": "m", "final_answer": "f", "sub_questions": bad}, decomposition)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"verdict": "perfect", "reason": "too good"}, _schemas.CHECK_SCHEMA)
    groups = _schemas.groups_schema(["q1", "q2"])
    jsonschema.validate({"groups": [{"ids": ["q1", "q2"], "intent": "weather"}]}, groups)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"groups": [{"ids": ["q1", "q9"], "intent": "weather"}]}, groups)
    merged = _schemas.merged_doc_schema(["q1", "q2"])
    tool = {"name": "t", "description": "d", "parameters": {"type": "object", "properties": {}, "required": []}}
    jsonschema.validate({"tool": tool, "golden_calls": {"q1": {}, "q2": {}}}, merged)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"tool": tool, "golden_calls": {"q1": {}}}, merged)


@pytest.mark.anyio
async def test_the_judge_model_serves_the_judging_stages_only(tmp_path, sandbox):
    generator, judge_script = Script(), Script()
    judge = FunctionModel(judge_script, name="judge")
    result, _ = await run(tmp_path, generator, sandbox, judge=judge)
    assert len(result.envs) == 1
    assert {entry.split(":")[0] for entry in judge_script.log} == {"necessity", "check"}
    assert not {"necessity", "check"} & {entry.split(":")[0] for entry in generator.log}
    tokens = result.stats.tokens_by_stage_last_run
    # four checks asked of the trace, and coherence asked of each of its two sub-questions
    assert set(tokens) == {"decompose", "necessity", "checks", "tools", "merge"} and tokens["checks"].requests == 4 + 2
    assert result.stats.max_prompt_tokens == max(t.max_prompt_tokens for t in tokens.values()) > 0
    # decompose, then per tool: document, golden arguments, scaling, other inputs, their rows; then the merge grouping
    assert result.stats.llm_last_run.calls == len(judge.requests) + 1 + 2 * 5 + 1


def test_long_corpora_are_chunked_into_several_seeds(tmp_path):
    sentence = "The museum opened in 1889 and holds 4,200 paintings from the northern schools. "
    corpus = sentence * 60
    assert estimate_tokens(corpus) > 1000
    seeds = seeds_of(tmp_path, [{"domain": "museums", "knowledge_corpus": corpus}], corpus_max_tokens=200)
    assert len(seeds) > 1 and all(estimate_tokens(s.knowledge_corpus) <= 200 for s in seeds)
    assert " ".join(s.knowledge_corpus for s in seeds) == corpus.strip(), "chunks are whole sentences, in order, nothing lost"
    assert [s.ref.rsplit("#", 1)[1] for s in seeds] == [f"chunk{i}" for i in range(1, len(seeds) + 1)]
    assert len({s.id for s in seeds}) == len(seeds)
    (short,) = seeds_of(tmp_path, [{"domain": "museums", "knowledge_corpus": sentence}], corpus_max_tokens=200)
    assert "#" not in short.ref
    chinese = "故宫博物院位于北京，始建于明朝永乐四年。" * 80
    pieces = chunk_text(chinese, 150)
    assert len(pieces) > 1 and "".join(pieces) == chinese and max(map(estimate_tokens, pieces)) <= 150
    assert chunk_text("一" * 400, 100) == ["一" * 100] * 4, "a sentence longer than the budget is cut"


@pytest.mark.anyio
async def test_tool_synthesis_uses_the_answer_rule_of_verify(tmp_path, sandbox):
    # "Paris" inside "Parisian" is a substring but not the answer (verify's rule): that row stands;
    # a row giving "Paris" for another input is left out (the answer would be no evidence of the call)
    rows = table_rows((["louvre"], "Parisian quarter"), (["notre dame"], "Paris"), (["big ben"], "London"))
    result, _ = await run(tmp_path, Script(rows={"get_landmark_city": [rows], "get_city_weather": Script().rows["get_city_weather"]}), sandbox)
    (record,) = result.envs
    code = (load_env(tmp_path / "out" / record.path).path / "tools.py").read_text()
    assert "Parisian quarter" in code and "London" in code and "notre dame" not in code


needs_overflow = pytest.mark.skipif(
    not hasattr(agent_sdk, "ContextOverflowError"), reason="agent_sdk.ContextOverflowError lands with structured-output support"
)


@needs_overflow
@pytest.mark.anyio
@pytest.mark.parametrize(("field", "stage", "reason"), [("decompose", "decompose", "context_overflow"), ("judge", "checks", "judge_context_overflow")])
async def test_a_prompt_that_cannot_fit_is_a_terminal_counted_rejection(tmp_path, sandbox, field, stage, reason):
    overflow = agent_sdk.ContextOverflowError("HTTP 400: this model's maximum context length is 2048 tokens")
    script = Script(**{field: [overflow] if field == "decompose" else overflow})
    result, model = await run(tmp_path, script, sandbox)
    (rej,) = rejected(tmp_path / "out")
    assert (rej["stage"], rej["reason"]) == (stage, reason)
    counts = {f.stage: f.reasons for f in result.stats.funnel}
    assert counts[stage] == {reason: 1}
    again, model = await run(tmp_path, Script(), sandbox)
    assert model.requests == [] and again.envs == [], "never retried: a re-run cannot make the prompt fit"
    funnel_png, _ = render_report(tmp_path / "out")
    assert funnel_png.stat().st_size > 0


def test_golden_arguments_are_values_the_agent_has(tmp_path):
    (seed,) = seeds_of(tmp_path, [ROW])
    first = SubQuestion(id="q1", question="Which station serves the Louvre?", answer="Palais Royal")
    second = SubQuestion(id="q2", question="When does the first train leave Palais Royal on 2025-09-04 for the 30-inch rack line?",
                         answer="05:31", depends_on=["q1"])  # fmt: skip
    main = "When does the first train to the Louvre leave on 2025-09-04?"
    sample = Sample(id="s", seed=seed, question=main, answer="05:31", scenario="multi_hop", sub_questions=[first, second])
    values = grounded_values(sample, second)
    assert values[0] == "Palais Royal" and "2025-09-04" in values
    assert not {"30-inch", "rack line", "first train", "train"} & set(values), "what the main question does not name, or a plain phrase"
    assert grounded_values(sample, first) == ["Louvre"], "a value the main question names and the hop carries"
    bank = Sample(id="s", seed=seed, question="What is the daily limit for Johann Gruber on 2025-09-04?", answer="500 EUR", scenario="single_hop",
                  sub_questions=[SubQuestion(id="q1", question="What is the daily limit for Johann Gruber on 2025-09-04?", answer="500 EUR")])  # fmt: skip
    assert grounded_values(bank, bank.sub_questions[0]) == ["2025-09-04", "Johann Gruber"], "whole values, not their parts (Johann, 2025)"
    assert shared_cjk_spans("故宫博物院位于哪个城市？", "故宫博物院所在城市今天的气温是多少？")[0] == "故宫博物院", "Chinese has no spaces to cut it out"
    assert shared_cjk_spans("房屋租赁合同是什么时候到期？", "我的房屋租赁合同是什么时候到期？") == [], "a shared clause is not a value"
    for hop, main in (("您的工单编号是什么？", "我需要查询我的工单编号。"), ("A供应商的联系人是什么？", "我的公司最近的供应商有哪些？")):
        assert shared_cjk_spans(hop, main) == [], f"a slot noun, a pronoun or a common word is not a value: {hop}"
    parameters = {"type": "object", "properties": {"station": {"type": "string"}, "date": {"type": "string"}, "limit": {"type": "integer"},
                                                   "mode": {"type": "string", "enum": ["metro", "rer"]}}, "required": ["station", "date"]}
    schema = _schemas.arguments_schema(parameters, values)
    jsonschema.validate({"station": "Palais Royal", "date": "2025-09-04", "limit": 3}, schema)
    for invented in ({"station": "Chatelet", "date": "2025-09-04"}, {"station": "Palais Royal", "date": "tomorrow"}, {"station": "Palais Royal"},
                     {"station": "Palais Royal", "date": "2025-09-04", "extra": 1}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(invented, schema)
    assert schema["properties"]["mode"] == {"enum": ["metro", "rer"]}  # its own enum, when the sources offer none of it
    doc = ToolDoc(name="first_train", description="The first train from a station on a date.", parameters=parameters)
    assert arguments_problem(doc, {"station": "Palais Royal", "date": "2025-09-04", "mode": "rer"}, values) is None
    problem = arguments_problem(doc, {"station": "Palais Royal", "date": "30-inch"}, values)
    assert problem is not None and "date='30-inch' is not a value the main question names" in problem
    assert ungrounded_parameters(doc, []) == ["station", "date"] and ungrounded_parameters(doc, values) == []
    twice = arguments_problem(doc, {"station": "Palais Royal", "date": "Palais Royal"}, values)
    assert twice is not None and "both 'Palais Royal'" in twice, "one value fills one parameter"


def test_an_id_takes_a_code_and_a_date_takes_a_date():
    # golden calls the teacher wrote: game_id="TD Garden", id="ID", id="30-inch", date="2024"
    main = "What was the final score of the Wizards game at TD Garden on October 18, 2024, and the internal player ID of Jordan Reyes?"
    values = call_values(main, [], main)
    assert "October 18, 2024" in values and "2024" not in values and "ID" not in values, "a written date is one value; a slot word is none"
    assert call_values("Can I see what I owe?", [], "Can I see what I owe?") == [], "the pronoun I is no value"
    assert [fits_parameter("game_id", v) for v in ("TD Garden", "30-inch", "55891", "KDTW")] == [False, False, True, True]
    assert [fits_parameter("game_date", v) for v in ("2024", "October 18, 2024", "2024-10-18")] == [False, True, True]
    assert fits_parameter("venue", "TD Garden")
    parameters = {"type": "object", "properties": {"game_id": {"type": "string"}, "venue": {"type": "string"}}, "required": ["game_id"]}
    doc = ToolDoc(name="get_final_score", description="The final score of a game.", parameters=parameters)
    assert ungrounded_parameters(doc, values) == ["game_id"], "no value the agent has is an id"
    renamed = named_for_values(doc, values)
    assert renamed.parameters["required"] == ["game"] and set(renamed.parameters["properties"]) == {"game", "venue"}
    assert ungrounded_parameters(renamed, values) == [], "named for its value, the parameter takes the names the agent has"
    assert named_for_values(doc, []) == doc, "with no value at all the tool must take none: the feedback says so"
    taken = doc.model_copy(update={"parameters": {**parameters, "properties": {**parameters["properties"], "game": {"type": "string"}}}})
    assert named_for_values(taken, values) == taken, "a name another parameter has is left alone"
    assert named_for_values(doc, ["55891"]) == doc, "an id the agent has fits the id parameter as it is"
    problem = arguments_problem(doc, {"game_id": "TD Garden"}, values)
    assert problem is not None and "is not an id or a code" in problem
    assert _schemas.arguments_schema({"type": "object", "properties": {"game_date": {"type": "string"}}}, values)["properties"]["game_date"] == {
        "enum": ["October 18, 2024"]
    }, "the engine offers a date parameter the dates only"


def test_a_tool_document_requires_no_more_parameters_than_the_agent_has_values():
    # told in words that the agent had no value, the teacher required an id in 13 of 13 retries
    tool = {"name": "get_saved_card", "description": "The signed-in user's saved card.",
            "parameters": {"type": "object", "properties": {}, "required": []}}  # fmt: skip
    jsonschema.validate({"tool": tool}, _schemas.doc_schema([]))
    with_id = {**tool, "parameters": {"type": "object", "properties": {"card_id": {"type": "string", "description": "Card"}}, "required": []}}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"tool": with_id}, _schemas.doc_schema([]))
    two = {"type": "object", "properties": {p: {"type": "string", "description": p} for p in ("station", "date")}, "required": ["station", "date"]}
    jsonschema.validate({"tool": {**tool, "parameters": two}}, _schemas.doc_schema(["Palais Royal", "2025-09-04"]))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"tool": {**tool, "parameters": two}}, _schemas.doc_schema(["Palais Royal"]))


def test_a_parameter_named_for_a_schema_keyword_is_sent_back():
    # asked for optional parameters, the teacher added `required` and `enum` as parameters of a balance lookup
    doc = ToolDoc(name="get_account_balance", description="The balance of an account.", parameters={
        "type": "object", "properties": {"account": {"type": "string", "description": "Account id"}}, "required": ["account"]})  # fmt: skip
    assert doc_problem(doc, "500 EUR") is None
    for keyword in ("required", "enum"):
        scaled = doc.model_copy(update={"parameters": {**doc.parameters, "properties": {
            **doc.parameters["properties"], keyword: {"type": "string", "description": "Optional"}}}})  # fmt: skip
        problem = doc_problem(scaled, "500 EUR")
        assert problem is not None and f"{keyword!r} is named for a JSON Schema keyword" in problem
    currency = doc.parameters["properties"] | {"currency": {"type": "string", "description": "ISO code"}}
    assert doc_problem(doc.model_copy(update={"parameters": {**doc.parameters, "properties": currency}}), "500 EUR") is None
