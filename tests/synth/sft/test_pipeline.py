"""The whole SFT pipeline over real MCP servers (example envs in a sandbox + the emulator).

The model is the scripted world (`sft_world.py`); environments, sandbox, MCP sessions,
stores and exports are real. Exported files are loaded with TRL's `SFTTrainer` and veRL's
`MultiTurnSFTDataset`, with a tokenizer built locally.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from sft_world import small_config, world_model

import agent_sdk
from agent_sdk import FunctionModel, read_jsonl
from synth.sft import DIMENSIONS, SftPipeline

ROOT = Path(__file__).resolve().parents[3]
SOURCES = [
    str(ROOT / "examples" / "envs" / "flight_gate"),
    str(ROOT / "examples" / "envs" / "hotel_booking"),
    str(ROOT / "examples" / "tool_docs" / "travel_desk.json"),
    str(ROOT / "examples" / "tool_docs" / "astra_servers.jsonl"),
]


def _lines(path: Path) -> list[dict[str, Any]]:
    return read_jsonl(path).values


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("sft")
    pipeline = SftPipeline(out, world_model(), config=small_config(), show_progress=False)
    stats = anyio.run(pipeline.run, SOURCES)
    return out, stats


def test_funnel_and_artifacts(run_dir: tuple[Path, dict[str, Any]]) -> None:
    out, stats = run_dir
    funnel = stats["extra"]["funnel"]
    assert funnel["servers_ingested"] == 3 and funnel["servers_dropped"] == 2
    assert funnel["chains_verified"] == funnel["chains_sampled"] == 6
    assert funnel["tasks_generated"] == 2 * (6 + 3), "one chain task and one server task per unit, each with a persona rewrite"
    assert funnel["trajectories_kept"] == funnel["trajectories_judged"] == funnel["tasks_kept"] == funnel["tasks_generated"]
    assert stats["extra"]["rollout_backends"] == {"env": 6, "emulator": 12}
    assert stats["extra"]["rollouts_by_attempt"] == {"1": 18}, "every scripted rollout answers on its first attempt"
    assert stats["extra"]["mean_calls_per_trajectory"] == pytest.approx(40 / 18, abs=1e-3), "two calls a task, three for the 3-tool chain's pair"
    assert set(stats["extra"]["judge"]["per_dimension"]) == set(DIMENSIONS)
    rejected = {(r["stage"], r["reason"]) for r in _lines(out / "rejected.jsonl")}
    assert rejected == {("servers", "too_few_tools"), ("servers", "vague_description")}
    for png in ("funnel.png", "distributions.png"):
        assert (out / "plots" / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    on_disk = json.loads((out / "stats.json").read_text())
    assert on_disk["extra"]["funnel"] == funnel and on_disk["outputs"] == funnel["trajectories_kept"]


def test_trajectories_are_whole_multi_turn_conversations(run_dir: tuple[Path, dict[str, Any]]) -> None:
    out, _ = run_dir
    rows = _lines(out / "sft.jsonl")
    assert len(rows) == 18
    for row in rows:
        roles = [m["role"] for m in row["messages"]]
        calls = (len(roles) - 3) // 2
        assert calls >= 2 and roles == ["system", "user", *["assistant", "tool"] * calls, "assistant"]
        names = {t["function"]["name"] for t in row["tools"]}
        for m in row["messages"]:
            for call in m.get("tool_calls", []):
                assert call["function"]["name"] in names and isinstance(call["function"]["arguments"], dict)
    emulated = [r for r in _lines(out / "rollouts.jsonl") if r["backend"] == "emulator"]
    texts = [c["result"]["text"] for r in emulated for s in r["trajectory"]["steps"] for c in s["calls"]]
    assert any("booking_id" in t for t in texts), "doc-only tools were answered by the emulator's model"


def _tokenizer(data: Path) -> Any:
    """A word-level tokenizer whose vocabulary covers the rendered data, with TRL's Qwen2.5 template."""
    import trl
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    template = (Path(trl.__file__).parent / "chat_templates" / "qwen2_5.jinja").read_text()
    specials = ["<|im_start|>", "<|im_end|>", "<|endoftext|>", "<tool_call>", "</tool_call>", "[UNK]"]

    def build(words: list[str]) -> Any:
        model = Tokenizer(models.WordLevel(vocab={w: i for i, w in enumerate(dict.fromkeys(specials + words))}, unk_token="[UNK]"))
        model.pre_tokenizer = pre_tokenizers.Whitespace()
        model.add_special_tokens(specials)
        tokenizer = PreTrainedTokenizerFast(tokenizer_object=model, unk_token="[UNK]", eos_token="<|im_end|>", pad_token="<|endoftext|>")
        tokenizer.chat_template = template
        return tokenizer

    draft = build([])
    rendered = [draft.apply_chat_template(r["messages"], tools=r["tools"], tokenize=False) for r in _lines(data)]
    rendered.append(draft.apply_chat_template([{"role": "user", "content": ""}], tokenize=False, add_generation_prompt=True))
    splitter = pre_tokenizers.Whitespace()
    texts = ["".join(f" {p} " if p in specials else p for p in re.split(f"({'|'.join(map(re.escape, specials))})", t)) for t in rendered]
    return build([w for text in texts for w, _ in splitter.pre_tokenize_str(text)])


