"""Recipes as named presets, and how the engines and the CLI take their values from them."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from astra_cli import app
from rl.exceptions import TrainingSetupError
from rl.presets import PRESETS, default_preset, get_preset
from rl.trl import SftRecipe, TrlRecipe
from rl.verl._config import VerlRecipe

runner = CliRunner()


def test_astra_preset_is_astras_recipe():
    astra = get_preset("astra")
    grpo = astra.grpo
    assert (grpo.prompts_per_step, grpo.lr, grpo.max_turns) == (256, 2e-6, 32)
    assert (grpo.max_prompt_length, grpo.max_response_length) == (25_600, 49_152)
    assert (grpo.kl_coef, grpo.entropy_coef, grpo.loss_agg_mode, grpo.batch_filling) == (0.0, 0.0, "token-mean", True)
    assert (astra.sft.epochs, astra.sft.lr) == (2, 5e-6)
    assert set(PRESETS) == {"astra", "cpu-small"}


def test_unknown_preset_lists_the_known_ones():
    with pytest.raises(TrainingSetupError, match=r"'huge'.*\['astra', 'cpu-small'\]"):
        get_preset("huge")


def test_defaults_astra_for_verl_cpu_small_for_trl_on_cpu():
    import torch

    assert default_preset("verl").name == "astra"
    assert default_preset("trl").name == ("astra" if torch.cuda.is_available() else "cpu-small")


def test_recipes_take_preset_values_and_explicit_settings_win(tmp_path):
    cpu = get_preset("cpu-small")
    paths = {"data_dir": tmp_path, "envs_dir": tmp_path, "output_dir": tmp_path}
    assert TrlRecipe(**paths).model_dump(exclude=set(paths)) == TrlRecipe.from_preset(cpu, **paths).model_dump(
        exclude=set(paths))
    trl = TrlRecipe.from_preset(get_preset("astra"), lr=1e-6, max_turns=None, **paths)
    assert (trl.lr, trl.max_turns, trl.prompts_per_step, trl.max_completion_length) == (1e-6, 32, 256, 49_152)
    assert trl.model == "embedded"
    verl = VerlRecipe.from_preset(cpu, model_path="/m", train_files="t", val_files="v", arena_url="http://x", group_size=6)
    assert (verl.prompts_per_step, verl.group_size, verl.max_turns, verl.lr) == (2, 6, 6, cpu.grpo.lr)
    assert VerlRecipe(model_path="/m", train_files="t", val_files="v", arena_url="http://x").prompts_per_step == 256
    sft = SftRecipe.from_preset(get_preset("astra"), data=tmp_path / "d.jsonl", output_dir=tmp_path, lr=2e-6)
    assert (sft.epochs, sft.lr, sft.model) == (2, 2e-6, "embedded")


def test_cli_preset_and_flags_reach_the_verl_command(envs_dir, tmp_path):
    args = ["rl", "train", "--engine", "verl", "--data", str(tmp_path), "--envs", str(envs_dir), "--dry-run",
            "--policy", "/models/x"]
    astra = runner.invoke(app, args)
    assert astra.exit_code == 0, astra.output
    assert "data.train_batch_size=256" in astra.output and "data.max_response_length=49152" in astra.output
    small = runner.invoke(app, [*args, "--preset", "cpu-small", "--lr", "3e-06", "--delta", "0.1"])
    assert small.exit_code == 0, small.output
    assert "data.train_batch_size=2" in small.output and "multi_turn.max_assistant_turns=6" in small.output
    assert "optim.lr=3e-06" in small.output and "sampler_kwargs.delta=0.1" in small.output
    bad = runner.invoke(app, [*args, "--preset", "huge"])
    assert bad.exit_code == 2 and "unknown preset 'huge'" in bad.output


def test_cli_help_names_the_defaults():
    for command in (["rl", "train"], ["sft", "train"]):
        result = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "200"})
        assert result.exit_code == 0
        # Rich draws the help in a box whose width follows the terminal: drop its borders.
        text = " ".join(result.output.replace("│", " ").split())
        assert "cpu-small on a CPU" in text and "embedded" in text


def test_trl_run_refuses_an_unknown_preset_before_loading_anything(tmp_path):
    result = runner.invoke(app, ["sft", "train", str(Path(tmp_path) / "x.jsonl"), "--preset", "nope"])
    assert result.exit_code == 2 and "unknown preset 'nope'" in result.output


def test_served_recipe_takes_the_presets_grpo_settings(tmp_path):
    from rl.presets import ASTRA
    from rl.served import ServedRecipe

    paths = {"data_dir": tmp_path, "envs_dir": tmp_path, "output_dir": tmp_path}
    recipe = ServedRecipe.from_preset(ASTRA, **paths, lr=None, group_size=4)
    assert (recipe.prompts_per_step, recipe.lr, recipe.max_turns, recipe.group_size) == (256, 2e-6, 32, 4)
    assert recipe.max_train_tokens == 25_600 + 49_152
    assert recipe.unfinished_reward_scale == 1.0, "ASTRA's reward is F1 alone"
    shaped = ASTRA.model_copy(update={"grpo": ASTRA.grpo.model_copy(update={"unfinished_reward_scale": 0.0})})
    assert ServedRecipe.from_preset(shaped, **paths).unfinished_reward_scale == 0.0


def test_served_grpo_can_serve_in_the_trainers_precision(tmp_path):
    from agent_sdk._serve import resolve_dtype
    from rl.served import ServedRecipe
    from rl.served._trainer import _PolicyServer

    paths = {"data_dir": tmp_path, "envs_dir": tmp_path, "output_dir": tmp_path}
    assert _PolicyServer(ServedRecipe.from_preset(get_preset("cpu-small"), **paths)).options.dtype == "auto"
    matched = _PolicyServer(ServedRecipe.from_preset(get_preset("cpu-small"), serve_dtype="float32", **paths)).options
    assert resolve_dtype(matched.dtype) == "float32"
