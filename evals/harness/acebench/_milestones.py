"""Agent categories: which gold milestones are valid calls of the entry's functions.

ACEBench's agent scenario classes are not part of its data, so this harness does not execute
agent episodes; it reports how many gold milestone paths are well-formed call sequences
(parseable, known function, required parameters present, no unknown parameters), and lists
the ones that are not, instead of silently skipping them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from harness.acebench._checker import parse_calls
from harness.acebench._data import AceEntry

__all__ = ["InvalidMilestone", "MilestoneReport", "milestone_report"]


class InvalidMilestone(BaseModel):
    """A milestone that is not a valid call of its entry's functions."""

    entry: str
    path: int = Field(description="Which alternative path (0 when the entry has one).")
    index: int
    milestone: str
    reason: str


class MilestoneReport(BaseModel):
    """Milestone validity over the entries of one agent category."""

    category: str
    entries: int = 0
    milestones: int = 0
    valid: int = 0
    valid_paths: int = Field(default=0, description="Entries with at least one path whose every milestone is a valid call.")
    invalid: list[InvalidMilestone] = Field(default_factory=list)


def _problem(milestone: Any, docs: dict[str, dict[str, Any]]) -> str | None:
    if not isinstance(milestone, str):
        return f"not a call string: {type(milestone).__name__}"
    calls = parse_calls(milestone)
    if not calls:
        return "not parseable as a bracketed list of keyword calls"
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
        nested = bool(entry.milestones) and all(isinstance(m, list) for m in entry.milestones)
        paths = entry.milestones if nested else [entry.milestones]
        any_ok = False
        for number, path in enumerate(paths):
            path_ok = True
            for index, milestone in enumerate(path):
                report.milestones += 1
                reason = _problem(milestone, docs)
                if reason is None:
                    report.valid += 1
                    continue
                path_ok = False
                report.invalid.append(
                    InvalidMilestone(entry=entry.id, path=number, index=index, milestone=str(milestone), reason=reason)
                )
            any_ok = any_ok or path_ok
        report.valid_paths += any_ok
    return report
