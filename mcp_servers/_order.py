"""Dependency order of subtasks: the one order verify, cold starts and the importer replay golden calls in.

`dependency_order` puts each item after the items it depends on, otherwise keeping the given
order; `dependency_levels` groups items by depth (level 0 depends on nothing; an item sits one
level above its deepest dependency), so the items of one level are independent of each other and
their calls can be made in one turn. `golden_order` and `golden_levels` are the same over an
`EnvSpec`'s subtasks, keeping only those with a golden call. `dependency_scenario` names the
task scenario a DAG's shape implies (one hop, hops side by side, in sequence, or both), for
synthesized and imported environments alike.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Protocol, TypeVar

from mcp_servers._spec import EnvSpec, Scenario, Subtask

__all__ = ["Dependent", "dependency_depths", "dependency_levels", "dependency_order", "dependency_scenario", "golden_levels", "golden_order"]


class Dependent(Protocol):
    """Anything with an id and the ids it depends on (a `Subtask`, an importer's parsed sub-question)."""

    @property
    def id(self) -> str: ...

    @property
    def depends_on(self) -> Sequence[str]: ...


D = TypeVar("D", bound=Dependent)


def dependency_order(items: Sequence[D]) -> list[D]:
    """`items` with every one after its dependencies, otherwise in the given order.

    Never raises: an item whose dependencies are missing or cyclic is taken in the given order
    when nothing else is ready (an importer reports such rows rather than dropping them).
    """
    done: set[str] = set()
    pending = list(items)
    order: list[D] = []
    while pending:
        ready = next((s for s in pending if all(d in done for d in s.depends_on)), pending[0])
        pending.remove(ready)
        done.add(ready.id)
        order.append(ready)
    return order


def dependency_depths(items: Sequence[D]) -> dict[str, int]:
    """Each item's level by id (0: depends on nothing), in `dependency_order`; a missing dependency counts as level -1.

    Never raises, like `dependency_order`: an importer scores rows it will then report.
    """
    level: dict[str, int] = {}
    for item in dependency_order(items):
        level[item.id] = 1 + max((level.get(d, -1) for d in item.depends_on), default=-1)
    return level


def dependency_scenario(items: Sequence[D]) -> Scenario:
    """The scenario a dependency DAG's shape implies: one item, items side by side, a chain, or a chain with a level of several."""
    if len(items) <= 1:
        return "single_hop"
    depths = dependency_depths(items)
    if max(depths.values()) == 0:
        return "parallel_single_hop"
    return "parallel_multi_hop" if max(Counter(depths.values()).values()) > 1 else "multi_hop"


def dependency_levels(items: Sequence[D]) -> list[list[D]]:
    """`items` grouped by dependency level, the given order kept within a level.

    Raises:
        ValueError: for dependencies that are missing or cyclic (a validated `EnvSpec` has none).
    """
    level: dict[str, int] = {}
    pending = list(items)
    while pending:
        ready = [s for s in pending if all(d in level for d in s.depends_on)]
        if not ready:
            raise ValueError(f"items {[s.id for s in pending]} depend on missing or cyclic items")
        for item in ready:
            level[item.id] = 1 + max((level[d] for d in item.depends_on), default=-1)
            pending.remove(item)
    levels: list[list[D]] = [[] for _ in range(1 + max(level.values(), default=-1))]
    for item in items:
        levels[level[item.id]].append(item)
    return levels


def golden_order(spec: EnvSpec) -> list[Subtask]:
    """Subtasks with golden calls, dependencies first, otherwise in spec order."""
    return [s for s in dependency_order(spec.subtasks) if s.golden_call is not None]


def golden_levels(spec: EnvSpec) -> list[list[Subtask]]:
    """Subtasks with golden calls grouped by dependency level (spec order within a level; empty levels dropped).

    Levels count every subtask, so a subtask without a golden call still places what depends on it.
    """
    levels = [[s for s in level if s.golden_call is not None] for level in dependency_levels(spec.subtasks)]
    return [level for level in levels if level]
