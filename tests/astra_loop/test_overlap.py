"""The train/eval separation check with the packaged all-MiniLM-L6-v2 embeddings on tiny inputs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from astra_loop import OverlapError, Question, check_separation, find_overlaps
from astra_loop.overlap import question_overlaps
from rl import Embedder

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def embedder(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    return Embedder(cache_dir=tmp_path_factory.mktemp("emb"))


def _sft_file(path: Path, questions: list[str]) -> Path:
    rows = [{"messages": [{"role": "system", "content": "Use tools."}, {"role": "user", "content": q}, {"role": "assistant", "content": "ok"}]} for q in questions]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_a_paraphrase_is_a_near_duplicate_and_an_unrelated_question_is_not(embedder: Embedder) -> None:
    evaluation = [Question(text="Which gate does the morning flight from Zurich to Porto leave from?", ref="eval:flight")]
    train = [
        Question(text="From which gate does the morning Zurich to Porto flight depart?", ref="train:1"),
        Question(text="How many calories are in 200 g of cooked brown rice?", ref="train:2"),
        Question(text="  which gate does the morning flight from zurich to porto leave from? ", ref="train:3"),
    ]
    found = question_overlaps(train, evaluation, embedder=embedder, threshold=0.85)
    assert [o.train_ref for o in found] == ["train:1", "train:3"]
    assert all(o.eval_ref == "eval:flight" for o in found)
    assert found[0].score >= 0.85 and found[1].score == 1.0


def test_separate_data_passes_and_counts_what_it_compared(tmp_path: Path, train_envs: Path, eval_envs: Path, embedder: Embedder) -> None:
    sft = _sft_file(tmp_path / "sft.jsonl", ["What is the capital of Portugal?"])
    compared = check_separation(train_envs=[train_envs], sft_files=[sft], eval_envs=eval_envs, embedder=embedder, threshold=0.9,
                                report=tmp_path / "overlap.jsonl")
    assert compared > 3
    assert (tmp_path / "overlap.jsonl").read_text() == ""


def test_an_eval_env_in_training_and_a_leaked_question_fail_closed(tmp_path: Path, train_envs: Path, eval_envs: Path, embedder: Embedder) -> None:
    shutil.copytree(eval_envs / "flight_gate", train_envs / "renamed_copy")
    question = json.loads((eval_envs / "weather_forecast" / "env.json").read_text())["task"]["question"]
    sft = _sft_file(tmp_path / "sft.jsonl", ["Tell me about CS231.", question.replace("What weather", "Which weather")])
    found = find_overlaps(train_envs=[train_envs], sft_files=[sft], eval_envs=eval_envs, embedder=embedder, threshold=0.9)
    kinds = sorted((o.kind, Path(o.eval_ref.split(":")[0]).name) for o in found)
    assert ("env_id", "flight_gate") in kinds and ("question", "weather_forecast") in kinds
    assert any(o.kind == "question" and o.train_ref == f"{sft}:2" for o in found)
    with pytest.raises(OverlapError) as info:
        check_separation(train_envs=[train_envs], sft_files=[sft], eval_envs=eval_envs, embedder=embedder, threshold=0.9, report=tmp_path / "o.jsonl")
    message = str(info.value)
    assert "training data overlaps the evaluation set" in message and "renamed_copy" in message and f"{sft}:2" in message
    assert len((tmp_path / "o.jsonl").read_text().splitlines()) == len(found)


def test_an_empty_eval_set_is_refused(tmp_path: Path, train_envs: Path, embedder: Embedder) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(OverlapError, match="no environments to evaluate on"):
        check_separation(train_envs=[train_envs], sft_files=[], eval_envs=tmp_path / "empty", embedder=embedder, threshold=0.9)
