"""Repair of almost-JSON tool arguments, recording every fix applied.

Small models write arguments with single quotes, trailing commas, unquoted keys, Python
literals (`True`, `None`), comments (`// the id from the search`), double every brace as a prompt's format string showed them
(`{{"name": ...}}`), or cut off before the closing braces. A character scanner rewrites
those into JSON, string-aware (a quote inside a string is never touched), and names each fix
so trajectories can count repairs.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["loads_repaired"]

_PYTHON_LITERALS = {"True": "true", "False": "false", "None": "null"}
_JSON_LITERALS = {"true", "false", "null"}


def loads_repaired(text: str) -> tuple[Any, list[str]]:
    """Parse `text` as JSON, repairing it if needed.

    Returns:
        The parsed value and the names of the fixes applied (empty when `text` was JSON).

    Raises:
        ValueError: when the text cannot be parsed even after repair.
    """
    try:
        return json.loads(text, strict=False), []
    except json.JSONDecodeError:
        pass
    fixes: list[str] = []
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    body = text
    if start > 0:
        body = text[start:]
        fixes.append("surrounding_text")
    body = body.strip()
    try:
        value, _ = json.JSONDecoder(strict=False).raw_decode(body)
    except json.JSONDecodeError:
        pass
    else:
        return value, ["surrounding_text"]
    if body.startswith("{{"):
        # A prompt's format string taught the model to double its braces (`{{"name": ...}}`).
        body = _single_braces(body)
        fixes.append("doubled_braces")
        try:
            value, end = json.JSONDecoder(strict=False).raw_decode(body)
        except json.JSONDecodeError:
            pass
        else:
            return value, fixes + (["surrounding_text"] if body[end:].strip() else [])
    repaired, scan_fixes = _rewrite(body)
    fixes.extend(scan_fixes)
    try:
        value, end = json.JSONDecoder(strict=False).raw_decode(repaired)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON even after repair ({', '.join(fixes) or 'no fix applied'}): {exc}") from exc
    if repaired[end:].strip():
        fixes.append("surrounding_text")
    return value, sorted(set(fixes), key=fixes.index)


def _single_braces(text: str) -> str:
    """`text` with each `{{` and `}}` outside string literals made one brace."""
    out: list[str] = []
    i, n, quote = 0, len(text), ""
    while i < n:
        ch = text[i]
        if quote:
            out.append(ch)
            if ch == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
            out.append(ch)
        elif ch in "{}" and i + 1 < n and text[i + 1] == ch:
            out.append(ch)
            i += 1
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def _rewrite(text: str) -> tuple[str, list[str]]:
    """One pass over `text` producing JSON-compatible text and the list of fixes made."""
    out: list[str] = []
    fixes: list[str] = []
    closers: list[str] = []
    i, n = 0, len(text)

    def fix(name: str) -> None:
        if name not in fixes:
            fixes.append(name)

    def drop_trailing_comma() -> None:
        while out and out[-1].isspace():
            out.pop()
        if out and out[-1] == ",":
            out.pop()
            fix("trailing_commas")

    while i < n:
        ch = text[i]
        if ch in "\"'":
            literal, i, closed = _read_string(text, i)
            if ch == "'":
                fix("single_quotes")
            if not closed:
                fix("truncated")
            out.append(literal)
        elif text.startswith("//", i) or text.startswith("/*", i):
            # a comment after a value (`"12345"  // the id search returned`): code-style JSON
            close = "\n" if text[i + 1] == "/" else "*/"
            end = text.find(close, i + 2)
            i = n if end < 0 else end + (len(close) if close == "*/" else 0)
            fix("comments")
        elif ch in "{[":
            closers.append("}" if ch == "{" else "]")
            out.append(ch)
            i += 1
        elif ch in "}]":
            drop_trailing_comma()
            if closers and closers[-1] == ch:
                closers.pop()
                out.append(ch)
            else:
                fix("unbalanced_brackets")
            i += 1
        elif ch.isalpha() or ch == "_":
            j = i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            word = text[i:j]
            k = j
            while k < n and text[k].isspace():
                k += 1
            if word in _PYTHON_LITERALS and not (k < n and text[k] == ":"):
                out.append(_PYTHON_LITERALS[word])
                fix("python_literals")
            elif word in _JSON_LITERALS and not (k < n and text[k] == ":"):
                out.append(word)
            elif k < n and text[k] == ":":
                out.append(json.dumps(word))
                fix("unquoted_keys")
            else:
                out.append(json.dumps(word))
                fix("bare_words")
            i = j
        else:
            out.append(ch)
            i += 1
    if closers:
        drop_trailing_comma()
        while out and out[-1].isspace():
            out.pop()
        if out and out[-1] == ":":
            out.append("null")
        out.extend(reversed(closers))
        fix("truncated")
    return "".join(out), fixes


def _read_string(text: str, start: int) -> tuple[str, int, bool]:
    """Read the string literal opening at `start`; return it double-quoted, the next index, and whether it closed."""
    quote = text[start]
    buf: list[str] = []
    j, n = start + 1, len(text)
    while j < n:
        c = text[j]
        if c == "\\" and j + 1 < n:
            nxt = text[j + 1]
            buf.append("'" if (quote == "'" and nxt == "'") else c + nxt)
            j += 2
            continue
        if c == quote:
            return '"' + "".join(buf) + '"', j + 1, True
        buf.append('\\"' if c == '"' else c)
        j += 1
    if buf and buf[-1] == "\\":
        buf.pop()
    return '"' + "".join(buf) + '"', n, False
