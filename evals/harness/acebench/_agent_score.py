"""Agent categories' scores, and the gold replay that checks the executors against the data.

- End-state accuracy: after the episode, every class in the gold end state must hold exactly
  the gold attributes (numbers compared numerically, so 500 == 500.0).
- Process accuracy: the share of a gold path's milestones the episode achieved, in order: a
  milestone counts when all its calls appear among the episode's successful calls after
  the previous milestone's; the best alternative path counts. Unparseable milestones stay
  in the denominator.
- Gold replay (integrity): each gold path is played through the MCP exposure on fresh
  scenario state; an entry reproduces when one of its paths ends in the gold end state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from agent_sdk import Toolbox
from harness.acebench._agent_env import AgentEpisode, ExecutedCall, canonical_class
from harness.acebench._data import AceEntry
from harness.acebench._milestones import gold_paths, parse_milestone

__all__ = ["EntryReplay", "ReplayReport", "end_state_mismatches", "process_accuracy", "replay_gold_paths"]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return abs(a - b) < 1e-9
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, str) and isinstance(b, str):
        return a.strip() == b.strip()
    return a == b


def _differences(expected: Any, actual: Any, where: str) -> list[str]:
    if isinstance(expected, dict) and isinstance(actual, dict):
        out = [f"{where}.{k}: missing" for k in expected if k not in actual]
        out += [f"{where}.{k}: unexpected {actual[k]!r}" for k in actual if k not in expected]
        return out + [d for k in expected if k in actual for d in _differences(expected[k], actual[k], f"{where}.{k}")]
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        return [d for i, (e, a) in enumerate(zip(expected, actual, strict=True)) for d in _differences(e, a, f"{where}[{i}]")]
    return [] if _same(expected, actual) else [f"{where}: expected {expected!r}, got {actual!r}"]


def end_state_mismatches(entry: AceEntry, state: dict[str, dict[str, Any]]) -> list[str]:
    """What differs between `state` (class -> attributes) and the entry's gold end state; empty when equal."""
    problems = []
    gold = entry.ground_truth if isinstance(entry.ground_truth, list) else [entry.ground_truth]
    for block in gold:
        for written, attributes in block.items():
            name = canonical_class(written)
            actual = state.get(name)
            if actual is None:
                problems.append(f"{written}: class not in the episode")
                continue
            problems += [d for key, value in attributes.items() for d in _differences(value, actual.get(key), f"{written}.{key}")]
    return problems


def _path_progress(path: Sequence[Any], done: Sequence[tuple[str, dict[str, Any]]]) -> int:
    position, matched = 0, 0
    for milestone in path:
        parsed = parse_milestone(milestone)
        if parsed is None:
            continue
        found, end = True, position
        for name, args in parsed[0]:
            at = next((i for i in range(position, len(done)) if done[i][0] == name and _same(done[i][1], args)), None)
            if at is None:
                found = False
                break
            end = max(end, at + 1)
        if found:
            matched, position = matched + 1, end
    return matched


def process_accuracy(entry: AceEntry, calls: Sequence[ExecutedCall]) -> float:
    """The best gold path's share of milestones achieved in order by the successful `calls`."""
    done = [(c.name, c.arguments) for c in calls if c.ok]
    best = 0.0
    for path in gold_paths(entry):
        if path:
            best = max(best, _path_progress(path, done) / len(path))
    return best


class EntryReplay(BaseModel):
    """Gold replay of one entry: whether a path reproduced the gold end state, and why not."""

    entry: str
    reproduced: bool
    paths: int
    failed_calls: list[str] = Field(default_factory=list, description="Gold calls the executors refused (first path).")
    mismatches: list[str] = Field(default_factory=list, description="End-state differences (first path).")


class ReplayReport(BaseModel):
    """Gold replay over one agent category."""

    category: str
    entries: list[EntryReplay] = Field(default_factory=list)

    @property
    def reproduced(self) -> int:
        """Entries whose gold end state a gold path reproduces."""
        return sum(e.reproduced for e in self.entries)


async def _replay_path(entry: AceEntry, path: Sequence[Any]) -> tuple[list[str], list[str]]:
    episode = AgentEpisode(entry)
    failed = []
    async with Toolbox(episode.server) as toolbox:
        for milestone in path:
            parsed = parse_milestone(milestone)
            if parsed is None:
                failed.append(f"unparseable milestone {milestone!r}")
                continue
            for name, args in parsed[0]:
                result = await toolbox.call_tool(name, args)
                if not result.ok:
                    failed.append(f"{name}({args}): {result.observation()[:200]}")
    return failed, end_state_mismatches(entry, episode.end_state())


async def replay_gold_paths(category: str, entries: Sequence[AceEntry]) -> ReplayReport:
    """Replay every gold path of every entry through the MCP exposure and compare end states."""
    report = ReplayReport(category=category)
    for entry in entries:
        paths = gold_paths(entry)
        outcomes = [await _replay_path(entry, path) for path in paths]
        reproduced = any(not mismatches for _, mismatches in outcomes)
        failed, mismatches = outcomes[0]
        report.entries.append(EntryReplay(entry=entry.id, reproduced=reproduced, paths=len(paths),
                                          failed_calls=[] if reproduced else failed,
                                          mismatches=[] if reproduced else mismatches))
    return report
