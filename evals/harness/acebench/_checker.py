"""Parse prompt-format function calls and check them against ACEBench's possible answers.

Output format (ACEBench's prompt convention): a bracketed list of Python-style calls,
`[Api_a(x=1, y='b'), Api_b(z=[1, 2])]`. Rules, as the data implies them:

- normal: the possible answer maps each expected function to its arguments; a name may
  carry a `_<n>` suffix when the same function is called several times (parallel calls);
  a list of such maps holds alternatives (any one suffices). The output must make exactly
  the expected calls (any order), each with exactly the expected parameter names, each
  value of the type its schema declares (or of the possible answer's own type) and equal to the expected value (strings compared
  case- and punctuation-insensitively, numbers numerically, lists in order, objects key by key).
- special_irrelevant: no call at all.
- special_incomplete: no call, and every missing parameter named in the reply.
- special_error_param: no call, and every wrong value quoted in the reply.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

__all__ = ["CheckResult", "check_output", "parse_calls", "render_answer"]

_SUFFIX = re.compile(r"_\d+$")
_LITERAL_NAMES = {"true": True, "false": False, "null": None, "True": True, "False": False, "None": None}
_JSON_TYPES = {"string": (str,), "integer": (int,), "number": (int, float), "float": (int, float),
               "boolean": (bool,), "array": (list, tuple), "object": (dict,), "dict": (dict,)}


class CheckResult(BaseModel):
    """The verdict on one output, with the reason when it fails."""

    ok: bool
    error: str | None = None


def _value(node: ast.AST) -> Any:
    if isinstance(node, ast.Name) and node.id in _LITERAL_NAMES:
        return _LITERAL_NAMES[node.id]
    if isinstance(node, ast.List | ast.Tuple):
        return [_value(e) for e in node.elts]
    if isinstance(node, ast.Dict):
        return {_value(k): _value(v) for k, v in zip(node.keys, node.values, strict=True) if k is not None}
    return ast.literal_eval(node)


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_name(node.value)}.{node.attr}"
    raise ValueError("call target is not a name")


def parse_calls(text: str) -> list[tuple[str, dict[str, Any]]] | None:
    """The calls in `text` (first bracketed list of calls), or None when there is none.

    Positional arguments make the output unparseable (the format is keyword-only).
    """
    start = text.find("[")
    while start != -1:
        end = text.rfind("]")
        while end > start:
            try:
                node = ast.parse(text[start : end + 1].strip(), mode="eval").body
            except SyntaxError:
                end = text.rfind("]", start, end)
                continue
            if isinstance(node, ast.List) and node.elts and all(isinstance(e, ast.Call) for e in node.elts):
                try:
                    return [
                        (_name(c.func), {k.arg: _value(k.value) for k in c.keywords if k.arg is not None})
                        for c in node.elts if not c.args
                    ] if all(not c.args for c in node.elts) else None
                except (ValueError, SyntaxError):
                    return None
            break
        start = text.find("[", start + 1)
    return None


def _norm(text: str) -> str:
    return re.sub(r"[\s,./\-_*^'\"()!?:;]", "", text).casefold()


def _type_ok(value: Any, schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    if not isinstance(kind, str) or kind not in _JSON_TYPES:
        return True
    if isinstance(value, bool) and kind not in {"boolean"}:
        return False
    return isinstance(value, _JSON_TYPES[kind])


def _equal(got: Any, want: Any, schema: dict[str, Any], path: str) -> str | None:
    # The possible answer outranks the schema: two answers in the data give a value of another
    # type than declared (an object for an array, null for a string); the same type is accepted.
    if not _type_ok(got, schema) and type(got) is not type(want):
        return f"{path}: expected type {schema.get('type')}, got {type(got).__name__} {got!r}"
    if isinstance(want, dict) and isinstance(got, dict):
        if set(got) != set(want):
            return f"{path}: keys {sorted(got)} != expected {sorted(want)}"
        props = schema.get("properties") or {}
        for key in want:
            if (err := _equal(got[key], want[key], props.get(key, {}), f"{path}.{key}")) is not None:
                return err
        return None
    if isinstance(want, list) and isinstance(got, list | tuple):
        if len(got) != len(want):
            return f"{path}: {len(got)} items, expected {len(want)}"
        items = schema.get("items") or {}
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            if (err := _equal(g, w, items, f"{path}[{i}]")) is not None:
                return err
        return None
    if isinstance(want, str) and isinstance(got, str):
        return None if _norm(got) == _norm(want) else f"{path}: {got!r} != expected {want!r}"
    if isinstance(want, bool) or isinstance(got, bool):
        return None if got is want else f"{path}: {got!r} != expected {want!r}"
    if isinstance(want, int | float) and isinstance(got, int | float):
        return None if float(got) == float(want) else f"{path}: {got!r} != expected {want!r}"
    return None if got == want else f"{path}: {got!r} != expected {want!r}"


def _base_name(name: str, docs: dict[str, Any]) -> str:
    """`name` without the `_<n>` repeat suffix, unless the suffixed name is itself a function."""
    return name if name in docs else _SUFFIX.sub("", name)


def _match_one(calls: list[tuple[str, dict[str, Any]]], answer: dict[str, Any], docs: dict[str, dict[str, Any]]) -> str | None:
    expected = [(_base_name(k, docs), v) for k, v in answer.items()]
    if len(calls) != len(expected):
        return f"{len(calls)} calls, expected {len(expected)}"
    remaining = list(calls)
    for name, want in expected:
        schema = (docs.get(name) or {}).get("parameters") or {}
        errors = []
        for index, (got_name, got_args) in enumerate(remaining):
            if got_name != name:
                continue
            err = _equal(got_args, want, {**schema, "type": "object"}, name)
            if err is None:
                del remaining[index]
                break
            errors.append(err)
        else:
            return errors[0] if errors else f"no call to {name}"
    return None


def check_output(category: str, text: str, ground_truth: Any, functions: Sequence[dict[str, Any]]) -> CheckResult:
    """Check a model's reply for one entry of `category` against its possible answer."""
    calls = parse_calls(text)
    if category.startswith("special_"):
        if calls:
            return CheckResult(ok=False, error=f"made calls {[c[0] for c in calls]} where none should be made")
        folded = text.casefold()
        if category == "special_incomplete":
            missing = [p for params in ground_truth.values() for p in params if p.casefold() not in folded]
            return CheckResult(ok=not missing, error=f"did not name missing parameters {missing}" if missing else None)
        if category == "special_error_param":
            unquoted = [str(v) for vals in ground_truth.values() for v in vals if str(v).casefold() not in folded]
            return CheckResult(ok=not unquoted, error=f"did not point out values {unquoted}" if unquoted else None)
        return CheckResult(ok=True)
    if not calls:
        return CheckResult(ok=False, error="no parseable function call in the reply")
    docs = {f["name"]: f for f in functions}
    alternatives = ground_truth if isinstance(ground_truth, list) else [ground_truth]
    errors = [_match_one(calls, answer, docs) for answer in alternatives]
    if any(e is None for e in errors):
        return CheckResult(ok=True)
    return CheckResult(ok=False, error=errors[0])


def render_answer(category: str, ground_truth: Any, functions: Sequence[dict[str, Any]]) -> str:
    """A reply that states the possible answer in the output format (for the integrity test)."""
    if category == "special_irrelevant":
        return str(ground_truth)
    if category == "special_incomplete":
        return " ".join(f"Missing necessary parameters ({', '.join(ps)}) for the api ({name})" for name, ps in ground_truth.items())
    if category == "special_error_param":
        return " ".join(f"There is incorrect value ({', '.join(map(str, vs))}) for the parameters ({p}) in the conversation history."
                        for p, vs in ground_truth.items())
    answer = ground_truth[0] if isinstance(ground_truth, list) else ground_truth
    docs = {f["name"]: f for f in functions}
    calls = [f"{_base_name(name, docs)}({', '.join(f'{k}={v!r}' for k, v in args.items())})" for name, args in answer.items()]
    return "[" + ", ".join(calls) + "]"
