"""`ASTRA_SANDBOX` is honoured by every path that runs tool code: an unknown backend, or e2b without
its key, is a clear error on each of them, never a silent local run.

Each path is driven until it opens its sandbox (real environments, real files, no model): the
loop's verify, cold start and evaluation, the cold start of `rl`, a toolbox over an environment
directory, served GRPO, and the commands `env verify`, `env serve`, `arena serve`,
`sft cold-start` and `demo`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from mcp import Client
from typer.testing import CliRunner

from agent_sdk import FunctionModel, Toolbox
from astra_cli import app
from astra_loop import LoopConfig, cold_start_data, evaluate, run_loop
from mcp_servers import SandboxConfig, SandboxUnavailable, load_envs, serve_arena
from rl import cold_start

ENVS = Path(__file__).resolve().parents[1] / "examples" / "envs"
BAD = {"ASTRA_SANDBOX": "docker"}
NO_KEY = {"ASTRA_SANDBOX": "e2b", "E2B_API_KEY": ""}


@pytest.fixture
def one_env(tmp_path: Path) -> Path:
    root = tmp_path / "envs"
    shutil.copytree(ENVS / "weather_forecast", root / "weather_forecast")
    return root


@pytest.fixture(params=[BAD, NO_KEY], ids=["unknown", "e2b-without-key"])
def refused(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Set a sandbox choice that cannot run here; the error message each path must show."""
    for name, value in request.param.items():
        monkeypatch.setenv(name, value)
    if not request.param.get("E2B_API_KEY", "x"):
        monkeypatch.delenv("E2B_API_KEY")
    return "ASTRA_SANDBOX='docker': choose one of local, e2b" if request.param is BAD else "E2B_API_KEY"


def test_the_config_names_the_bad_choice(refused: str) -> None:
    with pytest.raises(SandboxUnavailable, match=refused):
        SandboxConfig.from_env().build()


def test_a_bad_worker_count_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASTRA_SANDBOX_WORKERS", "two")
    with pytest.raises(SandboxUnavailable, match="ASTRA_SANDBOX_WORKERS='two'"):
        SandboxConfig.from_env()


@pytest.mark.anyio
async def test_the_arena_serves_each_environment_at_its_url(one_env: Path) -> None:
    envs = load_envs(one_env)
    async with serve_arena(envs) as arena:
        assert arena.url(envs[0].spec.id, distractors=["a.b", "c.d"]).endswith(f"/envs/{envs[0].spec.id}/mcp?distractors=a.b,c.d")
        async with Client(arena.url(envs[0].spec.id)) as client:
            assert {t.name for t in (await client.list_tools()).tools} == {t.name for t in envs[0].spec.tools}


@pytest.mark.anyio
async def test_library_paths_refuse(refused: str, one_env: Path, tmp_path: Path) -> None:
    envs = load_envs(one_env)
    with pytest.raises(SandboxUnavailable, match=refused):
        async with serve_arena(envs):
            pass
    with pytest.raises(SandboxUnavailable, match=refused):
        await evaluate(FunctionModel(lambda m, t, s: "no idea"), one_env, label="base", target="x", max_turns=2, concurrency=1)
    with pytest.raises(SandboxUnavailable, match=refused):
        await cold_start_data(envs_dirs=[one_env], sft_files=[], out_dir=tmp_path / "cs")
    with pytest.raises(SandboxUnavailable, match=refused):
        await cold_start([one_env], tmp_path / "rl-cs")
    with pytest.raises(SandboxUnavailable, match=refused):
        async with Toolbox(one_env / "weather_forecast"):
            pass


@pytest.mark.anyio
async def test_the_loop_refuses_at_verify(refused: str, one_env: Path, tmp_path: Path) -> None:
    from astra_loop import StageError

    config = LoopConfig(out=tmp_path / "run", extra_train_envs=[one_env], eval_envs=ENVS)
    with pytest.raises((SandboxUnavailable, StageError), match=refused):
        await run_loop(config, until="verify")


@pytest.mark.anyio
async def test_served_grpo_refuses_before_loading_the_policy(refused: str, one_env: Path, tmp_path: Path) -> None:
    from rl import build_tasks
    from rl.served import ServedRecipe, train_served_grpo

    data = tmp_path / "data"
    data.mkdir()
    (data / "train.jsonl").write_text("".join(json.dumps(t.trl_row()) + "\n" for t in build_tasks(load_envs(one_env))))
    policy = tmp_path / "policy"
    policy.mkdir()
    (policy / "config.json").write_text("{}")  # never loaded: the sandbox is refused first
    recipe = ServedRecipe(data_dir=data, envs_dir=one_env, output_dir=tmp_path / "out", model=str(policy))
    with pytest.raises(SandboxUnavailable, match=refused):
        await train_served_grpo(recipe)


@pytest.mark.parametrize(
    "command",
    [
        ["env", "verify", "{envs}"],
        ["env", "serve", "{env}"],
        ["arena", "serve", "{envs}", "--http", "0"],
        ["sft", "cold-start", "--envs", "{envs}", "--out", "{out}"],
        ["demo", "--envs", "{envs}", "--out", "{out}/t.jsonl"],
    ],
    ids=lambda c: " ".join(c[:2]),
)
def test_commands_refuse(refused: str, one_env: Path, tmp_path: Path, command: list[str]) -> None:
    args = [a.format(envs=one_env, env=one_env / "weather_forecast", out=tmp_path / "out") for a in command]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert refused in result.output and "Traceback" not in result.output
