"""The public APIs of `synth.core`, `synth.env` and `synth.exceptions` are their `__all__` (`synth.sft`: test_api.py)."""

from __future__ import annotations

import pytest

import synth.core
import synth.env
import synth.exceptions

EXPECTED = {
    synth.core: {
        "COPIED_EXAMPLE", "DATA_DIR", "CheckOutcome", "JsonlStore", "LLMCache", "LLMCounts", "MeteredModel", "PipelineStats",
        "PromptExample", "ReasonCode", "Rejection", "ReplyCheck", "Stage", "StageCounts", "StageMeter", "StageTokens",
        "StructuredResult", "ask_structured", "cache_key", "enforces_schema", "extract_json", "map_ordered", "progress_bar", "pyplot", "record_id", "save_figure",
        "rejections_store", "stage_counts", "string_leaves", "VERDICTS", "VERDICT_TOP_LOGPROBS", "VERDICT_WORDS", "YES_NO", "VerdictReader", "verdict_schema",
    },
    synth.env: {
        "Defect", "EnvRecord", "Failure", "ImportRecord", "Judgement", "STAGES", "Sample", "Seed", "SubQuestion",
        "SynthConfig", "SynthResult", "SynthTool", "Thresholds", "import_envs", "load_seeds", "render_report", "synthesize_envs",
        "MEANING_CODES", "MeaningFinding", "meaning_findings", "AuditFinding", "CorpusAudit", "apply_audit", "audit_corpus",
        "duplicate_tool_groups", "embedder_installed", "load_embedder",
    },
    synth.exceptions: {"CodeProblem", "LeakAuditUnavailable", "RowError", "SchemaConversionError", "StoreCorrupt", "SynthError"},
}  # fmt: skip


@pytest.mark.parametrize("module", list(EXPECTED), ids=lambda m: m.__name__)
def test_all_is_the_public_api_and_every_name_resolves(module) -> None:
    assert set(module.__all__) == EXPECTED[module] and len(module.__all__) == len(set(module.__all__))
    for name in module.__all__:
        assert getattr(module, name) is not None, name


def test_every_synth_error_derives_from_the_base_and_keeps_its_builtin_kind() -> None:
    errors = [getattr(synth.exceptions, n) for n in synth.exceptions.__all__]
    assert all(issubclass(e, synth.exceptions.SynthError) for e in errors)
    assert issubclass(synth.exceptions.LeakAuditUnavailable, RuntimeError)
    assert issubclass(synth.exceptions.RowError, ValueError) and issubclass(synth.exceptions.SchemaConversionError, ValueError)
    assert synth.exceptions.CodeProblem("forbidden_import", "no sockets").code == "forbidden_import"