def test_sft_jsonl_loads_in_trl(run_dir: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    from datasets import load_dataset
    from transformers import LlamaConfig, LlamaForCausalLM
    from trl import SFTConfig, SFTTrainer

    out, _ = run_dir
    tokenizer = _tokenizer(out / "sft.jsonl")
    dataset = load_dataset("json", data_files=str(out / "sft.jsonl"), split="train")
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=2)
    trainer = SFTTrainer(
        model=LlamaForCausalLM(config),
        args=SFTConfig(output_dir=str(tmp_path), report_to=[], max_length=4096, use_cpu=True, bf16=False),
        train_dataset=dataset,
        processing_class=tokenizer,
    )
    assert len(trainer.train_dataset) == 18
    for row, source in zip(trainer.train_dataset, dataset, strict=True):
        text = tokenizer.decode(row["input_ids"])
        calls = sum(len(m.get("tool_calls") or []) for m in source["messages"])
        assert calls >= 2 and text.count("<tool_call>") == 2 + calls, "the tools header names the tag twice, then one per call"
        assert source["messages"][-1]["content"].split()[0] in text
        assert "[UNK]" not in text
        assert any(label != -100 for label in row["labels"])
    assert '"required": null' not in tokenizer.apply_chat_template(dataset[0]["messages"], tools=dataset[0]["tools"], tokenize=False)


def test_sft_parquet_loads_in_verl(run_dir: tuple[Path, dict[str, Any]]) -> None:
    from rl.verl import JsonMultiTurnSFTDataset

    out, _ = run_dir
    tokenizer = _tokenizer(out / "sft.jsonl")
    dataset = JsonMultiTurnSFTDataset(str(out / "sft.parquet"), tokenizer, {"max_length": 4096, "truncation": "right"})
    assert len(dataset) == 18
    item = dataset[0]
    assert item["input_ids"].shape == item["loss_mask"].shape
    assert 0 < int(item["loss_mask"].sum()) < int(item["attention_mask"].sum()), "only assistant turns are trained on"


