"""Environment synthesis: questions, corpora or domains -> verified tool environments (ASTRA §3).

Stages (each an LLM step with pydantic-validated output that fails closed): decompose,
leak audit, tool necessity, four checks, tool synthesis (validated in the sandbox), merge,
assemble + `verify`. Only environments that pass `verify` are written to `DIR/envs/`.
"""

from synth.env.config import STAGES, SynthConfig, Thresholds
from synth.env.importer import Defect, ImportRecord, import_envs
from synth.env.pipeline import SynthResult, load_seeds, synthesize_envs
from synth.env.records import EnvRecord, Failure, Judgement, Sample, Seed, SubQuestion, SynthTool
from synth.env.report import render_report

__all__ = [
    "STAGES",
    "Defect",
    "EnvRecord",
    "Failure",
    "ImportRecord",
    "Judgement",
    "Sample",
    "Seed",
    "SubQuestion",
    "SynthConfig",
    "SynthResult",
    "SynthTool",
    "Thresholds",
    "import_envs",
    "load_seeds",
    "render_report",
    "synthesize_envs",
]
