"""Shared pipeline machinery: structured LLM output, response cache, resumable JSONL stages, stats.

Every synthesis pipeline (`synth.env`, `synth.sft`) is built from these parts:

- `ask_structured` asks a `ChatModel` for a pydantic-validated object, retrying with the
  validation error and failing closed with a reason code;
- `MeteredModel` wraps any model with the content-addressed `LLMCache`, a concurrency limit
  and counters;
- `Stage` / `JsonlStore` append records durably and skip ids already done, so `kill -9`
  and a re-run lose nothing and duplicate nothing (input files are read with
  `agent_sdk.read_jsonl`, which reports bad lines);
- `map_ordered` runs records concurrently with a progress bar, in input order;
- `PipelineStats` writes `stats.json` (funnel, reasons, LLM calls and tokens, wall time);
  `StageMeter` counts prompt tokens per stage;
- `PromptExample` is every prompt's format example, shown only to a model whose engine does
  not enforce the schema (`format_section`); `ReplyCheck` rejects replies that copy it
  (`copied_example`) and keeps each check's own reason code;
- `pyplot` / `save_figure`: the reports' figures, written without a display;
- `VERDICTS`: the word-labelled scale (yes / mostly / partly / no) every judge answers on;
  `VerdictReader` weighs a reply's words by the model's own probabilities of them;
- `values`: the values a text names and the parameters each can fill (`key_values`, `fits_parameter`);
- `DATA_DIR`: the vendored third-party data (`data/` at the repository root: ASTRA's inputs, ACEBench).
"""

from synth.core.cache import LLMCache, cache_key
from synth.core.data import DATA_DIR
from synth.core.checks import COPIED_EXAMPLE, CheckOutcome, PromptExample, ReplyCheck, string_leaves
from synth.core.llm import LLMCounts, MeteredModel
from synth.core.plots import pyplot, save_figure
from synth.core.runner import map_ordered, progress_bar
from synth.core.stats import PipelineStats, StageCounts, StageMeter, StageTokens, stage_counts
from synth.core.store import JsonlStore, Rejection, Stage, record_id, rejections_store
from synth.core.structured import ReasonCode, StructuredResult, ask_structured, enforces_schema, extract_json
from synth.core.verdicts import VERDICT_TOP_LOGPROBS, VERDICT_WORDS, VERDICTS, YES_NO, VerdictReader, verdict_schema

__all__ = [
    "COPIED_EXAMPLE",
    "DATA_DIR",
    "VERDICTS",
    "VERDICT_TOP_LOGPROBS",
    "VERDICT_WORDS",
    "YES_NO",
    "CheckOutcome",
    "JsonlStore",
    "LLMCache",
    "LLMCounts",
    "MeteredModel",
    "PipelineStats",
    "PromptExample",
    "ReasonCode",
    "Rejection",
    "ReplyCheck",
    "Stage",
    "StageCounts",
    "StageMeter",
    "StageTokens",
    "StructuredResult",
    "VerdictReader",
    "ask_structured",
    "cache_key",
    "enforces_schema",
    "extract_json",
    "map_ordered",
    "progress_bar",
    "pyplot",
    "record_id",
    "rejections_store",
    "save_figure",
    "stage_counts",
    "string_leaves",
    "verdict_schema",
]
