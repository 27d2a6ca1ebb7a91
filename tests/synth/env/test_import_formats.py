"""Reading ASTRA's two row formats (no tool code runs): DAG, statements via ast, variations, rejections."""

import json

import pytest
from astra_rows import GATE_FOR_PASS, PASS_LOOKUP, Q1, Q2, QUERY, pipeline_row, rl_row

from mcp_servers import GoldenCall, dependency_scenario
from synth.env._import_formats import (
    parse_call_statement,
    parse_dependencies,
    parse_row,
    tool_spec,
)
from synth.env.importer import rejection
from synth.exceptions import RowError

TOOLS = {t.name: t for t in (tool_spec(PASS_LOOKUP), tool_spec(GATE_FOR_PASS))}


def test_the_notes_example_reads_as_an_rl_row_with_its_dag_and_no_golden_calls():
    parsed = parse_row(rl_row())
    assert parsed.kind == "rl" and parsed.query == QUERY and not parsed.defects
    assert [t.spec.name for t in parsed.tools] == ["pass_lookup", "gate_for_pass"]
    assert [(s.id, s.question, s.answer, s.depends_on) for s in parsed.subtasks] == [("1", Q1, "MP-2231", []), ("2", Q2, "North 3", ["1"])]
    assert all(s.needs_tool and s.golden_call is None and s.searchable for s in parsed.subtasks)
    assert dependency_scenario(parsed.subtasks) == "multi_hop"


def test_pipeline_output_takes_golden_calls_from_tool_call_statements():
    parsed = parse_row(pipeline_row())
    assert parsed.kind == "pipeline" and parsed.query == QUERY and parsed.answer == "North 3" and not parsed.defects
    one, two, three = parsed.subtasks
    assert one.golden_call == GoldenCall(tool="pass_lookup", arguments={"name": "Ana Ruiz", "date": "2025-10-02"})
    assert two.golden_call == GoldenCall(tool="gate_for_pass", arguments={"pass_id": "MP-2231"})  # print(...) unwrapped, positional mapped
    assert two.question == Q2 and two.depends_on == ["1"]  # the trace's question, not env_result's with its appended context
    assert (three.needs_tool, three.golden_call, three.depends_on) == (False, None, [])
    assert dependency_scenario(parsed.subtasks) == "parallel_multi_hop"


def test_pipeline_node_without_synthesized_tool_or_readable_statement_is_reported():
    row = pipeline_row()
    row["env_result"]["1"] = None
    row["env_result"]["2"]["env_synthesis_result"]["data"]["tool_call_statement"] = "gate_for_pass(pass_id=lookup())"
    parsed = parse_row(row)
    assert [(d.code, d.subtask_id) for d in parsed.defects] == [("golden_call_missing", "1"), ("golden_call_missing", "2")]
    assert "env_result is null" in parsed.defects[0].message and "not literals" in parsed.defects[1].message
    assert not any(s.searchable for s in parsed.subtasks if s.needs_tool)


def test_pipeline_nodes_merged_into_one_tool_share_it_but_a_clash_is_reported():
    row = pipeline_row()
    data = row["env_result"]["2"]["env_synthesis_result"]["data"]
    data["tool_document"], data["code"] = PASS_LOOKUP, row["env_result"]["1"]["env_synthesis_result"]["data"]["code"]
    data["tool_call_statement"] = "pass_lookup('Ana Ruiz', '2025-10-02')"
    assert [t.spec.name for t in parse_row(row).tools] == ["pass_lookup"] and not parse_row(row).defects
    data["code"] = "def pass_lookup(name, date):\n    return 'elsewhere'"
    parsed = parse_row(row)
    assert [(d.code, d.tool) for d in parsed.defects] == [("duplicate_tool_name", "pass_lookup")]
    assert "implementation" in parsed.defects[0].message


@pytest.mark.parametrize(
    ("spelled", "ids"),
    [(None, []), ("null", []), ("None", []), ("", []), ([], []), (1, ["1"]), ("1", ["1"]), (1.0, ["1"]),
     ([1, "2"], ["1", "2"]), ("1, 2", ["1", "2"]), ("[1, 2]", ["1", "2"]), ("q1", ["q1"])],
)
def test_dependencies_in_every_spelling(spelled, ids):
    assert parse_dependencies(spelled) == ids


def test_rl_row_variations_read_the_same():
    listed = rl_row(
        sub_qa_dict=[
            {"sub_question": Q1, "sub_answer": "MP-2231", "dependency": "None", "lang": "en"},
            {"sub_question": Q2, "sub_answer": "North 3", "dependency": "1", "id_hint": 7},
        ],
        domain="museums",
        lang="en",
        uuid="a-17",
    )
    encoded = {  # the HF layout: nested fields as JSON text, the query inside `prompt`
        "prompt": [{"role": "system", "content": "You are helpful."}, {"role": "user", "content": QUERY}],
        "tool_schema": json.dumps([PASS_LOOKUP, GATE_FOR_PASS]),
        "tool_dict": json.dumps(rl_row()["tool_dict"]),
        "sub_qa_dict": json.dumps({"1": {"question": Q1, "answer": "MP-2231", "dependency": None},
                                   "2": {"question": Q2, "answer": "North 3", "dependency": 1}}),
    }
    expected = [(s.id, s.question, s.answer, s.depends_on) for s in parse_row(rl_row()).subtasks]
    for row in (listed, encoded):
        parsed = parse_row(row)
        assert [(s.id, s.question, s.answer, s.depends_on) for s in parsed.subtasks] == expected and not parsed.defects
    assert parse_row(listed).domain == "museums" and parse_row(listed).language == "en"


