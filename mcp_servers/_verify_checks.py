"""The static half of `verify`: finding codes, answer matching, lenient loading, perturbation.

Everything here is pure and synchronous; `_verify` drives the environment over MCP and
uses these helpers to judge what comes back (the tool module's static scan is `_verify_scan`).
"""

from __future__ import annotations

import json
import re
import unicodedata
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Literal

import jsonschema
from jsonschema.validators import validator_for
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mcp_servers._check_code import CheckCode
from mcp_servers._spec import (
    Environment,
    EnvSpec,
    _check_acyclic,
    format_validation_error,
)

FindingCode = Literal[
    "schema_invalid",
    "duplicate_tool_name",
    "golden_call_invalid_args",
    "golden_call_error",
    "answer_missing",
    "nondeterministic",
    "answer_not_distinctive",
    "timeout",
    "crash",
    "tool_missing",
    "signature_mismatch",
    "code_invalid",
    "output_too_large",
    "output_schema_mismatch",
    "verify_error",
]
"""Stable finding codes, each declared with its meaning and a failing example in `CHECK_CODES`
(`astra checks --family verify` prints them)."""

FINDING_CODES: tuple[str, ...] = FindingCode.__args__  # type: ignore[attr-defined]


CHECK_CODES: tuple[CheckCode, ...] = CheckCode.load_declarations(__name__)
"""Every finding code verify emits (`FindingCode`), declared for `synth.catalogue`."""


class Finding(BaseModel):
    """One problem verify found in an environment."""

    model_config = ConfigDict(frozen=True)

    code: FindingCode = Field(description="Stable finding code (see `FindingCode`).")
    subtask_id: str | None = Field(default=None, description="The subtask concerned, if any.")
    tool: str | None = Field(default=None, description="The tool concerned, if any.")
    message: str = Field(description="What is wrong, for a human.")


# --- answer matching -------------------------------------------------------------------

_NUMBER_GROUPED = re.compile(r"\d+(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?", re.ASCII)
_NUMBER_PLAIN = re.compile(r"\d+(?:\.\d+)?", re.ASCII)
_SPACE = re.compile(r"\s+")
_LOOSE_SPACE = re.compile(r"(?<=[\u3000-\u9fff\uac00-\ud7af])\s+|\s+(?=[\u3000-\u9fff\uac00-\ud7af°%])")
"""Spacing that carries no meaning: next to a CJK character ("2023 年 10 月" is "2023年10月") and before a degree or
percent sign ("-5 °C"). The teacher spaced its Chinese answers one way and its final answer the other."""
_GENERIC = frozenset({"yes", "no", "true", "false", "none", "null", "0", "1", "ok", "n/a", "na", "unknown", "error"})


def _canonical_number(match: re.Match[str]) -> str:
    try:
        value = Decimal(match.group(0).replace(",", ""))
    except InvalidOperation:
        return match.group(0)
    text = format(value.normalize(), "f")
    return text if "." not in text else text.rstrip("0").rstrip(".")


def _normalize(text: str, numbers: re.Pattern[str]) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    text = numbers.sub(_canonical_number, text)
    return _LOOSE_SPACE.sub("", _SPACE.sub(" ", text)).strip()


def normalize_answer(text: str) -> str:
    """Casefold, NFKC, collapsed whitespace and canonical numbers ("1,000.50" -> "1000.5", "3.0" -> "3")."""
    return _normalize(text, _NUMBER_GROUPED)


def _bounded(haystack: str, needle: str) -> bool:
    """`needle` occurs in `haystack` without splitting an ASCII word or number at either end."""
    start = haystack.find(needle)
    while start != -1:
        end = start + len(needle)
        before = haystack[start - 1] if start else ""
        after = haystack[end] if end < len(haystack) else ""
        ok_before = not (needle[0].isascii() and needle[0].isalnum() and before.isascii() and before.isalnum())
        ok_after = not (needle[-1].isascii() and needle[-1].isalnum() and after.isascii() and after.isalnum())
        if needle[-1].isdigit() and after == "." and haystack[end + 1 : end + 2].isdigit():
            ok_after = False
        if needle[0].isdigit() and before == "." and haystack[start - 2 : start - 1].isdigit():
            ok_before = False
        if ok_before and ok_after:
            return True
        start = haystack.find(needle, start + 1)
    return False


