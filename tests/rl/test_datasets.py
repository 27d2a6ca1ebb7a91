"""`prepare`: veRL parquet (loaded with veRL's RLHFDataset) and TRL JSONL from an environments directory."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from rl.datasets import AGENT_NAME, PromptLimit, RlTask, prepare, prompt_tokens, read_trl_tasks, task_tools
from rl.distractors import DistractorConfig
from rl.exceptions import DatasetError


@pytest.fixture(scope="module")
def prepared(envs_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("rl-data")
    report = prepare(envs_dir, out, val_fraction=0.25, seed=1)
    return out, report


def test_prepare_writes_both_formats(prepared, envs):
    out, report = prepared
    assert (report.train, report.val) == (3, 1)
    assert report.distractors_per_env > 0
    rows = pq.read_table(out / "train.parquet").to_pylist() + pq.read_table(out / "val.parquet").to_pylist()
    assert {r["extra_info"]["env_id"] for r in rows} == {e.spec.id for e in envs}
    for row in rows:
        assert row["agent_name"] == AGENT_NAME
        assert row["prompt"][0]["role"] == "system" and row["prompt"][1]["role"] == "user"
        # variable structures travel as JSON strings, so no struct merging can blank them
        refs = json.loads(row["extra_info"]["distractors"])
        assert isinstance(refs, list) and all("." in r for r in refs)
        task = RlTask.from_verl(row)
        assert task.spec.id == row["extra_info"]["env_id"]
        assert row["data_source"] == f"astra/{task.spec.domain}"
    trl = read_trl_tasks(out / "train.jsonl")
    assert len(trl) == 3 and all(t.prompt[1]["content"] == t.spec.task.question for t in trl)
    saved = json.loads((out / "distractors.json").read_text())
    assert set(saved) == {e.spec.id for e in envs}


def test_rlhf_dataset_loads_the_parquet(prepared, tokenizer_dir, tmp_path):
    from omegaconf import OmegaConf
    from transformers import AutoTokenizer
    from verl.utils.dataset.rl_dataset import RLHFDataset

    out, _ = prepared
    tokenizer = AutoTokenizer.from_pretrained(str(tokenizer_dir))
    config = OmegaConf.create(
        {"prompt_key": "prompt", "max_prompt_length": 512, "filter_overlong_prompts": True,
         "cache_dir": str(tmp_path), "filter_overlong_prompts_workers": 1}
    )
    dataset = RLHFDataset(str(out / "train.parquet"), tokenizer, config)
    assert len(dataset) == 3
    item = dataset[0]
    assert item["agent_name"] == AGENT_NAME
    assert item["raw_prompt"][1]["role"] == "user"
    task = RlTask.from_verl(item)
    assert task.prompt == list(item["raw_prompt"])
    assert all(ref.split(".")[0].startswith("env-") for ref in task.distractors)


def test_prepare_modes_and_bad_input(envs_dir, tmp_path):
    report = prepare(envs_dir, tmp_path / "none", distractors=DistractorConfig(mode="none"))
    assert report.distractors_per_env == 0
    with pytest.raises(DatasetError, match="no environments"):
        prepare(tmp_path / "empty", tmp_path / "x")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"prompt": []}\n')
    with pytest.raises(DatasetError, match="bad.jsonl:1"):
        read_trl_tasks(bad)


@pytest.fixture(scope="module")
def tokenizer(tokenizer_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(tokenizer_dir))


def measured(out, envs, tokenizer) -> dict[str, int]:
    """Per env id: its row's prompt tokens (the tokenizer's template with the env's and distractors' schemas)."""
    by_id = {e.spec.id: e for e in envs}
    tasks = [RlTask.from_verl(r) for s in ("train", "val") for r in pq.read_table(out / f"{s}.parquet").to_pylist()]
    return {t.env_id: prompt_tokens(tokenizer, t.prompt, task_tools(t, by_id)) for t in tasks}


def test_rows_whose_prompt_does_not_fit_are_rejected_and_counted(envs_dir, envs, tokenizer, tmp_path):
    everything = prepare(envs_dir, tmp_path / "all", seed=1, prompt_limit=PromptLimit(tokenizer=tokenizer, max_prompt_length=100_000))
    assert everything.rejected == {} and everything.train + everything.val == 4
    lengths = measured(tmp_path / "all", envs, tokenizer)
    assert everything.prompt_tokens_max == max(lengths.values())
    # distractor schemas count: every prompt is longer than the same prompt with its env's tools alone
    bare = prepare(envs_dir, tmp_path / "bare", distractors=DistractorConfig(mode="none"),
                   prompt_limit=PromptLimit(tokenizer=tokenizer, max_prompt_length=100_000))
    assert bare.prompt_tokens_max < everything.prompt_tokens_max
    # a limit between the shortest and the longest prompt keeps exactly the rows that fit
    limit = sorted(lengths.values())[1]
    report = prepare(envs_dir, tmp_path / "cut", seed=1, prompt_limit=PromptLimit(tokenizer=tokenizer, max_prompt_length=limit))
    too_long = {env_id for env_id, n in lengths.items() if n > limit}
    assert 0 < len(too_long) < 4
    assert report.rejected == {"prompt_too_long": len(too_long)} and report.train + report.val == 4 - len(too_long)
    assert report.max_prompt_length == limit and report.prompt_tokens_max <= limit
    records = [json.loads(line) for line in (tmp_path / "cut" / "rejected.jsonl").read_text().splitlines()]
    assert {r["env_id"] for r in records} == too_long
    assert all(r["reason"] == "prompt_too_long" and r["prompt_tokens"] == lengths[r["env_id"]] for r in records)
    kept = {t.env_id for s in ("train", "val") for t in read_trl_tasks(tmp_path / "cut" / f"{s}.jsonl")}
    assert kept == set(lengths) - too_long
    with pytest.raises(DatasetError, match="no row fits max_prompt_length=10"):
        prepare(envs_dir, tmp_path / "none-fit", prompt_limit=PromptLimit(tokenizer=tokenizer, max_prompt_length=10))


def test_prompt_limit_loads_the_policy_tokenizer_by_name(envs_dir, tokenizer_dir, tmp_path):
    report = prepare(envs_dir, tmp_path / "o", prompt_limit=PromptLimit(tokenizer=str(tokenizer_dir), max_prompt_length=100_000))
    assert report.prompt_tokens_max is not None and report.prompt_tokens_max > 100
    with pytest.raises(DatasetError, match="no such model directory"):
        prepare(envs_dir, tmp_path / "x", prompt_limit=PromptLimit(tokenizer=str(tmp_path / "missing"), max_prompt_length=10))


def test_held_out_validation_environments_leave_every_training_row_as_it_was(envs, tmp_path):
    train_dir, val_dir = tmp_path / "train", tmp_path / "val"
    for env in envs[:3]:
        env.write(train_dir / env.spec.id)
    envs[3].write(val_dir / envs[3].spec.id)
    prepare(train_dir, tmp_path / "alone", seed=1)
    report = prepare(train_dir, tmp_path / "apart", seed=1, val_envs=val_dir)
    assert (report.train, report.val) == (3, 1)
    assert [t.env_id for t in read_trl_tasks(tmp_path / "apart" / "val.jsonl")] == [envs[3].spec.id]
    # Every training environment trains, with the very row (distractors included) written without the held-out ones.
    rows = lambda out, *splits: sorted(line for s in splits for line in (tmp_path / out / f"{s}.jsonl").read_text().splitlines())  # noqa: E731
    assert rows("apart", "train") == rows("alone", "train", "val")
    with pytest.raises(DatasetError, match="also under"):
        prepare(train_dir, tmp_path / "twice", val_envs=train_dir / envs[0].spec.id)
