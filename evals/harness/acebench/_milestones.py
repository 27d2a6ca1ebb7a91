"""Agent categories' gold milestones: parsing (with the data's quoting slips repaired) and validity.

A milestone is a bracketed list of keyword calls, `[f(a=1), g(b='x')]`; an entry holds one
gold path (a list of milestones) or several alternative paths (a list of such lists). Some
milestones are not valid Python as written: apostrophes inside single-quoted strings are
unescaped (`'Domino's'`, `'Today's spending'`). They are repaired by escaping a quote that
does not end its string (one not followed by `,`, `)`, `]`, `}` or `:`), and counted and
listed as repaired rather than hidden.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from harness.acebench._checker import parse_calls
from harness.acebench._data import AceEntry

__all__ = ["InvalidMilestone", "MilestoneReport", "gold_paths", "milestone_report", "parse_milestone"]

Call = tuple[str, dict[str, Any]]


def _escape_stray_quotes(text: str) -> str:
    out: list[str] = []
    quote: str | None = None
    i = 0
    while i < len(text):
        ch = text[i]
        if quote is None:
            quote = ch if ch in "'\"" else None
        elif ch == "\\":
            out.append(text[i : i + 2])
            i += 2
            continue
        elif ch == quote:
            rest = text[i + 1 :].lstrip()
            if rest and rest[0] not in ",)]}:":
                ch = "\\" + ch
            else:
                quote = None
        out.append(ch)
        i += 1
    return "".join(out)


def parse_milestone(text: Any) -> tuple[list[Call], bool] | None:
    """The calls of one milestone and whether its quoting had to be repaired; None if unparseable."""
    if not isinstance(text, str):
        return None
    calls = parse_calls(text)
    if calls:
        return calls, False
    repaired = parse_calls(_escape_stray_quotes(text))
    return (repaired, True) if repaired else None


def gold_paths(entry: AceEntry) -> list[list[Any]]:
    """The entry's alternative gold paths, each a list of milestone strings."""
    nested = bool(entry.milestones) and all(isinstance(m, list) for m in entry.milestones)
    return [list(p) for p in entry.milestones] if nested else [list(entry.milestones)]


class InvalidMilestone(BaseModel):
    """A milestone that is not a valid call of its entry's functions as written."""

    entry: str
    path: int = Field(description="Which alternative path (0 when the entry has one).")
    index: int
    milestone: str
    reason: str
    repaired: bool = Field(default=False, description="Whether escaping stray quotes makes it a valid call.")


class MilestoneReport(BaseModel):
    """Milestone validity over the entries of one agent category."""

    category: str
    entries: int = 0
    milestones: int = 0
    valid: int = 0
    repaired: int = Field(default=0, description="Invalid as written, valid once stray quotes are escaped.")
    valid_paths: int = Field(default=0, description="Entries with at least one path whose every milestone is a valid call.")
    invalid: list[InvalidMilestone] = Field(default_factory=list)


def _problem(calls: list[Call], docs: dict[str, dict[str, Any]]) -> str | None:
    for name, args in calls:
        doc = docs.get(name)
        if doc is None:
            return f"unknown function {name!r}"
        params = doc.get("parameters") or {}
        missing = [p for p in params.get("required", []) if p not in args]
        unknown = [a for a in args if a not in (params.get("properties") or {})]
        if missing:
            return f"{name}: missing required {missing}"
        if unknown:
            return f"{name}: unknown parameters {unknown}"
    return None


def milestone_report(category: str, entries: Sequence[AceEntry]) -> MilestoneReport:
    """Count valid milestones and fully valid gold paths; list every invalid milestone."""
    report = MilestoneReport(category=category, entries=len(entries))
    for entry in entries:
        docs = {f["name"]: f for f in entry.functions}
        any_ok = False
        for number, path in enumerate(gold_paths(entry)):
            path_ok = True
            for index, milestone in enumerate(path):
                report.milestones += 1
                parsed = parse_milestone(milestone)
                if parsed is None:
                    reason, repaired = "not parseable as a bracketed list of keyword calls", False
                else:
                    calls, quoting = parsed
                    reason = _problem(calls, docs)
                    if reason is None and not quoting:
                        report.valid += 1
                        continue
                    repaired = reason is None
                    reason = reason or "unescaped quote inside a string"
                report.repaired += repaired
                path_ok = False
                report.invalid.append(InvalidMilestone(entry=entry.id, path=number, index=index,
                                                       milestone=str(milestone), reason=reason, repaired=repaired))
            any_ok = any_ok or path_ok
        report.valid_paths += any_ok
    return report
