import json

import pytest
from astra_rows import GATE_FOR_PASS, PASS_LOOKUP, TICKET_TIME_CODE, TICKET_UUID, TICKET_UUID_CODE, pipeline_row, rl_row, write_jsonl
from envscript import Script
from typer.testing import CliRunner

from agent_sdk import FunctionModel, read_jsonl
from astra_cli import app
from mcp_servers import GoldenCall, load_env
from synth.env import SynthConfig, import_envs, render_report, synthesize_envs
from synth.env.importer import SearchLimits


def by_line(records):
    return {int(r.ref.rsplit(":", 1)[1]): r for r in records}


def codes(record, subtask_id=None):
    return {d.code for d in record.defects if subtask_id is None or d.subtask_id == subtask_id}


@pytest.mark.anyio
async def test_rl_row_golden_calls_are_found_by_running_its_tools_and_verified(tmp_path, sandbox):
    inp = write_jsonl(tmp_path / "rl.jsonl", rl_row())
    (record,) = await import_envs([inp], tmp_path / "out", sandbox=sandbox)
    assert record.passed and record.format == "rl" and not record.defects, record.defects
    assert record.found_calls == {
        "1": GoldenCall(tool="pass_lookup", arguments={"name": "Ana Ruiz", "date": "2025-10-02"}),
        "2": GoldenCall(tool="gate_for_pass", arguments={"pass_id": "MP-2231"}),  # the dependency's answer
    }
    env = load_env(tmp_path / "out" / "envs" / record.env_id)
    assert env.spec.source.kind == "import" and env.spec.source.ref == f"{inp}:1"
    assert [(s.id, s.depends_on, s.golden_call) for s in env.spec.subtasks] == [
        ("1", [], record.found_calls["1"]), ("2", ["1"], record.found_calls["2"])]
    assert env.spec.task.scenario == "multi_hop" and env.spec.task.answer == "North 3"


@pytest.mark.anyio
async def test_pipeline_row_imports_with_its_statements_and_dag(tmp_path, sandbox):
    inp = write_jsonl(tmp_path / "pipe.jsonl", pipeline_row(domain="museums"))
    (record,) = await import_envs([inp], tmp_path / "out", sandbox=sandbox)
    assert record.passed and record.format == "pipeline" and record.found_calls == {}, record.defects
    env = load_env(tmp_path / "out" / "envs" / record.env_id)
    assert env.spec.domain == "museums" and env.spec.task.scenario == "parallel_multi_hop"
    assert [(s.id, s.needs_tool, s.depends_on) for s in env.spec.subtasks] == [("1", True, []), ("2", True, ["1"]), ("3", False, [])]
    assert env.spec.subtasks[1].golden_call == GoldenCall(tool="gate_for_pass", arguments={"pass_id": "MP-2231"})


@pytest.mark.anyio
async def test_a_pipeline_node_without_a_statement_is_searched_on_its_own_tool(tmp_path, sandbox):
    row = pipeline_row()
    row["env_result"]["2"]["env_synthesis_result"]["data"]["tool_call_statement"] = ""
    (record,) = await import_envs([write_jsonl(tmp_path / "p.jsonl", row)], tmp_path / "out", sandbox=sandbox)
    assert record.passed and record.found_calls == {"2": GoldenCall(tool="gate_for_pass", arguments={"pass_id": "MP-2231"})}


