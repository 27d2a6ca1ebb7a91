"""ASTRA's recipe as veRL overrides: they compose with veRL 0.9.1's own trainer config and pass its `validate_config`."""

from __future__ import annotations

import pytest

from rl.datasets import AGENT_NAME
from rl.exceptions import TrainingSetupError
from rl.presets import PRESETS
from rl.verl import ASTRA_TOOL_PARSER, VerlRecipe, check_recipe, compose_config, require_gpu, verl_command
from rl.verl._config import write_agent_loop_config


def recipe_for(preset: str, **settings) -> VerlRecipe:
    return VerlRecipe.from_preset(
        PRESETS[preset], **{"model_path": "/models/qwen", "train_files": "t.parquet", "val_files": "v.parquet",
                            "arena_url": "http://127.0.0.1:9000", **settings},
    )


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("gpus", [1, 8])
def test_verls_validate_config_accepts_each_preset(preset, gpus, tmp_path):
    from omegaconf import OmegaConf
    from verl.trainer.ppo.utils import need_critic, need_reference_policy
    from verl.utils.config import omega_conf_to_dataclass, validate_config
    from verl.workers.config import RolloutConfig

    recipe = recipe_for(preset, n_gpus_per_node=gpus)
    config = compose_config(recipe, tmp_path / "loops.yaml")
    # what main_ppo runs before Ray starts
    validate_config(config, use_reference_policy=need_reference_policy(config), use_critic=need_critic(config))
    OmegaConf.resolve(config)
    actor, rollout = config.actor_rollout_ref.actor, config.actor_rollout_ref.rollout
    # dynamic batch sizing, with room for the longest trajectory; the log-prob passes follow the actor
    budget = recipe.max_prompt_length + recipe.max_response_length
    assert actor.use_dynamic_bsz and actor.ppo_max_token_len_per_gpu == budget
    assert rollout.log_prob_use_dynamic_bsz and rollout.log_prob_max_token_len_per_gpu == budget
    assert rollout.prompt_length == recipe.max_prompt_length and rollout.response_length == recipe.max_response_length
    # the rollout worker's own dataclass accepts the multi-turn section
    multi_turn = omega_conf_to_dataclass(rollout, RolloutConfig).multi_turn
    assert multi_turn.format == ASTRA_TOOL_PARSER and multi_turn.max_parallel_calls == recipe.max_parallel_calls == 8
    assert multi_turn.max_assistant_turns == PRESETS[preset].grpo.max_turns
    assert check_recipe(recipe, tmp_path / "loops.yaml").trainer.n_gpus_per_node == gpus


def test_recipe_composes_with_verls_trainer_config(tmp_path):
    from omegaconf import OmegaConf

    recipe = VerlRecipe(model_path="/models/qwen", train_files="t.parquet", val_files="v.parquet",
                        arena_url="http://127.0.0.1:9000", prompts_per_step=16, n_gpus_per_node=4, max_parallel_calls=3)
    loops = write_agent_loop_config(tmp_path / "loops.yaml")
    config = compose_config(recipe, loops)
    actor = config.actor_rollout_ref.actor
    assert config.algorithm.adv_estimator == "grpo" and config.algorithm.use_kl_in_reward is False
    assert actor.use_kl_loss is False and actor.entropy_coeff == 0 and actor.loss_agg_mode == "token-mean"
    assert actor.optim.lr == pytest.approx(2e-6)
    assert actor.ppo_mini_batch_size == config.data.train_batch_size == 16
    rollout = config.actor_rollout_ref.rollout
    assert rollout.multi_turn.enable and rollout.multi_turn.max_assistant_turns == 32
    assert rollout.multi_turn.max_parallel_calls == 3
    assert rollout.agent.default_agent_loop == AGENT_NAME and rollout.n == 8
    assert config.trainer.v1.sampler.custom_sampler.name == "AstraReplayBuffer"  # ASTRA's batch filling
    assert config.data.max_prompt_length == 25_600 and config.data.max_response_length == 49_152
    assert config.astra.arena_url == "http://127.0.0.1:9000"
    (entry,) = OmegaConf.load(loops)
    assert entry.name == AGENT_NAME and entry._target_ == "rl.verl._agent_loop.McpAgentLoop"


def test_veRL_rejections_and_bad_overrides_are_setup_errors(tmp_path):
    too_small = recipe_for("cpu-small", extra_overrides=["actor_rollout_ref.actor.use_dynamic_bsz=False"])
    with pytest.raises(TrainingSetupError, match="ppo_micro_batch_size"):
        check_recipe(too_small, tmp_path / "loops.yaml")
    with pytest.raises(TrainingSetupError, match="does not compose"):
        compose_config(recipe_for("astra", extra_overrides=["actor_rollout_ref.no_such_key=1"]), tmp_path / "loops.yaml")


def test_gguf_models_are_refused():
    with pytest.raises(TrainingSetupError, match="veRL cannot load a GGUF"):
        recipe_for("astra", model_path="/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")


def test_command_and_gpu_refusal(tmp_path):
    recipe = VerlRecipe(model_path="m", train_files="t", val_files="v", arena_url="http://x", batch_filling=False)
    command = verl_command(recipe, tmp_path)
    assert command[1:3] == ["-m", "verl.trainer.main_ppo"]
    assert not any("custom_sampler" in part for part in command)
    import torch

    if not torch.cuda.is_available():
        with pytest.raises(TrainingSetupError, match="--engine trl"):
            require_gpu()
