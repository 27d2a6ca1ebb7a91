"""The catalogue of checks: every code the source can emit is declared once, and every declared code is emitted.

Emitted codes are found two ways: by reading the source (code-shaped string literals where a code is
emitted: `code=` / `reason=` arguments, `CodeProblem(...)`, `reject(...)`, `(code, detail)` returns,
the default of an error map's `.get`, assignments to `code` / `reason`, and f-string prefixes such as
`f"judge_{...}"`), and from the sets the code already keeps (`FindingCode`, `ReasonCode`,
`DropReason`, `FindingKind`, the fields of `Grounding`, the values of the error maps).
"""

from __future__ import annotations

import ast
import importlib
import json
import re
import typing
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mcp_servers
import synth.catalogue
from astra_cli import app
from mcp_servers import CheckCode
from synth.catalogue import FAMILIES, SOURCES, Catalogue, load_catalogue
from synth.core import COPIED_EXAMPLE, ReasonCode
from synth.env import MEANING_CODES
from synth.env.corpus_audit import FindingKind
from synth.sft._answer_shape import call_text_problem, final_answer_problem
from synth.sft._docs import DropReason
from synth.sft._grounding import Grounding
from synth.sft._request_shape import request_problem

REPO = Path(__file__).resolve().parents[2]
SCANNED = ("mcp_servers", "synth")
"""The packages whose checks the catalogue covers."""
UNDECLARED: tuple[str, ...] = ()
"""Packages keeping their codes apart from the catalogue (none)."""
_EMITTING_NAMES = frozenset({"code", "reason", "reason_code", "failure_code"})
_CODE_SHAPED = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*_?$")


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _sources() -> dict[str, str]:
    modules = {_module_name(p): p for top in SCANNED for p in sorted((REPO / top).rglob("*.py"))}
    return {m: p.read_text(encoding="utf-8") for m, p in modules.items() if not m.startswith(UNDECLARED)}


def _literals(node: ast.AST | None, constants: dict[str, str]) -> Iterator[tuple[str, bool]]:
    """(text, is a prefix) for every string a code-emitting expression can evaluate to, as far as literals tell."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value.split(":", 1)[0], False  # "verify_failed:" + codes is found by the code before its colon
    elif isinstance(node, ast.Name) and node.id in constants:
        yield constants[node.id], False
    elif isinstance(node, ast.JoinedStr) and node.values and isinstance(first := node.values[0], ast.Constant):
        yield str(first.value), len(node.values) > 1
    elif isinstance(node, ast.IfExp):
        yield from _literals(node.body, constants)
        yield from _literals(node.orelse, constants)
    elif isinstance(node, ast.BoolOp):
        for value in node.values:
            yield from _literals(value, constants)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        yield from _literals(node.left, constants)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and len(node.args) == 2:
        yield from _literals(node.args[1], constants)  # ERROR_MAP.get(kind, "golden_call_error")


def _emitting_expressions(tree: ast.Module) -> Iterator[ast.AST]:
    """The expressions of `tree` whose value is an emitted code."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name == "CheckCode":
                continue  # a declaration, not an emission
            yield from (k.value for k in node.keywords if k.arg in _EMITTING_NAMES)
            position = {"CodeProblem": 0, "WalkRejected": 0, "reject": 1, "_reject": 2}.get(name)
            if position is not None and len(node.args) > position:
                yield node.args[position]
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id in _EMITTING_NAMES for t in targets):
                yield node.value  # type: ignore[misc]
            if any(isinstance(t, ast.Name) and "ERROR" in t.id for t in targets) and isinstance(node.value, ast.Dict):
                yield from node.value.values  # type: ignore[misc]
        elif isinstance(node, ast.FunctionDef):
            returns_code = "reason code" in (ast.get_docstring(node) or "")
            for ret in (n for n in ast.walk(node) if isinstance(n, ast.Return) and n.value is not None):
                if isinstance(ret.value, ast.Tuple) and len(ret.value.elts) == 2:
                    yield ret.value.elts[0]  # (reason code, detail)
                elif returns_code:
                    yield ret.value


