"""Configuration of the environment-synthesis pipeline, with its documented defaults."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from agent_sdk import SamplingSettings

__all__ = ["SynthConfig", "Thresholds", "STAGES"]

STAGES = ("decompose", "leak_audit", "necessity", "checks", "tools", "merge", "assemble")
"""Stage names, in pipeline order (also the names of their JSONL files)."""


class Thresholds(BaseModel):
    """Minimum judge scores (each in [0, 1]) a sample needs to pass the checks stage.

    A verdict scores yes 1, mostly 0.75, partly 0.4, no 0, or, where the endpoint returns token
    probabilities, the expectation of those under the judge's probabilities of the words. Defaults:
    0.5 for each of the five checks (a "partly" on any fails; read by probability, the judge leans
    to a failing verdict) and 0.7 for their mean. At 0.6 the teacher's soft yeses on dependency
    (0.52-0.85 on 27 slice traces, whatever the trace) failed 4 traces that every word passed.
    """

    model_config = ConfigDict(extra="forbid")

    dependency: float = Field(default=0.5, ge=0, le=1, description="Dependencies are exactly what each step needs.")
    atomicity: float = Field(default=0.5, ge=0, le=1, description="Each sub-question asks for one fact.")
    serialization: float = Field(default=0.5, ge=0, le=1, description="No artificial chaining of parallel steps.")
    completeness: float = Field(default=0.5, ge=0, le=1, description="The final answer states the values asked for.")
    coherence: float = Field(default=0.5, ge=0, le=1, description="The sub-questions, answered, answer the main question.")
    mean: float = Field(default=0.7, ge=0, le=1, description="Minimum mean of the four scores.")


class SynthConfig(BaseModel):
    """Everything `synthesize_envs` can be told; the CLI maps its flags onto these fields."""

    model_config = ConfigDict(extra="forbid")

    min_hops: int = Field(default=2, ge=1, le=12, description="Fewest sub-questions for corpus/domain inputs.")
    max_hops: int = Field(default=4, ge=1, le=12, description="Most sub-questions for any input.")
    corpus_max_tokens: int = Field(
        default=1024,
        ge=32,
        description="A knowledge corpus longer than this (estimated tokens) is split into several seeds, one per chunk "
        "of whole sentences, so each decompose prompt fits a small model's context.",
    )
    retries: int = Field(default=2, ge=0, le=10, description="Re-asks after invalid structured output.")
    decompose_draws: int = Field(
        default=3, ge=1, le=10,
        description="Independent decompositions of a seed, each with its re-asks, until one passes: the first at `sampling`, "
        "the others at `redraw_temperature` with seeds 1, 2, ... (reproducible). Fed back twice, the 1.5B teacher rewrote "
        "the same flawed trace; a fresh draw is a different one.",
    )
    redraw_temperature: float = Field(default=0.8, gt=0, le=2, description="Temperature of the decomposition draws after the first.")
    seed_attempts: int = Field(
        default=2, ge=1, le=10,
        description="Passes of a seed through the whole pipeline: when any stage rejects its sample (a judged check, a "
        "tool that will not validate), the seed is decomposed afresh with the next `decompose_draws` draws and tried "
        "again as `<seed id>-a1`, `-a2`, ... Without it a teacher slice run lost 13 of its 19 decomposed rows after "
        "decomposition, where no draw was left to try.",
    )  # fmt: skip
    code_retries: int = Field(default=2, ge=0, le=10, description="Re-writes of tool code after a sandbox failure.")
    scale_complexity: bool = Field(default=True, description="Add optional parameters/enums to tool documents.")
    merge: bool = Field(default=True, description="Merge tools of sub-questions that share an intent.")
    thresholds: Thresholds = Field(default_factory=Thresholds)
    sampling: SamplingSettings = Field(
        default_factory=lambda: SamplingSettings(temperature=0.0, max_tokens=1024),
        description="Sampling settings of every request (temperature 0 keeps re-runs reproducible).",
    )
    list_frequency_penalty: float = Field(
        default=0.5,
        ge=0,
        le=2,
        description="Frequency penalty of the requests that write lists (sub-questions, table rows): at 0 the embedded "
        "model repeated one sub-question 2-4 times in 6 of 15 decompositions.",
    )
    max_llm_concurrency: int = Field(default=8, ge=1, description="LLM requests in flight.")
    samples_in_flight: int = Field(default=16, ge=1, description="Samples processed concurrently.")
    llm_timeout_s: float = Field(
        default=900.0, gt=0, description="Per-request timeout (a busy CPU server batching many requests is slow per request)."
    )
    leak_threshold: float = Field(default=0.9, gt=0, le=1, description="Cosine similarity at or above which a main question is a benchmark leak.")
    leak_audit: bool = Field(default=True, description="Run the benchmark leak audit (needs sentence-transformers).")
    benchmark_files: list[Path] | None = Field(
        default=None, description="Benchmark question files for the leak audit; None discovers the installed ones."
    )
    retry_model_errors: bool = Field(
        default=True, description="On a re-run, retry samples rejected only because the model endpoint failed (reason *model_error)."
    )
    sandbox_workers: int = Field(default=2, ge=1, description="Sandbox worker processes.")
    unsafe_no_sandbox: bool = Field(default=False, description="Run tool code without isolation (only where none is available).")

    def list_sampling(self) -> SamplingSettings:
        """`sampling` with the list frequency penalty: the settings of requests that write lists."""
        return self.sampling.model_copy(update={"frequency_penalty": self.list_frequency_penalty or None})