@pytest.mark.anyio
async def test_defects_are_reported_per_row_instead_of_dropped_or_repaired(tmp_path, sandbox):
    dup = dict(PASS_LOOKUP, function={**PASS_LOOKUP["function"], "description": "Find a pass (second copy)."})
    ticket_qa = {"1": {"question": "Which ticket was issued to Ana Ruiz?", "answer": "TK-4f2a91c0", "dependency": None}}
    wrong_statement = pipeline_row()
    wrong_statement["env_result"]["2"]["env_synthesis_result"]["data"]["tool_call_statement"] = "gate_for_pass('MP-0000')"
    inp = write_jsonl(
        tmp_path / "rows.jsonl",
        rl_row(tool_schema=[PASS_LOOKUP, dup, GATE_FOR_PASS]),
        rl_row(tool_schema=[TICKET_UUID], tool_dict={"issue_ticket": TICKET_UUID_CODE}, sub_qa_dict=ticket_qa),
        rl_row(tool_schema=[TICKET_UUID], tool_dict={"issue_ticket": TICKET_TIME_CODE},
               sub_qa_dict={"1": {**ticket_qa["1"], "answer": "2025-10-02T09:00:00"}}),
        rl_row(sub_qa_dict={**rl_row()["sub_qa_dict"], "2": {**rl_row()["sub_qa_dict"]["2"], "answer": "South 9"}}),
        wrong_statement,
        pipeline_row(tool_necessity_legitimacy=False),
        pipeline_row(verify_result={"score": "0.3"}),
        "{not json",
    )
    records = by_line(await import_envs([inp], tmp_path / "out", sandbox=sandbox, min_verify_score=0.85))
    assert not any(r.passed for r in records.values()) and not (tmp_path / "out" / "envs").exists()
    dup_row = records[1]
    assert codes(dup_row) == {"duplicate_tool_name"} and set(dup_row.found_calls) == {"1", "2"}  # the search still ran and says so
    for line in (2, 3):  # random ids, then the clock: the answer cannot be reproduced
        assert codes(records[line]) == {"nondeterministic", "answer_missing"}, records[line].defects
        assert {d.tool for d in records[line].defects if d.code == "nondeterministic"} == {"issue_ticket"}
        assert codes(records[line], "1") == {"answer_missing"}
    (missing,) = records[4].defects
    assert (missing.code, missing.subtask_id) == ("golden_call_missing", "2") and "South 9" in missing.message
    assert records[4].found_calls == {"1": GoldenCall(tool="pass_lookup", arguments={"name": "Ana Ruiz", "date": "2025-10-02"})}
    assert codes(records[5], "2") == {"answer_missing"} and records[5].env_id  # verify's finding on the built environment
    assert records[6].rejected and codes(records[6]) == {"tool_necessity_illegitimate"}
    assert records[7].rejected and codes(records[7]) == {"verify_score_low"}
    assert codes(records[8]) == {"malformed_row"} and records[8].format is None
    report = read_jsonl(tmp_path / "out" / "import_report.jsonl").values
    assert [int(r["ref"].rsplit(":", 1)[1]) for r in report] == list(range(1, 9))
    assert report[0]["defects"][0] == {"code": "duplicate_tool_name", "message": report[0]["defects"][0]["message"],
                                       "subtask_id": None, "tool": "pass_lookup"}


