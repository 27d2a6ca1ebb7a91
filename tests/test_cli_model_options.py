"""The model options the LLM-driven commands share: targets, judges apart, the embedded default."""

from __future__ import annotations

import os
import sys
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
import pytest
from typer.testing import CliRunner

from agent_sdk import OpenAIChatModel, UserError
from astra_cli import app
from astra_cli._model_options import ModelChoice, open_companion, open_model

URL = "http://127.0.0.1:9/v1"


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        (ModelChoice(base_url=URL, model="qwen"), (URL, "qwen")),
        (ModelChoice(model="qwen"), (None, "qwen")),
        (ModelChoice(model="embedded"), ("embedded", None)),
        (ModelChoice(model=URL), (URL, None)),
        (ModelChoice(), (None, None)),
    ],
)
def test_target_of_the_shared_options(choice, expected):
    assert choice.target() == expected


def test_a_model_directory_is_a_local_target(tmp_path):
    assert ModelChoice(model=str(tmp_path)).target() == (str(tmp_path), None)


@pytest.mark.anyio
async def test_judge_defaults_to_the_generator_or_shares_its_endpoint():
    choice = ModelChoice(base_url=URL, model="gen", max_concurrency=3)
    async with AsyncExitStack() as stack:
        generator = await stack.enter_async_context(open_model(choice))
        same = await open_companion(stack, choice, generator, base_url=None, model=None, role="judge")
        named = await open_companion(stack, choice, generator, base_url=None, model="judge-7b", role="judge")
        apart = await open_companion(stack, choice, generator, base_url="http://127.0.0.1:10/v1", model="j", role="judge")
        again = await open_companion(stack, choice, generator, base_url=URL, model="gen", role="judge")
    assert isinstance(generator, OpenAIChatModel) and same is generator and again is generator
    assert (named.base_url, named.model, named.max_concurrency) == (URL, "judge-7b", 3)
    assert (apart.base_url, apart.model) == ("http://127.0.0.1:10/v1", "j")


@pytest.mark.anyio
async def test_a_judge_name_needs_an_endpoint_when_the_generator_runs_here():
    local_generator = object()
    with pytest.raises(UserError, match="give an endpoint"):
        async with AsyncExitStack() as stack:
            await open_companion(stack, ModelChoice(model="embedded"), local_generator, base_url=None, model="j", role="judge")


@pytest.mark.parametrize("command", [["env", "synth"], ["sft", "synth"]])
def test_synthesis_commands_take_the_judge_from_options_or_environment(command):
    result = CliRunner().invoke(app, [*command, "--help"], env={"COLUMNS": "300"})
    assert result.exit_code == 0
    for text in ("--judge-base-url", "--judge-model", "ASTRA_JUDGE_BASE_URL", "ASTRA_JUDGE_MODEL", "--backend"):
        assert text in result.output


def test_unknown_backend_is_refused(tmp_path):
    result = CliRunner().invoke(app, ["sft", "synth", "--out", str(tmp_path), "--backend", "tpu"])
    assert result.exit_code == 2 and "choose one of auto, vllm, local" in result.output


@pytest.mark.slow
@pytest.mark.timeout(1200)
@pytest.mark.anyio
async def test_env_synth_without_an_endpoint_starts_the_embedded_model_and_says_so(tmp_path: Path):
    pytest.importorskip("torch")
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"question": "Which city hosts the Louvre?", "domain": "travel"}\n')
    env = {k: v for k, v in os.environ.items() if k != "ASTRA_LLM_BASE_URL"}
    # Only the leak audit stage, switched off: the model starts, and no request is made.
    command = [
        sys.executable, "-m", "astra_cli", "env", "synth", "--out", str(tmp_path / "run"), "--input", str(rows),
        "--stage", "leak_audit", "--no-leak-audit", "--backend", "local",
    ]  # fmt: skip
    with anyio.fail_after(900):
        result = await anyio.run_process(command, env=env, check=False)
    stderr = result.stderr.decode()
    assert result.returncode == 0, stderr[-2000:]
    assert "no endpoint given" in stderr and "starting the embedded model" in stderr
    assert "via transformers in this process" in stderr


def test_env_synth_without_input_fails_before_starting_a_model(tmp_path):
    result = CliRunner().invoke(app, ["env", "synth", "--out", str(tmp_path)], env={"ASTRA_LLM_BASE_URL": ""})
    assert result.exit_code == 2 and "no input" in result.output and "embedded" not in result.output