def test_failing_judge_excludes_in_the_pipeline(run_dir: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    source, _ = run_dir
    out = tmp_path / "rejudge"
    shutil.copytree(source, out, ignore=shutil.ignore_patterns("judged.jsonl", "judge_verdicts.jsonl", "exported.jsonl", "rejected.jsonl", "cache"))
    judge = FunctionModel(lambda messages, tools, settings: '{"query_understanding": "yes", "reason": "rest omitted"}', name="broken-judge")
    pipeline = SftPipeline(out, world_model(), config=small_config(), judge_model=judge, show_progress=False)
    stats = anyio.run(pipeline.run, None, ["judge", "export"])
    funnel = stats["extra"]["funnel"]
    assert funnel["trajectories_judged"] == 0 and funnel["trajectories_kept"] == 0, "unjudged is excluded, never passed"
    per_dim = stats["extra"]["judge"]["per_dimension"]
    assert per_dim["query_understanding"]["exclusion_rate"] == 0.0
    assert per_dim["final_answer"]["exclusion_rate"] == 1.0 and per_dim["tool_call_planning"]["missing"] == 18
    assert {r["reason"] for r in _lines(out / "rejected.jsonl") if r["stage"] == "judged"} == {"unjudged"}
    assert (out / "sft.jsonl").read_text() == ""



def _rejudge(source: Path, out: Path, reply: Any) -> tuple[dict[str, Any], Any]:
    shutil.copytree(source, out, ignore=shutil.ignore_patterns("judged.jsonl", "judge_verdicts.jsonl", "exported.jsonl", "rejected.jsonl", "cache"))
    judge = FunctionModel(lambda messages, tools, settings: reply, name="judge")
    pipeline = SftPipeline(out, world_model(), config=small_config(), judge_model=judge, show_progress=False)
    return anyio.run(pipeline.run, None, ["judge", "export"]), judge


def test_a_stored_task_no_user_would_send_is_rejected_at_scoring_without_a_model_call(run_dir: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    source, _ = run_dir
    out = tmp_path / "templated"
    shutil.copytree(source, out, ignore=shutil.ignore_patterns("scored.jsonl", "rollouts.jsonl", "judged.jsonl", "judge_verdicts.jsonl", "exported.jsonl", "rejected.jsonl", "cache"))
    tasks = _lines(out / "tasks.jsonl")
    planted = {**tasks[0], "id": "task-planted", "question": "The user needs to book a flight from {origin} on {date}."}
    (out / "tasks.jsonl").write_text("".join(json.dumps(t) + "\n" for t in [*tasks, planted]))
    scorer = world_model("scorer")
    anyio.run(SftPipeline(out, world_model(), config=small_config(), judge_model=scorer, show_progress=False).run, None, ["score"])
    (rejected,) = [r for r in _lines(out / "rejected.jsonl") if r["stage"] == "scored"]
    assert rejected["id"] == "task-planted" and rejected["reason"] == "placeholder"
    assert scorer.requests and not any("{origin}" in r.messages[-1].content for r in scorer.requests), "the planted task never reached the scorer"


def test_a_judge_copying_its_example_rejects_with_its_own_code(run_dir: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    from synth.sft._judge import judge_example

    source, _ = run_dir
    copied = json.loads(judge_example(2).text) | {"query_understanding": "yes", "final_answer": "yes"}  # passing verdicts, placeholder kept
    stats, _ = _rejudge(source, tmp_path / "copied", json.dumps(copied))
    assert stats["extra"]["funnel"]["trajectories_kept"] == 0
    assert {r["reason"] for r in _lines(tmp_path / "copied" / "rejected.jsonl") if r["stage"] == "judged"} == {"judge_copied_example"}
    tokens = stats["tokens_by_stage_last_run"]["judge"]
    assert tokens["requests"] == 18 * 3 and stats["max_prompt_tokens"] == tokens["max_prompt_tokens"] > 0


@pytest.mark.skipif(not hasattr(agent_sdk, "ContextOverflowError"), reason="agent_sdk.ContextOverflowError lands with structured-output support")
def test_a_judge_prompt_that_cannot_fit_is_terminal_and_counted(run_dir: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    source, _ = run_dir
    stats, judge = _rejudge(source, tmp_path / "overflow", agent_sdk.ContextOverflowError("prompt longer than the 2048-token context"))
    assert stats["extra"]["funnel"]["rejected_context_overflow"] == 18
    assert {r["reason"] for r in _lines(tmp_path / "overflow" / "rejected.jsonl") if r["stage"] == "judged"} == {"judge_context_overflow"}
    assert len(judge.requests) == 18, "one request per trajectory, never retried"


_CHILD = """
import sys, anyio
sys.path.insert(0, {here!r})
from sft_world import small_config, world_reply
from agent_sdk import FunctionModel
from synth.sft import SftPipeline

async def slow(messages, tools, settings):
    await anyio.sleep(0.1)
    return world_reply(messages, tools, settings)

pipeline = SftPipeline({out!r}, FunctionModel(slow), config=small_config(), show_progress=False)
anyio.run(pipeline.run, {sources!r})
"""


def test_resume_after_kill(run_dir: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    clean, _ = run_dir
    out = tmp_path / "killed"
    here = Path(__file__).resolve().parent
    code = _CHILD.format(here=str(here), out=str(out), sources=SOURCES)
    child = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, start_new_session=True)
    deadline = time.monotonic() + 240
    try:
        while not (out / "rollouts.jsonl").exists() or len(_lines(out / "rollouts.jsonl")) < 3:
            assert child.poll() is None, "the pipeline finished or crashed before it could be killed"
            assert time.monotonic() < deadline, "no rollouts appeared in time"
            time.sleep(0.1)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    assert not (out / "stats.json").exists(), "killed mid-run, before the pipeline could finish"
    model = world_model()
    stats = anyio.run(SftPipeline(out, model, config=small_config(), show_progress=False).run, SOURCES)
    assert stats["extra"]["funnel"] == json.loads((clean / "stats.json").read_text())["extra"]["funnel"]
    assert stats["llm_last_run"]["cache_hits"] > 0, "work done before the kill is served from the cache"
    for store in ("servers", "chains", "tasks", "scored", "rollouts", "judged", "exported"):
        ids = [r["id"] for r in _lines(out / f"{store}.jsonl")]
        assert len(ids) == len(set(ids)), f"{store}.jsonl has duplicates after resume"
    assert sorted((out / "sft.jsonl").read_text().splitlines()) == sorted((clean / "sft.jsonl").read_text().splitlines())


def test_endpoint_outage_is_retried_not_rejected(tmp_path: Path) -> None:
    down = FunctionModel(lambda messages, tools, settings: ConnectionError("endpoint unreachable"), name="down")
    source = [str(ROOT / "examples" / "tool_docs" / "travel_desk.json")]
    stats = anyio.run(SftPipeline(tmp_path, down, config=small_config(), show_progress=False).run, source, ["ingest", "graph"])
    assert stats["extra"]["deferred_model_errors_last_run"] == {"graphs": 1}
    assert not (tmp_path / "rejected.jsonl").exists(), "an outage says nothing about the server: nothing is rejected"
    stats = anyio.run(SftPipeline(tmp_path, world_model(), config=small_config(), show_progress=False).run, None, ["graph"])
    assert stats["extra"]["funnel"]["servers_graphed"] == 1, "the next run retries what the outage left undecided"
