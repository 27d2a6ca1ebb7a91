import json

import pytest
from typer.testing import CliRunner

from astra_cli import app
from envscript import WEATHER_CODE, Script
from mcp_servers import load_env
from scripted import ScriptedModel
from synth.env import SynthConfig, import_envs, render_report, synthesize_envs

SCHEMA = {"type": "function", "function": {"name": "get_city_weather", "description": "Current weather of a city.",
          "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}


def row(**over):
    base = {
        "query": "What's the temperature in Paris right now?",
        "tool_schema": [SCHEMA],
        "tool_dict": {"get_city_weather": WEATHER_CODE},
        "sub_qa_dict": {"get_city_weather": ["18°C"]},
        "golden_calls": {"get_city_weather": [{"city": "Paris"}]},
    }
    return {**base, **over}


def write(path, *rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in rows))
    return path


@pytest.mark.anyio
async def test_import_reports_defects_instead_of_hiding_them(tmp_path, sandbox):
    random_code = "import random\n\ndef get_city_weather(city):\n    return {'temperature': '18°C', 'noise': random.random()}"
    encoded = {  # the HF parquet layout: JSON-encoded fields and the query inside `prompt`
        "prompt": [{"role": "system", "content": "You are helpful."}, {"role": "user", "content": "Temperature in Paris?"}],
        "tool_schema": json.dumps([SCHEMA]),
        "tool_dict": json.dumps({"get_city_weather": WEATHER_CODE}),
        "sub_qa_dict": json.dumps({"get_city_weather": ["18°C"]}),
        "golden_calls": {"get_city_weather": [{"city": "Paris"}]},
    }
    inp = write(
        tmp_path / "rl.jsonl",
        row(),
        row(tool_schema=[SCHEMA, SCHEMA]),
        row(tool_dict={"get_city_weather": random_code}),
        row(golden_calls=None),
        "{not json",
        encoded,
    )
    records = await import_envs([inp], tmp_path / "out", sandbox=sandbox)
    by_line = {int(r.ref.rsplit(":", 1)[1]): r for r in records}
    assert by_line[1].passed and by_line[6].passed
    assert [d.code for d in by_line[2].defects] == ["duplicate_tool_name"] and not by_line[2].passed
    assert "nondeterministic" in {d.code for d in by_line[3].defects} and not by_line[3].passed
    assert [d.code for d in by_line[4].defects] == ["golden_call_missing"]
    assert [d.code for d in by_line[5].defects] == ["malformed_row"]
    env = load_env(tmp_path / "out" / "envs" / by_line[1].env_id)
    assert env.spec.source.kind == "import" and env.spec.source.ref == f"{inp}:1"
    assert load_env(tmp_path / "out" / "envs" / by_line[6].env_id).spec.task.question == "Temperature in Paris?"
    report = [json.loads(x) for x in (tmp_path / "out" / "import_report.jsonl").read_text().splitlines()]
    assert len(report) == 6 and sum(r["passed"] for r in report) == 2


@pytest.mark.anyio
async def test_import_asks_a_model_for_missing_golden_calls(tmp_path, sandbox, script):
    inp = write(tmp_path / "rl.jsonl", row(golden_calls=None))
    model = script('{"calls": [{"city": "Paris"}]}')
    (record,) = await import_envs([inp], tmp_path / "out", sandbox=sandbox, model=model)
    assert record.passed, record.defects
    assert "18°C" in model.requests[0][0].content


@pytest.mark.anyio
async def test_report_renders_funnel_and_distribution_pngs(tmp_path, sandbox):
    inp = write(tmp_path / "in.jsonl", {"question": "What is the current temperature in the city where the Eiffel Tower stands?", "domain": "travel"}, {"domain": "x", "question": "y"})
    good = Script().decompose[0]
    script = Script(decompose=[lambda messages: good if "Eiffel" in messages[1].content else "I would rather not."])
    result = await synthesize_envs(ScriptedModel(script), tmp_path / "out", inputs=[inp], config=SynthConfig(leak_audit=False, retries=0), sandbox=sandbox, show_progress=False)
    assert len(result.envs) == 1 and result.stats.funnel[0].reasons == {"no_json": 1}
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
    inp = write(tmp_path / "rl.jsonl", row(), row(tool_schema=[SCHEMA, SCHEMA]))
    result = CliRunner().invoke(app, ["env", "import", str(inp), "--out", str(tmp_path / "out")])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0].startswith("PASS") and lines[1].startswith("FAIL") and "duplicate_tool_name" in lines[1]
    assert "1/2 rows imported" in result.output