def answer_in_output(answer: str, output: str) -> bool:
    """Whether the normalized `answer` occurs in the normalized `output`.

    Numbers in the output are read both with and without thousands separators, so
    "1,000" matches "1000" while the JSON list "[1,200]" still contains "200". An ASCII
    word or number must match whole ("3" is not in "13"); CJK text matches anywhere.
    JSON text with `\\uXXXX` escapes is also read unescaped.
    """
    needle = normalize_answer(answer)
    if not needle:
        return False
    texts = [output]
    if "\\u" in output:  # a tool that returned JSON text with \uXXXX escapes: read it unescaped too
        try:
            texts.append(json.dumps(json.loads(output), ensure_ascii=False))
        except ValueError:
            pass
    return any(_bounded(_normalize(t, numbers), needle) for t in texts for numbers in (_NUMBER_GROUPED, _NUMBER_PLAIN))


def generic_answer_reason(answer: str) -> str | None:
    """Why `answer` is too short or generic to count as evidence, or None when it is fine."""
    norm = normalize_answer(answer)
    if len(norm) < 2:
        return f"answer {answer!r} is shorter than 2 characters after normalization"
    if norm in _GENERIC:
        return f"answer {answer!r} is a generic value that many outputs contain"
    return None


# --- lenient loading -------------------------------------------------------------------


class _LenientSpec(EnvSpec):
    """`EnvSpec` with field rules but without the cross-field invariants, so verify can
    classify each violated invariant under its own code instead of stopping at the first."""

    def _invariants(self) -> EnvSpec:  # type: ignore[override]
        return self


def spec_findings(spec: EnvSpec) -> list[Finding]:
    """Every violated invariant of DESIGN §2, each under its own code, plus verify's own
    rule that at least one subtask needs a tool (otherwise nothing would be checked)."""
    findings: list[Finding] = []
    names = [t.name for t in spec.tools]
    for name in sorted({n for n in names if names.count(n) > 1}):
        findings.append(Finding(code="duplicate_tool_name", tool=name, message=f"{names.count(name)} tools are named {name!r}"))
    ids = [s.id for s in spec.subtasks]
    for sid in sorted({i for i in ids if ids.count(i) > 1}):
        findings.append(Finding(code="schema_invalid", subtask_id=sid, message=f"duplicate subtask id {sid!r}"))
    known = set(ids)
    dag_ok = True
    for s in spec.subtasks:
        missing = [d for d in s.depends_on if d not in known]
        if missing:
            dag_ok = False
            findings.append(Finding(code="schema_invalid", subtask_id=s.id, message=f"depends on unknown subtask(s) {missing}"))
    if dag_ok:
        try:
            _check_acyclic(spec.subtasks)
        except ValueError as exc:
            findings.append(Finding(code="schema_invalid", message=str(exc)))
    if not any(s.needs_tool for s in spec.subtasks):
        findings.append(Finding(code="schema_invalid", message="no subtask needs a tool, so there is nothing to verify"))
    parents = {d for s in spec.subtasks for d in s.depends_on}
    for s in spec.subtasks:
        if s.id in parents and not s.needs_tool:
            findings.append(Finding(code="schema_invalid", subtask_id=s.id, message="has dependents, so needs_tool must be true"))
        if s.needs_tool and s.golden_call is None:
            findings.append(Finding(code="schema_invalid", subtask_id=s.id, message="needs a tool but has no golden_call"))
        if s.golden_call is None:
            continue
        tool = spec.tool(s.golden_call.tool)
        if tool is None:
            findings.append(Finding(code="schema_invalid", subtask_id=s.id, tool=s.golden_call.tool,
                                    message=f"golden_call names unknown tool {s.golden_call.tool!r}"))
            continue
        error = jsonschema.exceptions.best_match(validator_for(tool.input_schema)(tool.input_schema).iter_errors(s.golden_call.arguments))
        if error is not None:
            where = "/".join(str(p) for p in error.absolute_path)
            findings.append(Finding(code="golden_call_invalid_args", subtask_id=s.id, tool=tool.name,
                                    message=f"arguments{' at ' + where if where else ''}: {error.message}"))
    return findings


