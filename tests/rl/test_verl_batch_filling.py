"""ASTRA's batch filling as veRL 0.9.1's replay-buffer sampler: reward arrays as veRL stores them, and the wiring."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import torch
from tensordict import NonTensorData

from rl.batch_filling import BatchFiller
from rl.exceptions import TrainingSetupError
from rl.verl._batch_filling import AstraReplayBuffer, TrajectoryGroup, rewards_by_group
from rl.verl._config import (
    SAMPLER_NAME,
    SAMPLER_PATH,
    VerlRecipe,
    recipe_overrides,
    write_agent_loop_config,
)

# Per prompt, the F1 rewards of its 4 rollouts: two groups without signal (all 0, all 1), one barely
# varied (std 0.05 <= delta 0.1), three with signal.
GROUP_REWARDS = {
    "u0": [0.0, 0.0, 0.0, 0.0],
    "u1": [0.0, 1.0, 0.5, 0.0],
    "u2": [1.0, 1.0, 1.0, 1.0],
    "u3": [0.5, 0.6, 0.5, 0.6],
    "u4": [0.0, 0.0, 0.0, 1.0],
    "u5": [0.25, 0.75, 0.25, 0.75],
}


def extra_fields(reward: float) -> NonTensorData:
    """One trajectory's `extra_fields` as TransferQueue returns it (what the agent loop set)."""
    info = {"f1_reward": reward, "n": 2, "n_hat": 1, "c": int(reward > 0), "recall": reward, "precision": reward}
    return NonTensorData(data={"reward_extra_info": info, "min_global_steps": 1, "max_global_steps": 1})


def stored(metric: str) -> tuple[list[str], list]:
    keys, values = [], []
    for uid, rewards in GROUP_REWARDS.items():
        for session, reward in enumerate(rewards):
            keys.append(f"{uid}_{session}_0")
            if metric == "reward":
                scores = torch.zeros(6)
                scores[-1] = reward  # veRL puts the trajectory reward on the last response token
                values.append(scores)
            else:
                values.append(extra_fields(reward))
    return keys, values


@pytest.mark.parametrize("metric", ["f1_reward", "reward"])
def test_rewards_are_read_per_group_from_veRLs_arrays(metric):
    keys, values = stored(metric)
    read = rewards_by_group(keys, values, metric)
    assert list(read) == list(GROUP_REWARDS)
    for uid, rewards in GROUP_REWARDS.items():
        assert read[uid] == pytest.approx(rewards)


def test_missing_metric_names_the_trajectory():
    with pytest.raises(KeyError, match="u9_0_0.*'f1_reward'"):
        rewards_by_group(["u9_0_0"], [NonTensorData(data={"reward_extra_info": {}})], "f1_reward")


def test_rounds_keep_varied_groups_and_carry_the_surplus():
    keys, values = stored("f1_reward")
    by_uid = rewards_by_group(keys, values, "f1_reward")
    groups = [TrajectoryGroup(uid=uid, rewards=rewards) for uid, rewards in by_uid.items()]
    rounds = iter([groups[:3], groups[3:]])  # two rounds of three prompts
    filler = BatchFiller(n=3, rewards=lambda g: g.rewards, delta=0.1)
    batch, stats = filler.fill(lambda: next(rounds))
    assert [g.uid for g in batch] == ["u1", "u4", "u5"]
    assert (stats.invalid, stats.carried, stats.generation_rounds) == (3, 0, 2)
    assert np.std(GROUP_REWARDS["u3"]) <= 0.1 < np.std(GROUP_REWARDS["u4"])


def compose(overrides: list[str]):
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir

    config_dir = Path(importlib.util.find_spec("verl").submodule_search_locations[0]) / "trainer" / "config"
    with initialize_config_dir(config_dir=str(config_dir), version_base=None):
        return hydra_compose(config_name="ppo_trainer", overrides=overrides)


def sampler_config(tmp_path, **settings):
    recipe = VerlRecipe(model_path="/m", train_files="t", val_files="v", arena_url="http://x", **settings)
    return compose(recipe_overrides(recipe, write_agent_loop_config(tmp_path / "loops.yaml")))


def build(config, mode="sync", refill=lambda n: n):
    """The sampler as veRL's V1 trainer builds a custom one (PPOTrainer._build_replay_buffer)."""
    from verl.utils.import_utils import load_extern_object

    sampler = config.trainer.v1.sampler
    cls = load_extern_object(sampler.custom_sampler.path, sampler.custom_sampler.name)
    return cls(
        trainer_mode=mode, trainer_config=config.trainer.v1.get(mode, {}),
        max_off_policy_threshold=sampler.max_off_policy_threshold, max_off_policy_strategy=sampler.max_off_policy_strategy,
        sampler_kwargs=sampler.sampler_kwargs, refill_fn=refill,
    )


def test_recipe_plugs_the_sampler_into_veRLs_trainer(tmp_path):
    config = sampler_config(tmp_path, delta=0.05, max_fill_rounds=3)
    assert (config.trainer.v1.sampler.custom_sampler.path, config.trainer.v1.sampler.custom_sampler.name) == (
        SAMPLER_PATH, SAMPLER_NAME)
    assert not config.algorithm.filter_groups.enable  # veRL's DAPO filter (std == 0, surplus discarded) stays off
    buffer = build(config)
    assert isinstance(buffer, AstraReplayBuffer)
    assert (buffer.settings.delta, buffer.settings.max_rounds, buffer.settings.metric) == (0.05, 3, "f1_reward")
    with pytest.raises(TrainingSetupError, match="sync"):
        build(config, mode="async")
    with pytest.raises(TrainingSetupError, match="refill"):
        build(config, refill=None)
    off = sampler_config(tmp_path, batch_filling=False)
    assert off.trainer.v1.sampler.custom_sampler.path is None


def test_bad_sampler_kwargs_are_named(tmp_path):
    config = sampler_config(tmp_path)
    config.trainer.v1.sampler.sampler_kwargs.max_rounds = 0
    with pytest.raises(TrainingSetupError, match="(?s)sampler_kwargs.*max_rounds"):
        build(config)