def scan(source: str, where: str = "probe.py") -> tuple[set[str], set[str]]:
    """The codes `source` emits, and the prefixes of those it emits through an f-string."""
    tree = ast.parse(source, where)
    constants = {
        t.id: n.value.value
        for n in tree.body if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)
        for t in n.targets if isinstance(t, ast.Name)
    }  # fmt: skip
    codes: set[str] = set()
    prefixes: set[str] = set()
    for expression in _emitting_expressions(tree):
        for text, is_prefix in _literals(expression, constants):
            if _CODE_SHAPED.match(text):
                (prefixes if is_prefix else codes).add(text)
    return codes, prefixes


def kept_sets() -> set[str]:
    """The codes the source keeps in sets of its own (not `MEANING_CODES`: it is read off the declarations)."""
    literals = (mcp_servers.FindingCode, ReasonCode, DropReason, FindingKind)
    return {*(a for literal in literals for a in typing.get_args(literal)), COPIED_EXAMPLE, *Grounding.model_fields}


@pytest.fixture(scope="module")
def emitted() -> tuple[set[str], set[str]]:
    codes, prefixes = kept_sets(), set()
    for module, source in _sources().items():
        found, started = scan(source, module)
        codes |= found
        prefixes |= started
    return codes, prefixes


def test_the_scan_finds_codes_where_the_source_emits_them() -> None:
    source = '''
_UNGROUNDED = "golden_call_ungrounded"
_ERROR_KINDS = {"exception": "golden_call_error"}
def f(stage, result, check, n, kind):
    Finding(code="schema_invalid", message="a b")
    CheckCode(code="declared_only", family="f", meaning="m", example="e")
    Judgement(reason="no sub-question depends on another")
    Failure(reason=f"judge_{check.reason(result)}")
    Failure(reason=codes[0] if len(codes) == 1 else "verify_failed:" + ",".join(codes))
    stage.reject(n, "dependency_unmet", "detail")
    self._reject(stage, n, result.reason_code or "no_tasks", "")
    code = _ERROR_KINDS.get(kind, "crash")
    raise CodeProblem("forbidden_import", "no sockets")
def g(x):
    if x:
        return _UNGROUNDED, "feedback"
    return "hop_count", f"write {x}"
def h(x):
    """The reason code of x."""
    return "incoherent"
def language(x):
    return "ja"
'''
    codes, prefixes = scan(source)
    assert codes == {
        "golden_call_ungrounded", "golden_call_error", "schema_invalid", "verify_failed", "dependency_unmet", "no_tasks", "crash",
        "forbidden_import", "hop_count", "incoherent",
    }  # fmt: skip
    assert prefixes == {"judge_"}


def test_every_emitted_code_is_declared(emitted) -> None:
    catalogue = load_catalogue()
    codes, prefixes = emitted
    undeclared = sorted(c for c in codes if catalogue.find(c) is None)
    assert undeclared == [], "declare these codes beside their checks (a CheckCode in the module's CHECK_CODES)"
    declared = [e for c in catalogue.codes for e in [c.prefix, *catalogue.expand(c)]]
    assert sorted(p for p in prefixes if not any(d.startswith(p) for d in declared)) == []


def test_every_declared_code_is_emitted(emitted) -> None:
    codes, prefixes = emitted
    catalogue = load_catalogue()

    def emitted_somewhere(code: CheckCode) -> bool:
        if code.slot is not None:
            return code.prefix in prefixes or any(c in codes for c in catalogue.expand(code))
        return code.code in codes or any(code.code.startswith(p) for p in prefixes)

    assert [c.code for c in catalogue.codes if not emitted_somewhere(c)] == []


