"""The rl packages' public API."""

from __future__ import annotations

import rl
import rl.served
import rl.trl
import rl.verl


def test_rl_public_api():
    assert len(set(rl.__all__)) == len(rl.__all__)
    assert {"AGENT_NAME", "BatchFiller", "DistractorConfig", "DistractorSampler", "Embedder", "RlTask", "ToolPool",
            "prepare", "sample_distractors", "f1_reward", "RewardParts",
            "BatchFillingError", "PRESETS", "Preset", "get_preset", "default_preset",
            "cold_start", "ColdStartConfig", "replay_golden", "mix_sft", "write_sft_files", "resolve_model"} <= set(rl.__all__)
    for name in rl.__all__:
        assert getattr(rl, name) is not None


def test_served_api():
    assert {"ServedRecipe", "train_served_grpo", "PolicyUpdate", "RolloutGroup", "play_round"} <= set(rl.served.__all__)
    assert issubclass(rl.served.ServedRecipe, rl.GrpoRecipe) and issubclass(rl.trl.TrlRecipe, rl.GrpoRecipe)


def test_engine_apis_and_registration():
    from verl.experimental.agent_loop.agent_loop import _agent_loop_registry
    from verl.experimental.agent_loop.tool_parser import ToolParser

    assert set(rl.verl.__all__) == {
        "ASTRA_TOOL_PARSER", "REWARD_KEYS", "AstraToolParser", "JsonMultiTurnSFTDataset", "McpAgentLoop", "VerlRecipe",
        "check_recipe", "compose_config", "launch_verl", "print_command", "recipe_overrides", "require_gpu",
        "resolve_verl_model", "sanitize_property", "sanitize_tool", "verl_command", "verl_recipe",
    }
    for name in rl.verl.__all__:
        assert getattr(rl.verl, name) is not None
    assert _agent_loop_registry[rl.AGENT_NAME] == {"_target_": "rl.verl._agent_loop.McpAgentLoop"}
    assert ToolParser._registry[rl.verl.ASTRA_TOOL_PARSER] is rl.verl.AstraToolParser
    assert {"train_grpo", "train_sft", "environment_factories", "f1_reward_func"} <= set(rl.trl.__all__)
    for name in rl.trl.__all__:
        assert getattr(rl.trl, name) is not None