def test_rl_row_defects_are_reported_not_repaired():
    dup = dict(PASS_LOOKUP, function={**PASS_LOOKUP["function"], "description": "Another lookup."})
    parsed = parse_row(rl_row(tool_schema=[PASS_LOOKUP, dup, GATE_FOR_PASS, {"function": {"name": "bad name"}}],
                              tool_dict={"pass_lookup": rl_row()["tool_dict"]["pass_lookup"]}))
    assert [(d.code, d.tool) for d in parsed.defects] == [("duplicate_tool_name", "pass_lookup"), ("tool_missing", "gate_for_pass"),
                                                          ("schema_invalid", None)]
    assert "different schemas" in parsed.defects[0].message
    unknown = parse_row(rl_row(sub_qa_dict={"1": {"question": Q1, "answer": "MP-2231", "dependency": [9]}}))
    assert [(d.code, d.subtask_id) for d in unknown.defects] == [("schema_invalid", "1")]


@pytest.mark.parametrize(
    ("row", "field"),
    [
        ({"tool_schema": [PASS_LOOKUP]}, "query"),
        ({"query": "q", "tools": []}, "neither ASTRA format"),
        (rl_row(tool_dict=["not", "an object"]), "tool_dict"),
        (rl_row(sub_qa_dict="nope"), "sub_qa_dict"),
        (rl_row(sub_qa_dict={"1": {"question": Q1}}), "sub_qa_dict[1]"),
        (rl_row(sub_qa_dict={"1": {"question": Q1, "answer": "x", "dependency": {"a": 1}}}), "dependency"),
        (pipeline_row(decomposition_trace="nope"), "decomposition_trace"),
        (pipeline_row(decomposition_trace=[{"_uuid": True, "sub_question": "q", "sub_answer": "a"}]), "decomposition_trace[0]._uuid"),
        (pipeline_row(env_result={"": None}), "env_result"),
    ],
)
def test_unreadable_rows_name_the_field(row, field):
    with pytest.raises(RowError, match=field.replace("[", r"\[")):
        parse_row(row)


@pytest.mark.parametrize(
    ("statement", "arguments"),
    [
        ('pass_lookup(name="Ana Ruiz", date="2025-10-02")', {"name": "Ana Ruiz", "date": "2025-10-02"}),
        ("pass_lookup('Ana Ruiz', date='2025-10-02')", {"name": "Ana Ruiz", "date": "2025-10-02"}),
        ("result = pass_lookup('Ana Ruiz', '2025-10-02')", {"name": "Ana Ruiz", "date": "2025-10-02"}),
        ("print(gate_for_pass(pass_id=('MP', -1, 2.5, None, True, {'k': [1]})))", {"pass_id": ["MP", -1, 2.5, None, True, {"k": [1]}]}),
        ("gate_for_pass(pass_id=null)", {"pass_id": None}),
    ],
)
def test_call_statements_parse_to_literal_arguments(statement, arguments):
    assert parse_call_statement(statement, TOOLS).arguments == arguments


@pytest.mark.parametrize(
    ("statement", "why"),
    [
        ("pass_lookup(name=open('/etc/passwd').read(), date='x')", "not literals"),
        ("__import__('os').system('true')", "by its name"),
        ("pass_lookup(**{'name': 'A'})", r"\*\*kwargs"),
        ("pass_lookup(*names)", r"\*args"),
        ("pass_lookup('A', '2025', 'extra')", "positional arguments"),
        ("gate_for_pass('MP'); gate_for_pass('MP')", "exactly one"),
        ("os.system('true')", "by its name"),
        ("find_reservation(name='A')", "not a tool of this row"),
        ("gate_for_pass(pass_id={'a', 'b'})", "not a JSON value"),
        ("gate_for_pass(", "does not parse"),
    ],
)
def test_call_statements_that_are_not_one_literal_call_are_refused(statement, why):
    with pytest.raises(ValueError, match=why):
        parse_call_statement(statement, TOOLS)


def test_rows_astra_would_skip_are_rejections_with_their_reason():
    assert rejection(pipeline_row(), None) is None and rejection(pipeline_row(), 0.9) is None
    assert rejection(pipeline_row(tool_necessity_legitimacy=False), None).code == "tool_necessity_illegitimate"
    low = rejection(pipeline_row(verify_result={"score": 0.4}), 0.85)
    assert low.code == "verify_score_low" and "0.4" in low.message
    assert rejection(pipeline_row(verify_result={"score": 0.4}), None) is None  # no threshold given: ASTRA's is a run option