def _declaring_modules() -> set[str]:
    """The modules that declare codes: in a `<module>.codes.yaml` beside them, or as `CheckCode(code=...)` in their source."""
    in_files = {_module_name(p.with_name(p.name.removesuffix(".codes.yaml") + ".py")) for top in SCANNED for p in (REPO / top).rglob("*.codes.yaml")}
    in_source = {module for module, source in _sources().items() if re.search(r"\bCheckCode\(code=[\"']", source)}
    return in_files | in_source


def test_sources_name_every_declaring_module_and_its_declarations() -> None:
    assert _declaring_modules() == {module for module, _ in SOURCES}
    for module, codes in SOURCES:
        assert importlib.import_module(module).CHECK_CODES is codes, module


def test_the_sets_the_code_keeps_are_the_families_declarations() -> None:
    catalogue = load_catalogue()

    def family(name: str) -> set[str]:
        return {c.code for c in catalogue.family(name)}

    assert family("verify") == set(mcp_servers.FINDING_CODES)
    assert family("reply") == {*typing.get_args(ReasonCode), COPIED_EXAMPLE}
    assert family("meaning") == set(MEANING_CODES)
    assert family("sft_ingest") == set(typing.get_args(DropReason))
    assert family("corpus_audit") == set(typing.get_args(FindingKind))
    assert family("sft_judge") == {*Grounding.model_fields, "missing_dimension"}
    assert all(catalogue.family(name) for name in FAMILIES)


def test_the_text_checks_examples_fail_with_their_code() -> None:
    catalogue = load_catalogue()

    def tools(text: str) -> list[str]:
        return re.findall(r"\b[a-z]+_[a-z_]+\b", text)

    for code in catalogue.family("sft_request"):
        text = json.loads(code.example)
        assert (request_problem(text, tools(text)) or ("",))[0] == code.code, code
    for code in catalogue.family("sft_rollout"):
        if catalogue.modules[code.code] == "synth.sft._answer_shape" and code.code != "answer_cut_off":  # a budget, not a text
            text = json.loads(code.example)
            found = call_text_problem(text) if code.code == "text_beside_call" else final_answer_problem(text, tools(text))
            assert (found or ("",))[0] == code.code, code


def test_a_code_is_declared_once_in_a_known_family() -> None:
    first = CheckCode(code="no_json", family="reply", meaning="m", example="e")
    with pytest.raises(ValueError, match="declared in a and again in b"):
        Catalogue.build([("a", [first]), ("b", [first])], ["reply"])
    with pytest.raises(ValueError, match="unknown family"):
        Catalogue.build([("a", [CheckCode(code="judge_<verdict>", family="reply", meaning="m", example="e")])], ["reply"])


def test_templates_expand_and_joined_codes_are_found_by_their_first_part() -> None:
    catalogue = load_catalogue()
    judge = catalogue.find("judge_copied_example")
    assert judge is not None and judge.code == "judge_<reply>" and "judge_no_json" in catalogue.expand(judge)
    assert catalogue.find("verify_failed:answer_missing,timeout").code == "verify_failed"  # type: ignore[union-attr]
    assert catalogue.find("code_invalid").family == "verify" and catalogue.find("code_no_json").code == "code_<reply>"  # type: ignore[union-attr]
    assert catalogue.find("judge_maybe") is None


def test_the_docs_page_is_the_generated_one() -> None:
    committed = (REPO / "docs" / "checks.md").read_text(encoding="utf-8")
    assert committed == load_catalogue().markdown(), "regenerate it: astra checks --markdown > docs/checks.md"


def test_astra_checks_prints_a_family_and_the_docs_page() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["checks", "--family", "reply"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("reply: ") and "copied_example" in result.stdout and "schema_invalid" not in result.stdout
    page = runner.invoke(app, ["checks", "--markdown"])
    assert page.exit_code == 0 and page.stdout == load_catalogue().markdown()
    unknown = runner.invoke(app, ["checks", "--family", "nope"])
    assert unknown.exit_code != 0 and "families are verify" in unknown.output


def test_public_api() -> None:
    assert set(synth.catalogue.__all__) == {"FAMILIES", "SOURCES", "Catalogue", "load_catalogue"}
