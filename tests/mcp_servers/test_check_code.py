"""`CheckCode`: a declared code is snake case with one-line texts; a template names the family filling its slot."""

from __future__ import annotations

import sys

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


def _declarations_beside(tmp_path, monkeypatch, text: str) -> str:
    """A package `probe_codes` with a module `checks` whose declarations file holds `text`; the module's dotted name."""
    package = tmp_path / "probe_codes"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "checks.codes.yaml").write_text(text, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "probe_codes", raising=False)  # the package of this test's tmp_path, not an earlier one's
    return "probe_codes.checks"


def test_declarations_load_from_the_file_beside_the_module_in_order(tmp_path, monkeypatch) -> None:
    module = _declarations_beside(tmp_path, monkeypatch, """
- code: judge_<reply>
  family: env_synth
  meaning: 'a judge''s reply was unusable: the suffix says how'
  example: '"yes"'
- code: schema_invalid
  family: verify
  meaning: env.json is unreadable
  example: '{'
""")
    assert CheckCode.load_declarations(module) == (
        CheckCode(code="judge_<reply>", family="env_synth", meaning="a judge's reply was unusable: the suffix says how", example='"yes"'),
        CheckCode(code="schema_invalid", family="verify", meaning="env.json is unreadable", example="{"),
    )


@pytest.mark.parametrize(
    "text",
    [
        "- code: [schema_invalid\n",  # not YAML
        "code: schema_invalid\n",  # a mapping, not a list
        "- code: schema_invalid\n  family: verify\n  meaning: m\n",  # a key missing
        "- code: schema_invalid\n  family: verify\n  meaning: m\n  example: e\n  note: n\n",  # a key too many
        "- code: schema_invalid\n  family: verify\n  meaning: m\n  example: 42\n",  # not a string
        "- code: Schema-Invalid\n  family: verify\n  meaning: m\n  example: e\n",  # a malformed code
    ],
)
def test_a_malformed_declarations_file_is_refused(tmp_path, monkeypatch, text: str) -> None:
    module = _declarations_beside(tmp_path, monkeypatch, text)
    with pytest.raises(ValueError, match="probe_codes/checks.codes.yaml|check code"):
        CheckCode.load_declarations(module)
