"""verify: answer matching, static checks, lenient loading, the report, and the CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from astra_cli import app
from mcp_servers import Environment, LocalSandbox, golden_order
from mcp_servers._verify import VerifyReport, verify_env, verify_paths
from mcp_servers._verify_checks import (
    answer_in_output,
    generic_answer_reason,
    load_lenient,
    normalize_answer,
    perturbations,
)
from mcp_servers._verify_scan import scan_code

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

LOOKUP_CODE = '''
PRICES = {"apple": "USD 1,250.00", "pear": "USD 980.40"}


def price(item: str) -> str:
    return f"{item}: {PRICES[item]}" if item in PRICES else f"no price for {item}"
'''


def _lookup_env(code: str = LOOKUP_CODE, answer: str = "1250") -> Environment:
    return Environment.build(
        code,
        domain="testing",
        source={"kind": "authored", "ref": "tests"},
        task={"question": "What does an apple cost?", "answer": answer, "scenario": "single_hop"},
        subtasks=[{"id": "s1", "question": "Price of an apple?", "answer": answer,
                   "golden_call": {"tool": "price", "arguments": {"item": "apple"}}}],
        tools=[{"name": "price", "description": "Price of an item.",
                "input_schema": {"type": "object", "properties": {"item": {"type": "string"}}, "required": ["item"]}}],
    )


def test_normalization_folds_case_space_and_numbers() -> None:
    assert normalize_answer("1,000.50") == normalize_answer("1000.5") == "1000.5"
    assert normalize_answer("3.0") == normalize_answer("3") == "3"
    assert normalize_answer("  Light\n\tRAIN ") == "light rain"
    assert normalize_answer("ＣＡＤ　８６７．００") == "cad 867"
    assert normalize_answer("2023 年 10 月 10 日") == normalize_answer("2023年10月10日") == "2023年10月10日"
    assert normalize_answer("-5 °C") == normalize_answer("-5°C") and normalize_answer("45 %") == "45%"
    assert normalize_answer("A-56432 和 B-78901") == "a-56432和b-78901" and normalize_answer("light rain") == "light rain"


def test_containment_respects_number_and_word_boundaries() -> None:
    assert answer_in_output("USD 1,250.00", "apple: usd 1250")
    assert answer_in_output("1000.5", "total 1,000.50 EUR")
    assert answer_in_output("200", "[1, 200, 300]")
    assert answer_in_output("200", "[1,200,300]")
    assert not answer_in_output("3", "13 apples")
    assert not answer_in_output("3", "1.3 kg")
    assert not answer_in_output("rain", "training day")
    assert answer_in_output("杭州转运中心", "到达杭州转运中心（轨迹）")
    assert not answer_in_output("", "anything")
    assert answer_in_output("杭州", json.dumps({"city": "杭州"}))


def test_generic_answers_are_not_evidence() -> None:
    assert generic_answer_reason("Yes") is not None
    assert generic_answer_reason("7") is not None
    assert generic_answer_reason("1.0") is not None
    assert generic_answer_reason("Lagos") is None


def test_perturbations_stay_schema_valid_and_prefer_siblings() -> None:
    schema = {
        "type": "object",
        "properties": {
            "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
            "day": {"type": "string", "enum": ["mon", "tue"]},
            "n": {"type": "integer", "maximum": 5},
            "fmt": {"type": "string"},
        },
        "required": ["code", "day", "n"],
    }
    variants = dict(perturbations({"code": "ZRH", "day": "mon", "n": 5, "fmt": "long"}, schema, [{"code": "AMS"}]))
    assert variants == {
        "code": {"code": "AMS", "day": "mon", "n": 5, "fmt": "long"},
        "day": {"code": "ZRH", "day": "tue", "n": 5, "fmt": "long"},
        "n": {"code": "ZRH", "day": "mon", "n": 4, "fmt": "long"},
    }
    assert dict(perturbations({"code": "ZRH"}, schema | {"required": []}, []))["code"] == {"code": "ZRI"}
    assert perturbations({}, {"type": "object"}, []) == []


def test_static_scan_flags_time_random_and_network() -> None:
    code = (
        "import hashlib\nfrom datetime import datetime\nimport http.client\n\n"
        "def f() -> str:\n    return str(datetime.now()) + str(__import__('uuid'))\n"
    )
    env = _lookup_env(code=code + LOOKUP_CODE)
    findings, parses = scan_code(env)
    assert parses
    messages = sorted(f.message for f in findings)
    assert {f.code for f in findings} == {"nondeterministic"}
    assert any("http.client" in m for m in messages)
    assert any("datetime.now" in m for m in messages)
    assert any("uuid dynamically" in m for m in messages)
    assert not any("hashlib" in m for m in messages)


def test_static_scan_flags_per_process_builtins_and_bad_signatures() -> None:
    code = LOOKUP_CODE + (
        "\n\ndef stock(item: str, /, store: str) -> str:\n    return str(hash(item))\n"
        "\n\ndef colour(*, fruit: str, shade: str = 'x', **extra: str) -> str:\n    return fruit\n"
    )
    env = Environment.build(
        code,
        domain="testing",
        source={"kind": "authored"},
        task={"question": "q", "answer": "a", "scenario": "single_hop"},
        subtasks=[{"id": "s1", "question": "q", "answer": "apple", "golden_call": {"tool": "price", "arguments": {"item": "apple"}}}],
        tools=[
            {"name": "price", "description": "d", "input_schema": {"type": "object", "properties": {"item": {"type": "string"}}, "required": ["item"]}},
            {"name": "stock", "description": "d", "input_schema": {"type": "object", "properties": {"item": {"type": "string"}, "store": {"type": "string"}}}},
            {"name": "colour", "description": "d", "input_schema": {"type": "object", "properties": {"fruit": {"type": "string"}, "size": {"type": "integer"}}, "required": ["fruit"]}},
        ],
    )
    findings, _ = scan_code(env)
    by_code = {(f.code, f.tool): f.message for f in findings}
    assert set(by_code) == {("nondeterministic", None), ("signature_mismatch", "stock")}
    stock = [f.message for f in findings if f.tool == "stock"]
    assert any("positional-only parameter 'item'" in m for m in stock)
    assert any("'store' has no default but input_schema does not require it" in m for m in stock)
    assert "hash()" in by_code[("nondeterministic", None)]


def test_an_environment_without_tool_subtasks_has_nothing_to_verify() -> None:
    from mcp_servers._verify_checks import spec_findings

    env = Environment.build(
        LOOKUP_CODE,
        domain="testing",
        source={"kind": "authored"},
        task={"question": "q", "answer": "a", "scenario": "single_hop"},
        subtasks=[{"id": "s1", "question": "q", "answer": "apple", "needs_tool": False}],
        tools=[{"name": "price", "description": "d", "input_schema": {"type": "object"}}],
    )
    assert [(f.code, f.message) for f in spec_findings(env.spec)] == [
        ("schema_invalid", "no subtask needs a tool, so there is nothing to verify")
    ]


def test_golden_order_puts_dependencies_first() -> None:
    env = Environment.build(
        LOOKUP_CODE,
        domain="testing",
        source={"kind": "authored"},
        task={"question": "q", "answer": "a", "scenario": "multi_hop"},
        subtasks=[
            {"id": "late", "question": "q", "answer": "pear", "depends_on": ["early"],
             "golden_call": {"tool": "price", "arguments": {"item": "pear"}}},
            {"id": "early", "question": "q", "answer": "apple", "golden_call": {"tool": "price", "arguments": {"item": "apple"}}},
        ],
        tools=[{"name": "price", "description": "d", "input_schema": {"type": "object", "properties": {"item": {"type": "string"}}}}],
    )
    assert [s.id for s in golden_order(env.spec)] == ["early", "late"]


def test_lenient_loading_names_each_problem(tmp_path: Path) -> None:
    missing, findings = load_lenient(tmp_path / "nowhere")
    assert missing is None and [f.code for f in findings] == ["schema_invalid"]
    (tmp_path / "env.json").write_text("{ not json")
    _, findings = load_lenient(tmp_path)
    assert [f.code for f in findings] == ["schema_invalid"] and "line 1" in findings[0].message
    raw = json.loads((EXAMPLES / "envs" / "order_items" / "env.json").read_text())
    raw["subtasks"][0]["depends_on"] = ["name_a"]
    raw["tools"].append(dict(raw["tools"][0]))
    (tmp_path / "env.json").write_text(json.dumps(raw))
    shutil.copy(EXAMPLES / "envs" / "order_items" / "tools.py", tmp_path / "tools.py")
    env, findings = load_lenient(tmp_path)
    assert env is None
    assert sorted(f.code for f in findings) == ["duplicate_tool_name", "schema_invalid"]
    assert any("cycle" in f.message for f in findings)


@pytest.mark.anyio
async def test_in_memory_environment_passes_and_answer_checks_bite() -> None:
    async with LocalSandbox() as sandbox:
        good = await verify_env(_lookup_env(), sandbox=sandbox)
        wrong = await verify_env(_lookup_env(answer="USD 1,249.99"), sandbox=sandbox)
    assert good.passed and good.findings == [] and good.path is None
    assert not wrong.passed and wrong.codes == ["answer_missing"]
    assert wrong.findings[0].subtask_id == "s1" and wrong.findings[0].tool == "price"


@pytest.mark.anyio
async def test_stateful_example_depends_on_its_earlier_call() -> None:
    from mcp import Client

    from mcp_servers import build_env_server, load_env

    env = load_env(EXAMPLES / "envs" / "hotel_booking")
    book, total = env.spec.subtasks
    assert total.depends_on == [book.id]
    async with LocalSandbox() as sandbox:
        async with Client(build_env_server(env, sandbox), mode="legacy") as alone:
            cold = await alone.call_tool(total.golden_call.tool, total.golden_call.arguments)
        async with Client(build_env_server(env, sandbox), mode="legacy") as client:
            await client.call_tool(book.golden_call.tool, book.golden_call.arguments)
            warm = await client.call_tool(total.golden_call.tool, total.golden_call.arguments)
        report = await verify_env(env, sandbox=sandbox)
    assert not answer_in_output(total.answer, cold.content[0].text)
    assert answer_in_output(total.answer, warm.content[0].text)
    assert report.passed


@pytest.mark.anyio
async def test_unexpected_errors_fail_closed() -> None:
    report = await verify_env(_lookup_env(), sandbox=object())  # type: ignore[arg-type]
    assert not report.passed
    assert report.codes == ["verify_error"]


def test_sessions_that_never_finish_are_timeouts() -> None:
    from mcp_servers._verify import _failure

    assert _failure(TimeoutError()).code == "timeout"
    assert _failure(ExceptionGroup("tasks", [TimeoutError(), TimeoutError()])).code == "timeout"
    assert _failure(ExceptionGroup("tasks", [TimeoutError(), KeyError("x")])).code == "verify_error"


@pytest.mark.anyio
async def test_report_json_shape(tmp_path: Path) -> None:
    async with LocalSandbox() as sandbox:
        report = await verify_paths(
            [EXAMPLES / "envs" / "zh_weather", EXAMPLES / "broken" / "answer_missing", tmp_path / "empty"], sandbox=sandbox
        )
    data = json.loads(report.to_json())
    assert set(data) == {"envs", "passed", "failed"}
    assert data["passed"] is False and data["failed"] == 2
    good, bad, empty = data["envs"]
    assert set(good) == {"path", "env_id", "tools", "subtasks", "passed", "findings", "duration_s"}
    assert good["passed"] is True and good["env_id"].startswith("env-") and good["tools"] == 1
    assert bad["findings"][0].keys() == {"code", "subtask_id", "tool", "message"}
    assert bad["findings"][0]["code"] == "answer_missing"
    assert empty["passed"] is False and [f["code"] for f in empty["findings"]] == ["schema_invalid"]
    assert VerifyReport.model_validate_json(report.to_json()).failed == 2
    assert report.table().row_count == 3


def test_cli_exit_codes_and_json(tmp_path: Path) -> None:
    runner = CliRunner()
    ok = runner.invoke(app, ["env", "verify", str(EXAMPLES / "envs" / "course_catalog"), "--json", str(tmp_path / "ok.json")])
    assert ok.exit_code == 0, ok.output
    assert json.loads((tmp_path / "ok.json").read_text())["passed"] is True
    assert "PASS" in ok.output
    bad = runner.invoke(app, ["env", "verify", str(EXAMPLES / "broken" / "golden_call_error"), "--json", str(tmp_path / "bad.json")])
    assert bad.exit_code == 1
    assert json.loads((tmp_path / "bad.json").read_text())["envs"][0]["findings"][0]["code"] == "golden_call_error"
    assert runner.invoke(app, ["env", "verify", str(tmp_path / "no-such-env")]).exit_code == 1
