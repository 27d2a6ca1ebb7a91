"""What every ACEBench agent scenario class shares: compared state, overrides, failures."""

from __future__ import annotations

import copy
from typing import Any, ClassVar

__all__ = ["Scenario", "ScenarioError"]


class ScenarioError(Exception):
    """A call the scenario refuses (not logged in, unknown id, insufficient balance, ...).

    The message is what the model reads; the call is reported as a failed tool result.
    """


class Scenario:
    """A scenario class: its state attributes (`STATE`) are what the end-state check compares."""

    NAME: ClassVar[str]
    STATE: ClassVar[dict[str, Any]]
    """Each compared attribute and its default: every instance starts from a copy of these."""

    def __init__(self) -> None:
        self.load(self.STATE)

    def load(self, overrides: dict[str, Any]) -> None:
        """Apply an entry's `initial_config` for this class (attribute -> value).

        Raises:
            ValueError: for an attribute the class does not have.
        """
        for key, value in overrides.items():
            if key not in self.STATE:
                raise ValueError(f"{self.NAME}: initial_config sets unknown attribute {key!r}")
            setattr(self, key, copy.deepcopy(value))

    def state(self) -> dict[str, Any]:
        """The compared attributes, as plain JSON-able data (a copy)."""
        return {key: copy.deepcopy(getattr(self, key)) for key in self.STATE}
