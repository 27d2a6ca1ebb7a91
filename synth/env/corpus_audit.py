"""The leak audit of a synthesized corpus: every item against the development set and the benchmarks.

A corpus trains an agent that is then scored on `examples/envs` and on public benchmarks, so
nothing of either may be in it. Each environment and SFT row is checked item by item, and each
finding keeps its kind (the funnel counts them), declared in `CHECK_CODES` (`astra checks --family
corpus_audit`): an environment id, a question, a sub-question or an SFT task of the development set or a
benchmark, a tool called with the same entities, or a distinctive answer.

An environment with any finding, and an SFT row with any finding, is left out of the corpus
(`apply_audit` moves it aside) and counted.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from mcp_servers import CheckCode, Environment, generic_answer_reason, normalize_answer
from synth.env._leak import LeakAuditor, _encode, benchmark_questions, default_benchmark_files, load_embedder

__all__ = ["CHECK_CODES", "AuditFinding", "CorpusAudit", "apply_audit", "audit_corpus"]

FindingKind = Literal["env_id", "question", "sub_question", "sft_task", "tool", "answer"]

CHECK_CODES: tuple[CheckCode, ...] = CheckCode.load_declarations(__name__)
"""Every finding kind of the audit (`FindingKind`)."""


class AuditFinding(BaseModel):
    """One corpus item that matches the development set or a benchmark."""

    kind: FindingKind
    item: str = Field(description="The environment's directory name, or `sft:<row index>`.")
    text: str = Field(description="The corpus text that matched.")
    matched: str = Field(description="The reference text it matched.")
    reference: str = Field(description="Where the reference text comes from: an environment directory or a benchmark file.")
    score: float = Field(description="1.0 for an exact match, else the cosine.")


class CorpusAudit(BaseModel):
    """What the audit checked and what it leaves out."""

    envs: int
    sft_rows: int
    threshold: float
    references: int = Field(default=0, description="Reference environments checked against.")
    benchmarks: list[str] = Field(default_factory=list, description="Benchmark question files checked against.")
    findings: list[AuditFinding] = Field(default_factory=list)
    left_out_envs: list[str] = Field(default_factory=list, description="Directory names of environments with a finding.")
    left_out_sft: list[int] = Field(default_factory=list, description="Indices of SFT rows with a finding.")

    @property
    def counts(self) -> dict[str, int]:
        """Findings per kind."""
        return dict(Counter(f.kind for f in self.findings))


def _distinctive(answer: str) -> bool:
    return generic_answer_reason(answer) is None and len(normalize_answer(answer)) >= 4


def _entities(env: Environment) -> set[tuple[str, str]]:
    return {
        (s.golden_call.tool, normalize_answer(str(v)))
        for s in env.spec.subtasks
        if s.golden_call is not None
        for v in s.golden_call.arguments.values()
        if isinstance(v, str | int | float) and _distinctive(str(v))
    }


def _sft_task(row: dict[str, Any]) -> str:
    return next((str(m.get("content") or "") for m in row.get("messages") or [] if m.get("role") == "user"), "")


async def audit_corpus(
    envs: Sequence[Environment],
    sft_rows: Sequence[dict[str, Any]],
    *,
    reference_envs: Sequence[Environment],
    benchmark_files: Sequence[Path] | None = None,
    embedder: Any = None,
    threshold: float = 0.9,
) -> CorpusAudit:
    """Check every item of a corpus against `reference_envs` and the questions of `benchmark_files`.

    Args:
        envs: the corpus environments.
        sft_rows: the corpus SFT rows (OpenAI chat rows).
        reference_envs: environments the corpus must not contain (the development set).
        benchmark_files: benchmark question files (default: every one installed, WebTailBench, BFCL, tau2, ACEBench).
        embedder: a sentence-transformers model (default: the packaged all-MiniLM-L6-v2).
        threshold: cosine at or above which two questions are one.
    """
    benchmark_files = default_benchmark_files() if benchmark_files is None else list(benchmark_files)
    embedder = embedder if embedder is not None else load_embedder()
    texts: list[str] = []
    sources: list[str] = []
    for ref in reference_envs:
        for question in [ref.spec.task.question, *(s.question for s in ref.spec.subtasks)]:
            texts.append(question)
            sources.append(str(ref.path))
    for path in benchmark_files:
        questions = benchmark_questions(path)
        texts += questions
        sources += [str(path)] * len(questions)
    auditor = LeakAuditor(embedder, texts, sources, _encode(embedder, texts), threshold)
    ids = {ref.spec.id: str(ref.path) for ref in reference_envs}
    answers = {
        normalize_answer(a): str(ref.path)
        for ref in reference_envs
        for a in [ref.spec.task.answer, *(s.answer for s in ref.spec.subtasks)]
        if _distinctive(a)
    }
    entities = {entity: str(ref.path) for ref in reference_envs for entity in _entities(ref)}

    findings: list[AuditFinding] = []

    async def question(kind: FindingKind, item: str, text: str) -> None:
        hit = await auditor.check(text) if text.strip() else None
        if hit is not None:
            findings.append(AuditFinding(kind=kind, item=item, text=text, matched=hit.benchmark_question, reference=hit.source, score=hit.score))

    for env in envs:
        item = env.path.name
        if env.spec.id in ids:
            findings.append(AuditFinding(kind="env_id", item=item, text=env.spec.id, matched=env.spec.id, reference=ids[env.spec.id], score=1.0))
        await question("question", item, env.spec.task.question)
        for sub in env.spec.subtasks:
            await question("sub_question", item, sub.question)
        for tool, value in sorted(_entities(env) & set(entities)):
            findings.append(AuditFinding(kind="tool", item=item, text=f"{tool}({value})", matched=f"{tool}({value})",
                                         reference=entities[(tool, value)], score=1.0))  # fmt: skip
        for answer in dict.fromkeys([env.spec.task.answer, *(s.answer for s in env.spec.subtasks)]):
            key = normalize_answer(answer)
            if _distinctive(answer) and key in answers:
                findings.append(AuditFinding(kind="answer", item=item, text=answer, matched=answer, reference=answers[key], score=1.0))
    for index, row in enumerate(sft_rows):
        await question("sft_task", f"sft:{index}", _sft_task(row))
    flagged = {f.item for f in findings}
    return CorpusAudit(
        envs=len(envs), sft_rows=len(sft_rows), threshold=threshold, references=len(reference_envs),
        benchmarks=[str(p) for p in benchmark_files], findings=findings,
        left_out_envs=sorted(env.path.name for env in envs if env.path.name in flagged),
        left_out_sft=[i for i in range(len(sft_rows)) if f"sft:{i}" in flagged],
    )  # fmt: skip


def apply_audit(audit: CorpusAudit, envs_dir: Path, sft_file: Path | None) -> Path:
    """Leave out what `audit` flagged: flagged environments move to `envs_dir/../leaked/`, flagged SFT
    rows to `leaked_sft.jsonl` beside `sft_file`; the audit is written to `envs_dir/../audit.json`."""
    root = envs_dir.parent
    leaked = root / "leaked"
    for name in audit.left_out_envs:
        leaked.mkdir(exist_ok=True)
        shutil.move(str(envs_dir / name), str(leaked / name))
    if sft_file is not None and audit.left_out_sft:
        lines = [line for line in sft_file.read_text(encoding="utf-8").splitlines() if line.strip()]  # as read_jsonl numbers rows
        out = set(audit.left_out_sft)
        sft_file.write_text("".join(f"{line}\n" for i, line in enumerate(lines) if i not in out), encoding="utf-8")
        with (sft_file.parent / "leaked_sft.jsonl").open("a", encoding="utf-8") as fh:
            fh.writelines(f"{lines[i]}\n" for i in sorted(out))
    path = root / "audit.json"
    path.write_text(json.dumps({**audit.model_dump(), "counts": audit.counts}, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
