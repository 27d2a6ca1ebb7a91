"""`prepare`: veRL parquet (loaded with veRL's RLHFDataset) and TRL JSONL from an environments directory."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from rl.datasets import AGENT_NAME, RlTask, prepare, read_trl_tasks
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
