"""`astra demo --episodes k`: the loop's sampled protocol over a real arena and a real HTTP model endpoint.

The policy is a scripted model (the golden player) served by `agent_sdk`'s own chat app over
HTTP, so the demo reaches it as it would reach vLLM: as an OpenAI-compatible URL.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import uvicorn
from typer.testing import CliRunner

from agent_sdk import FunctionModel, read_trajectories_jsonl
from agent_sdk._serve import free_port
from agent_sdk._serve_app import chat_app
from astra_cli import app
from astra_loop import EvalResult


def _endpoint(model: FunctionModel) -> Iterator[str]:
    """`model` behind `/v1/chat/completions` on a local port (a thread: the CLI runs its own event loop)."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(chat_app(model), host="127.0.0.1", port=port, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started and thread.is_alive():
        threading.Event().wait(0.05)
    yield f"http://127.0.0.1:{port}/v1"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture
def golden_endpoint(eval_envs: Path, golden: Callable[[Path], FunctionModel]) -> Iterator[str]:
    """The golden player as an OpenAI-compatible endpoint."""
    yield from _endpoint(golden(eval_envs))


@pytest.fixture
def guessing_endpoint() -> Iterator[str]:
    """A player that answers at once without a tool call (and so solves nothing)."""
    yield from _endpoint(FunctionModel(lambda _messages, _tools, _settings: "I think it is A52.", name="guesser"))


def test_demo_plays_k_seeded_episodes_and_prints_intervals(eval_envs: Path, golden_endpoint: str, tmp_path: Path) -> None:
    out = tmp_path / "demo" / "trajectories.jsonl"
    result = CliRunner().invoke(app, ["demo", "--envs", str(eval_envs), "--policy", golden_endpoint, "--episodes", "3", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "3 sampled episodes per environment" in result.output and "all (95% CI)" in result.output
    evaluation = EvalResult.model_validate_json((out.parent / "eval.json").read_bytes())
    assert evaluation.protocol.episodes == 3 and evaluation.protocol.temperature == 0.6
    assert sorted((s.env, s.seed) for s in evaluation.scores) == [(env, seed) for env in ("flight_gate", "weather_forecast") for seed in (1000, 1001, 1002)]
    assert evaluation.mean_reward == 1.0 and all(s.answer_correct == 1.0 for s in evaluation.scores), "the golden player solves and answers"
    trajectories = read_trajectories_jsonl(out)
    assert len(trajectories) == 6 and all(t.metadata["reward"]["reward"] == 1.0 for t in trajectories)
    summary = json.loads((out.parent / "summary.json").read_text())
    assert summary["episodes"] == 6 and summary["recall"]["low"] == 1.0


def test_demo_plays_one_greedy_episode_by_default(eval_envs: Path, golden_endpoint: str, tmp_path: Path) -> None:
    out = tmp_path / "demo" / "trajectories.jsonl"
    result = CliRunner().invoke(app, ["demo", "--envs", str(eval_envs), "--policy", golden_endpoint, "--out", str(out)])
    assert result.exit_code == 0, result.output
    evaluation = EvalResult.model_validate_json((out.parent / "eval.json").read_bytes())
    assert [s.seed for s in evaluation.scores] == [None, None] and evaluation.protocol.temperature == 0.0
    assert "mean reward 1.000 over 2 episodes" in result.output


def test_demo_compare_plays_both_models_on_the_same_seeds_and_prints_the_paired_difference(
    eval_envs: Path, golden_endpoint: str, guessing_endpoint: str, tmp_path: Path
) -> None:
    out = tmp_path / "demo" / "trajectories.jsonl"
    result = CliRunner().invoke(app, [
        "demo", "--envs", str(eval_envs), "--policy", golden_endpoint, "--compare", "--trained", guessing_endpoint, "--episodes", "2",
        "--out", str(out),
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "same environments, same seeds" in result.output and "difference (95% CI, paired)" in result.output
    base = EvalResult.model_validate_json((out.parent / "eval.json").read_bytes())
    other = EvalResult.model_validate_json((out.parent / "eval-compared.json").read_bytes())
    assert [(s.env, s.seed) for s in base.scores] == [(s.env, s.seed) for s in other.scores]
    assert other.mean_reward == 0.0 and all(s.c == 0 for s in other.scores)
    assert len(read_trajectories_jsonl(tmp_path / "demo" / "trajectories-compared.jsonl")) == 4
    compare = json.loads((out.parent / "summary.json").read_text())["compare"]
    assert compare["model"] == guessing_endpoint
    assert compare["difference"]["recall"]["mean"] == -1.0 and compare["difference"]["recall"]["high"] == -1.0
    assert compare["difference"]["c"]["mean"] < 0