def load_lenient(directory: Path) -> tuple[Environment | None, list[Finding]]:
    """Load `directory` for verification.

    Returns the environment (None when nothing can run) and the spec findings. An
    environment whose only defects are invalid golden-call arguments is still returned,
    so the server's own argument check can be observed too.
    """
    spec_path = directory / "env.json"
    try:
        raw = json.loads(spec_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None, [Finding(code="schema_invalid", message=f"{spec_path}: not found (give an environment directory "
                                                            "or a directory of them)")]
    except (OSError, UnicodeDecodeError) as exc:
        return None, [Finding(code="schema_invalid", message=f"{spec_path}: unreadable: {exc}")]
    except json.JSONDecodeError as exc:
        return None, [Finding(code="schema_invalid", message=f"{spec_path}: line {exc.lineno} column {exc.colno}: {exc.msg}")]
    if not isinstance(raw, dict):
        return None, [Finding(code="schema_invalid", message=f"{spec_path}: expected a JSON object")]
    try:
        lenient = _LenientSpec.model_validate(raw)
    except ValidationError as exc:
        return None, [Finding(code="schema_invalid", message=format_validation_error(spec_path, exc))]
    findings = spec_findings(lenient)
    if not findings:
        try:  # fail closed: EnvSpec's own invariants must agree that nothing is wrong
            EnvSpec._invariants(lenient)
        except ValueError as exc:
            return None, [Finding(code="schema_invalid", message=f"{spec_path}: {exc}")]
    spec: EnvSpec = lenient
    entry = directory / spec.entry
    try:
        code = entry.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, [*findings, Finding(code="schema_invalid", message=f"{spec_path}: entry: cannot read {entry}: {exc}")]
    if not all(f.code == "golden_call_invalid_args" for f in findings):
        return None, findings
    # model_construct: Environment would re-run the invariants this lenient spec skips.
    return Environment.model_construct(spec=spec, code=code, path=directory), findings


# --- call order and perturbation -------------------------------------------------------


def _shift_char(ch: str) -> str:
    if "a" <= ch <= "z":
        return chr((ord(ch) - ord("a") + 1) % 26 + ord("a"))
    if "A" <= ch <= "Z":
        return chr((ord(ch) - ord("A") + 1) % 26 + ord("A"))
    if "0" <= ch <= "9":
        return str((int(ch) + 1) % 10)
    return chr(ord(ch) + 1)


def _string_variants(value: str) -> list[str]:
    variants = []
    digits = list(re.finditer(r"\d+", value, re.ASCII))
    if digits:
        m = digits[-1]
        variants.append(value[: m.start()] + str(int(m.group()) + 1).zfill(len(m.group())) + value[m.end() :])
    alnum = [i for i, ch in enumerate(value) if ch.isalnum()]
    if alnum:
        i = alnum[-1]
        variants.append(value[:i] + _shift_char(value[i]) + value[i + 1 :])
    return [*variants, value + "x", "zz" + value, "unknown"]


def _value_variants(value: Any, prop: dict[str, Any], siblings: list[Any]) -> list[Any]:
    candidates: list[Any] = [s for s in siblings if s != value]
    candidates += [e for e in prop.get("enum", []) if e != value]
    if isinstance(value, bool):
        candidates.append(not value)
    elif isinstance(value, int):
        candidates += [value + 1, value - 1]
    elif isinstance(value, float):
        candidates += [value + 1, value - 1, value * 2]
    elif isinstance(value, str):
        candidates += _string_variants(value)
    elif isinstance(value, list) and value:
        candidates += [value[:-1], value[1:]]
    return candidates


def perturbations(arguments: dict[str, Any], schema: dict[str, Any], siblings: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """Schema-valid variants of a golden call, each changing one argument.

    Only required arguments are varied (optional ones tend to be formatting knobs), or
    every given argument when none is required. Sibling values — the same argument in
    other golden calls of the same tool — are tried first: they are realistic inputs.

    Returns:
        `(argument name, new arguments)` pairs, at most one per argument.
    """
    validator = validator_for(schema)(schema)
    props = schema.get("properties", {}) if isinstance(schema.get("properties"), dict) else {}
    required = [k for k in schema.get("required", []) if k in arguments]
    names = required or list(arguments)
    out = []
    for name in names:
        others = [s[name] for s in siblings if name in s]
        prop = props.get(name, {}) if isinstance(props.get(name), dict) else {}
        for candidate in _value_variants(arguments[name], prop, others):
            variant = {**arguments, name: candidate}
            if candidate != arguments[name] and validator.is_valid(variant):
                out.append((name, variant))
                break
    return out
