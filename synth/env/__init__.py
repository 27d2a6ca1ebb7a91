"""Environment synthesis: questions, corpora or domains -> verified tool environments (ASTRA §3).

Stages (each an LLM step with pydantic-validated output that fails closed): decompose,
leak audit, tool necessity, five checks, tool synthesis (validated in the sandbox), merge,
assemble + `verify` + the meaning checks. Only environments that pass `verify` and every
meaning check are written to `DIR/envs/`. `audit_corpus` checks a finished corpus item by item
against the development set and the benchmarks.
"""

from synth.env.config import STAGES, SynthConfig, Thresholds
from synth.env._leak import embedder_installed, load_embedder
from synth.env._meaning import MEANING_CODES, MeaningFinding, duplicate_tool_groups, meaning_findings
from synth.env.corpus_audit import AuditFinding, CorpusAudit, apply_audit, audit_corpus
from synth.env.importer import Defect, ImportRecord, import_envs
from synth.env.pipeline import SynthResult, load_seeds, synthesize_envs
from synth.env.records import EnvRecord, Failure, Judgement, Sample, Seed, SubQuestion, SynthTool
from synth.env.report import render_report

__all__ = [
    "MEANING_CODES",
    "STAGES",
    "AuditFinding",
    "CorpusAudit",
    "Defect",
    "EnvRecord",
    "Failure",
    "ImportRecord",
    "Judgement",
    "MeaningFinding",
    "Sample",
    "Seed",
    "SubQuestion",
    "SynthConfig",
    "SynthResult",
    "SynthTool",
    "Thresholds",
    "apply_audit",
    "audit_corpus",
    "duplicate_tool_groups",
    "embedder_installed",
    "import_envs",
    "load_embedder",
    "load_seeds",
    "meaning_findings",
    "render_report",
    "synthesize_envs",
]
