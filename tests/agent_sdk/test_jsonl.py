"""`read_jsonl`: every problem names file and line; the caller chooses stop or collect."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel

from agent_sdk import JsonlError, JsonlProblem, UserError, read_jsonl


class Row(BaseModel):
    domain: str


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "in.jsonl"
    path.write_text(text, encoding="utf-8")
    return path


def test_collect_keeps_the_good_lines_and_names_each_bad_one(tmp_path):
    path = _write(tmp_path, '{"domain": "a"}\n{"domain": \n\n[1, 2]\n{"domain": "b"}\n')
    content = read_jsonl(path, on_problem="collect")
    assert [(r.line, r.value["domain"]) for r in content.rows] == [(1, "a"), (5, "b")]
    assert content.values == [{"domain": "a"}, {"domain": "b"}] and content.rows[1].ref == f"{path}:5"
    assert [str(p).split(": ")[0] for p in content.problems] == [f"{path}:2", f"{path}:4"]
    assert content.problems[0].message.startswith("invalid JSON: Expecting value (column")
    assert content.problems[1] == JsonlProblem(file=str(path), line=4, message="expected a JSON object, got list")


def test_stop_raises_at_the_first_bad_line_with_file_and_line(tmp_path):
    path = _write(tmp_path, '{"domain": "a"}\n{"domian": "typo"}\n{"nope\n')
    with pytest.raises(JsonlError, match=f"{path}:2: domain: Field required") as raised:
        read_jsonl(path, Row)
    assert (raised.value.file, raised.value.line, raised.value.problem) == (str(path), 2, "domain: Field required")
    assert isinstance(raised.value, UserError) and isinstance(raised.value, ValueError)


def test_parse_is_a_model_or_a_function_and_limit_counts_non_blank_lines(tmp_path):
    path = _write(tmp_path, '{"domain": "a"}\n\n{"domain": "b"}\n{"other": 1}\n')
    assert read_jsonl(path, Row, limit=2).values == [Row(domain="a"), Row(domain="b")]
    content = read_jsonl(path, lambda record: record["domain"], on_problem="collect")
    assert content.values == ["a", "b"] and [str(p) for p in content.problems] == [f"{path}:4: missing field 'domain'"]


def test_text_that_is_not_utf8_is_a_problem_of_its_line(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_bytes(b'{"domain": "a"}\n{"domain": "\xff"}\n')
    (problem,) = read_jsonl(path, on_problem="collect").problems
    assert problem.line == 2 and problem.message.startswith("not UTF-8")
    with pytest.raises(FileNotFoundError):
        read_jsonl(tmp_path / "missing.jsonl")
