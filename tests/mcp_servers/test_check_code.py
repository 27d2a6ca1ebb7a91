"""`CheckCode`: a declared code is snake case with one-line texts; a template names the family filling its slot."""

from __future__ import annotations

import pytest

from mcp_servers import CHECK_CODES, FINDING_CODES, CheckCode


def test_a_plain_code_and_a_template() -> None:
    plain = CheckCode(code="schema_invalid", family="verify", meaning="env.json is unreadable", example="{")
    template = CheckCode(code="judge_<reply>", family="env_synth", meaning="a judge's reply was unusable", example="judge_no_json")
    assert (plain.slot, plain.prefix) == (None, "schema_invalid")
    assert (template.slot, template.prefix) == ("reply", "judge_")


@pytest.mark.parametrize(
    ("code", "meaning", "example"),
    [("Schema-Invalid", "m", "e"), ("judge_<reply>_x", "m", "e"), ("ok_code", "", "e"), ("ok_code", "m", "two\nlines")],
)
def test_a_malformed_declaration_is_refused(code: str, meaning: str, example: str) -> None:
    with pytest.raises(ValueError, match="check code"):
        CheckCode(code=code, family="verify", meaning=meaning, example=example)


def test_verify_declares_every_finding_code_once() -> None:
    codes = [c.code for c in CHECK_CODES]
    assert codes == list(FINDING_CODES) and {c.family for c in CHECK_CODES} == {"verify"}
