"""Fixtures for the loop's tests: real example environments split into train and eval sets.

The scripted model (`tests/synth/scripted.py`, with the synthesis script of
`tests/synth/env/envscript.py`) stands in for an LLM where one is needed.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "envs"
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "synth"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "synth" / "env"))


def copy_envs(names: list[str], dest: Path) -> Path:
    """Copies of the named example environments under `dest`."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copytree(EXAMPLES / name, dest / name)
    return dest


@pytest.fixture
def eval_envs(tmp_path: Path) -> Path:
    """Two example environments as the evaluation set."""
    return copy_envs(["flight_gate", "weather_forecast"], tmp_path / "eval_envs")


@pytest.fixture
def train_envs(tmp_path: Path) -> Path:
    """Two other example environments as training environments."""
    return copy_envs(["course_catalog", "zh_train"], tmp_path / "train_envs")
