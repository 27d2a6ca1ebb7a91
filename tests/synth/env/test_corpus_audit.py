"""The corpus leak audit on planted leaks of each kind, and on the authored training set (which has none)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mcp_servers import load_env, load_envs
from synth.env import apply_audit, audit_corpus

EXAMPLES = Path(__file__).parents[3] / "examples"


def _with(env, path: Path, **spec):
    return env.model_copy(update={"spec": env.spec.model_copy(update=spec), "path": path})


@pytest.mark.anyio
async def test_each_planted_leak_is_found_with_its_kind_and_clean_items_pass(embedder, tmp_path):
    references = load_envs(EXAMPLES / "envs")
    clean = load_envs(EXAMPLES / "train_envs")
    audit = await audit_corpus(clean, [], reference_envs=references, benchmark_files=[], embedder=embedder)
    assert audit.findings == [], "the authored training set shares nothing with the development set"

    ref = load_env(EXAMPLES / "envs" / "flight_gate")
    base = clean[0]
    sub = base.spec.subtasks[0]
    planted = [
        ref.model_copy(update={"path": tmp_path / "copied"}),
        _with(base, tmp_path / "paraphrased", task=base.spec.task.model_copy(update={"question": ref.spec.task.question.rstrip("?") + " ?"})),
        _with(base, tmp_path / "answered", subtasks=[sub.model_copy(update={"answer": "Priya Raman"}), *base.spec.subtasks[1:]]),
    ]
    ref_call = next(s.golden_call for s in ref.spec.subtasks if s.golden_call is not None)
    entity = sub.model_copy(update={"golden_call": ref_call})
    planted.append(_with(base, tmp_path / "entity", subtasks=[entity, *base.spec.subtasks[1:]]))
    sft = [{"messages": [{"role": "user", "content": ref.spec.task.question}, {"role": "assistant", "content": "A52"}]},
           {"messages": [{"role": "user", "content": "Book a table for two at 19:00 tonight."}, {"role": "assistant", "content": "Done."}]}]  # fmt: skip
    audit = await audit_corpus([*planted, *clean[1:]], sft, reference_envs=references, benchmark_files=[], embedder=embedder)
    kinds = {(f.item, f.kind) for f in audit.findings}
    assert {("copied", "env_id"), ("copied", "question"), ("copied", "sub_question"), ("copied", "tool"), ("copied", "answer")} <= kinds
    assert ("paraphrased", "question") in kinds, kinds
    assert ("answered", "answer") in kinds and ("entity", "tool") in kinds, "Priya Raman is company_facts' answer"
    assert ("sft:0", "sft_task") in kinds and not any(item == "sft:1" for item, _ in kinds)
    assert audit.left_out_envs == ["answered", "copied", "entity", "paraphrased"] and audit.left_out_sft == [0]
    assert not any(f.item not in {"answered", "copied", "entity", "paraphrased", "sft:0"} for f in audit.findings)


def test_apply_moves_what_is_flagged_aside_and_the_cli_reports_counts(tmp_path):
    corpus = tmp_path / "corpus"
    shutil.copytree(EXAMPLES / "train_envs", corpus / "envs")
    shutil.copytree(EXAMPLES / "envs" / "zh_train", corpus / "envs" / "zh_train_copy")
    sft = corpus / "sft.jsonl"
    sft.write_text(json.dumps({"messages": [{"role": "user", "content": load_env(EXAMPLES / "envs" / "zh_train").spec.task.question}]}) + "\n\n"
                   + json.dumps({"messages": [{"role": "user", "content": "How tall is the tower?"}]}) + "\n", encoding="utf-8")  # fmt: skip
    from astra_cli import app

    none = tmp_path / "no_questions.jsonl"
    none.write_text("")

    result = CliRunner().invoke(app, ["env", "audit", str(corpus / "envs"), "--sft", str(sft), "--benchmark", str(none)])
    assert result.exit_code == 1 and "left out 1 environments, 1 SFT rows" in result.output, result.output
    applied = CliRunner().invoke(app, ["env", "audit", str(corpus / "envs"), "--sft", str(sft), "--apply", "--benchmark", str(none)])
    assert applied.exit_code == 0, applied.output
    assert (corpus / "leaked" / "zh_train_copy").is_dir() and not (corpus / "envs" / "zh_train_copy").exists()
    assert [json.loads(line)["messages"][0]["content"] for line in sft.read_text().splitlines()] == ["How tall is the tower?"]
    assert len((corpus / "leaked_sft.jsonl").read_text().splitlines()) == 1
    saved = json.loads((corpus / "audit.json").read_text())
    assert saved["counts"]["env_id"] == 1 and saved["left_out_envs"] == ["zh_train_copy"]
    missing = CliRunner().invoke(app, ["env", "audit", str(tmp_path / "nope")])
    assert missing.exit_code == 2 and "no such directory" in missing.output
    absent = CliRunner().invoke(app, ["env", "audit", str(corpus / "envs"), "--benchmark", str(tmp_path / "absent.jsonl")])
    assert absent.exit_code == 2 and "absent.jsonl: no such file" in absent.output
