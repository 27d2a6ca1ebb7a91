"""Fixtures for the loop's tests: real example environments split into train and eval sets.

An `agent_sdk.FunctionModel` (with the synthesis script of `tests/synth/env/envscript.py`)
stands in for an LLM where one is needed.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_sdk import ChatMessage, FunctionModel, ModelResponse, ToolCall
from mcp_servers import load_env

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "envs"
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "synth" / "env"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "synth" / "world"))


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


def golden_player(envs_dir: Path) -> FunctionModel:
    """Plays each environment's golden calls one per turn, then answers (the perfect agent)."""
    specs = {load_env(p).spec.task.question: load_env(p).spec for p in envs_dir.iterdir()}

    def play(messages: list[ChatMessage], tools: Any, settings: Any) -> ModelResponse:
        spec = specs[next(m.content for m in messages if m.role == "user")]
        golden = [s.golden_call for s in spec.subtasks if s.golden_call is not None]
        done = sum(m.role == "tool" for m in messages)
        if done < len(golden):
            call = ToolCall(id=f"c{done}", name=golden[done].tool, arguments=golden[done].arguments)
            return ModelResponse(message=ChatMessage(role="assistant", content="", tool_calls=[call]), finish_reason="tool_calls")
        return ModelResponse(message=ChatMessage(role="assistant", content=spec.task.answer), finish_reason="stop")

    return FunctionModel(play)


@pytest.fixture
def golden() -> Callable[[Path], FunctionModel]:
    """`golden(envs_dir)`: a `FunctionModel` that solves every environment under `envs_dir` with its golden calls."""
    return golden_player