def city_tool(name: str, code: str, qa: dict) -> dict:
    schema = {"type": "function", "function": {"name": name, "description": "Look up a city.",
              "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
    first = next(iter(qa.values()))
    return rl_row(query=first.get("question") or first["sub_question"], tool_schema=[schema], tool_dict={name: code}, sub_qa_dict=qa)


@pytest.mark.anyio
async def test_search_reads_chinese_sub_questions_and_refuses_echoes_and_reports_broken_code(tmp_path, sandbox):
    weather = "WEATHER = {'北京': '晴，26°C'}\n\ndef city_weather(city):\n    return {'weather': WEATHER.get(city, '未知城市')}"
    echo = "def city_card(city):\n    return {'city': city, 'note': 'no data'}"
    inp = write_jsonl(
        tmp_path / "rows.jsonl",
        city_tool("city_weather", weather, {"1": {"sub_question": "北京今天的天气怎么样？", "sub_answer": "晴，26°C", "dependency": ""}}),
        city_tool("city_card", echo, {"1": {"question": "Tell me what Lisbon is known for.", "answer": "Lisbon", "dependency": None}}),
        city_tool("city_card", "def city_card(city:\n    pass", {"1": {"question": "What is Lisbon's area?", "answer": "100 km2"}}),
    )
    records = by_line(await import_envs([inp], tmp_path / "out", sandbox=sandbox))
    assert records[1].passed and records[1].found_calls["1"].arguments == {"city": "北京"}, records[1].defects
    assert load_env(tmp_path / "out" / "envs" / records[1].env_id).spec.language == "zh"
    assert codes(records[2]) == {"golden_call_missing"}  # city_card("Lisbon") contains "Lisbon" only because it was given it
    (broken,) = records[3].defects
    assert broken.code == "golden_call_missing" and "every call of city_card failed" in broken.message


@pytest.mark.anyio
async def test_the_search_stays_within_its_call_budget_and_shares_it_between_tools(tmp_path, sandbox):
    q1 = {"question": "What is Ana Ruiz's pass id for 2025-10-02?", "answer": "MP-9999", "dependency": []}
    unreachable = rl_row(sub_qa_dict={"1": q1})
    # a tool that looks more relevant and takes three strings: it must not spend the whole budget alone
    wide = {"type": "function", "function": {"name": "pass_search", "description": "Find a visitor's pass id by name, date and city.",
            "parameters": {"type": "object", "properties": {k: {"type": "string"} for k in ("name", "date", "city")},
                           "required": ["name", "date", "city"]}}}
    shared = rl_row(tool_schema=[wide, PASS_LOOKUP], tool_dict={"pass_search": "def pass_search(name, date, city):\n    return []",
                                                                "pass_lookup": rl_row()["tool_dict"]["pass_lookup"]},
                    sub_qa_dict={"1": {**q1, "answer": "MP-2231"}})
    inp = write_jsonl(tmp_path / "r.jsonl", unreachable, shared)
    records = by_line(await import_envs([inp], tmp_path / "out", sandbox=sandbox, limits=SearchLimits(max_calls=6)))
    assert codes(records[1]) == {"golden_call_missing"} and "6 calls" in records[1].defects[0].message
    assert records[2].found_calls["1"].tool == "pass_lookup", records[2].defects


@pytest.mark.anyio
async def test_report_renders_funnel_and_distribution_pngs(tmp_path, sandbox):
    inp = write_jsonl(tmp_path / "in.jsonl", {"question": "What is the current temperature in the city where the Eiffel Tower stands?", "domain": "travel"}, {"domain": "x", "question": "y"})
    good = Script().decompose[0]
    script = Script(decompose=[lambda messages: good if "Eiffel" in messages[1].content else "I would rather not."])
    result = await synthesize_envs(FunctionModel(script), tmp_path / "out", inputs=[inp], config=SynthConfig(leak_audit=False, retries=0), sandbox=sandbox, show_progress=False)
    assert len(result.envs) == 1 and result.stats.funnel[0].reasons == {"no_json": 2}  # both attempts of the bad row
    paths = render_report(tmp_path / "out")
    assert [p.name for p in paths] == ["funnel.png", "distributions.png"]
    for p in paths:
        data = p.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000


def test_cli_report_alone_and_missing_stats(tmp_path):
    runner = CliRunner()
    missing = runner.invoke(app, ["env", "synth", "--out", str(tmp_path), "--report"])
    assert missing.exit_code == 2 and "stats.json" in missing.output
    (tmp_path / "stats.json").write_text(json.dumps({"pipeline": "synth.env", "input_records": 3, "outputs": 1,
        "funnel": [{"stage": "decompose", "seen": 3, "accepted": 2, "rejected": 1, "reasons": {"no_json": 1}}],
        "extra": {"envs_by_tools": {"2": 1}}}))
    ok = runner.invoke(app, ["env", "synth", "--out", str(tmp_path), "--report"])
    assert ok.exit_code == 0, ok.output
    assert (tmp_path / "report" / "funnel.png").is_file() and (tmp_path / "report" / "distributions.png").is_file()


def test_cli_import_exits_nonzero_and_names_defects(tmp_path):
    inp = write_jsonl(tmp_path / "rows.jsonl", rl_row(), rl_row(tool_schema=[PASS_LOOKUP, PASS_LOOKUP, GATE_FOR_PASS]),
                      pipeline_row(tool_necessity_legitimacy=False))
    result = CliRunner().invoke(app, ["env", "import", str(inp), "--out", str(tmp_path / "out")])
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("PASS") and lines[1].startswith("FAIL") and "duplicate_tool_name" in lines[1]
    assert lines[2].startswith("REJECT") and "tool_necessity_illegitimate" in lines[2]
    assert "1/3 rows imported" in result.output and "1 rejected" in result.output
    only_good = CliRunner().invoke(app, ["env", "import", str(write_jsonl(tmp_path / "ok.jsonl", rl_row(), pipeline_row(tool_necessity_legitimacy=False))),
                                         "--out", str(tmp_path / "out2")])
    assert only_good.exit_code == 0, only_good.output
