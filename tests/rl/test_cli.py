"""`astra rl prepare|train` and `astra sft train` wiring."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from astra_cli import app

runner = CliRunner()


def test_prepare_command(envs_dir, tokenizer_dir, tmp_path):
    cache = tmp_path / "cache"
    result = runner.invoke(app, ["rl", "prepare", str(envs_dir), "--out", str(tmp_path / "data"), "--val-fraction", "0.25",
                                 "--embedding-cache", str(cache), "--policy", str(tokenizer_dir)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["train"], report["val"]) == (3, 1)
    assert report["max_prompt_length"] == 25_600 and report["rejected"] == {}  # the astra preset's limit
    assert (tmp_path / "data" / "train.parquet").is_file() and list(cache.rglob("chunk-*.npz"))
    small = runner.invoke(app, ["rl", "prepare", str(envs_dir), "--out", str(tmp_path / "small"), "--policy", str(tokenizer_dir),
                                "--max-prompt-length", str(report["prompt_tokens_max"] - 1)])
    assert small.exit_code == 0, small.output
    assert json.loads(small.stdout)["rejected"]["prompt_too_long"] >= 1
    assert "rejected.jsonl" in small.stderr


def test_train_verl_refuses_without_gpu_and_dry_runs(envs_dir, tmp_path):
    import torch

    args = ["rl", "train", "--engine", "verl", "--data", str(tmp_path), "--envs", str(envs_dir), "--out", str(tmp_path / "o")]
    if not torch.cuda.is_available():
        result = runner.invoke(app, [*args, "--policy", "/models/x"])
        assert result.exit_code == 2
        assert "needs at least one CUDA GPU" in result.output
    dry = runner.invoke(app, [*args, "--dry-run", "--policy", "/models/x", "--override", "trainer.total_epochs=3"])
    assert dry.exit_code == 0, dry.output
    assert "verl.trainer.main_ppo" in dry.output and "algorithm.adv_estimator=grpo" in dry.output
    assert "use_dynamic_bsz=True" in dry.output and "multi_turn.format=astra" in dry.output
    assert dry.output.strip().endswith("trainer.total_epochs=3")
    rejected = runner.invoke(app, [*args, "--dry-run", "--policy", "/models/x", "--override", "actor_rollout_ref.actor.use_dynamic_bsz=False"])
    assert rejected.exit_code == 2 and "veRL rejects the config" in rejected.output
    gguf = runner.invoke(app, [*args, "--policy", "/models/qwen.gguf"])
    assert gguf.exit_code == 2 and "veRL cannot load a GGUF" in gguf.output


def test_bad_inputs_name_the_problem(tmp_path):
    result = runner.invoke(app, ["rl", "prepare", str(tmp_path), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "no environments" in result.output
    missing = runner.invoke(app, ["rl", "train", "--data", str(tmp_path), "--envs", str(tmp_path)])
    assert missing.exit_code == 2 and "train.jsonl" in missing.output
    served = runner.invoke(app, ["rl", "train", "--engine", "served", "--data", str(tmp_path), "--envs", str(tmp_path)])
    assert served.exit_code == 2 and "train.jsonl" in served.output
    bad = tmp_path / "sft.jsonl"
    bad.write_text("{}\n")
    sft = runner.invoke(app, ["sft", "train", str(bad), "--out", str(tmp_path / "s")])
    assert sft.exit_code == 2 and "sft.jsonl:1" in sft.output
