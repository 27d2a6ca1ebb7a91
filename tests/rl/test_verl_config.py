"""ASTRA's recipe as veRL overrides: they compose with veRL 0.9.1's own trainer config."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from rl.datasets import AGENT_NAME
from rl.exceptions import TrainingSetupError
from rl.verl._config import VerlRecipe, recipe_overrides, require_gpu, verl_command, write_agent_loop_config


def compose(overrides: list[str]):
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir

    config_dir = Path(importlib.util.find_spec("verl").submodule_search_locations[0]) / "trainer" / "config"
    with initialize_config_dir(config_dir=str(config_dir), version_base=None):
        return hydra_compose(config_name="ppo_trainer", overrides=overrides)


def test_recipe_composes_with_verls_trainer_config(tmp_path):
    from omegaconf import OmegaConf

    recipe = VerlRecipe(model_path="/models/qwen", train_files="t.parquet", val_files="v.parquet",
                        arena_url="http://127.0.0.1:9000", batch_size=16, n_gpus_per_node=4)
    loops = write_agent_loop_config(tmp_path / "loops.yaml")
    config = compose(recipe_overrides(recipe, loops))
    actor = config.actor_rollout_ref.actor
    assert config.algorithm.adv_estimator == "grpo" and config.algorithm.use_kl_in_reward is False
    assert actor.use_kl_loss is False and actor.entropy_coeff == 0 and actor.loss_agg_mode == "token-mean"
    assert actor.optim.lr == pytest.approx(2e-6)
    assert actor.ppo_mini_batch_size == config.data.train_batch_size == 16
    rollout = config.actor_rollout_ref.rollout
    assert rollout.multi_turn.enable and rollout.multi_turn.max_assistant_turns == 32
    assert rollout.agent.default_agent_loop == AGENT_NAME and rollout.n == 8
    assert config.trainer.v1.sampler.custom_sampler.name == "AstraReplayBuffer"  # ASTRA's batch filling
    assert config.data.max_prompt_length == 25_600 and config.data.max_response_length == 49_152
    assert config.astra.arena_url == "http://127.0.0.1:9000"
    (entry,) = OmegaConf.load(loops)
    assert entry.name == AGENT_NAME and entry._target_ == "rl.verl._agent_loop.McpAgentLoop"


def test_command_and_gpu_refusal(tmp_path):
    recipe = VerlRecipe(model_path="m", train_files="t", val_files="v", arena_url="http://x", batch_filling=False)
    command = verl_command(recipe, tmp_path)
    assert command[1:3] == ["-m", "verl.trainer.main_ppo"]
    assert not any("custom_sampler" in part for part in command)
    import torch

    if not torch.cuda.is_available():
        with pytest.raises(TrainingSetupError, match="--engine trl"):
            require_gpu()
