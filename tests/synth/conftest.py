"""Fixtures for synth tests: the scripted model (see `scripted.py`).

    def test_x(scripted_model):
        model = scripted_model(lambda messages, tools, settings: '{"a": 1}')
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from scripted import ScriptedModel, replies  # noqa: E402


@pytest.fixture
def scripted_model() -> type[ScriptedModel]:
    """The `ScriptedModel` class."""
    return ScriptedModel


@pytest.fixture
def script() -> Callable[..., ScriptedModel]:
    """`script(*replies)`: a `ScriptedModel` answering with the given replies in order."""
    return lambda *items: ScriptedModel(replies(*items))
