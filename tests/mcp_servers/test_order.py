"""The dependency order's scenario names: one function for synthesized and imported environments."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from mcp_servers import dependency_depths, dependency_scenario


@dataclass
class Item:
    id: str
    depends_on: list[str] = field(default_factory=list)


@pytest.mark.parametrize(
    ("items", "scenario"),
    [
        ([Item("a")], "single_hop"),
        ([Item("a"), Item("b")], "parallel_single_hop"),
        ([Item("b", ["a"]), Item("a")], "multi_hop"),
        ([Item("a"), Item("b"), Item("c", ["a", "b"])], "parallel_multi_hop"),
        ([Item("a"), Item("b", ["a"]), Item("c", ["a"])], "parallel_multi_hop"),
    ],
)
def test_the_scenario_follows_the_dags_shape(items: list[Item], scenario: str) -> None:
    assert dependency_scenario(items) == scenario


def test_depths_tolerate_a_missing_dependency_as_an_importer_needs() -> None:
    assert dependency_depths([Item("b", ["a"]), Item("c", ["gone"])]) == {"b": 0, "c": 0}
    assert dependency_depths([Item("b", ["a"]), Item("a")]) == {"a": 0, "b": 1}
