"""The records synth/env passes between its stages (one JSONL line each, keyed by `id`).

A sample grows as it moves through the pipeline: `decompose` fills the trace, `necessity`
adds per-sub-question tool decisions, `checks` the four judge scores, `tools` the validated
tools, `merge` the merged tool set; `assemble` turns it into an `Environment`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "CheckName",
    "CheckReply",
    "Decomposition",
    "EnvRecord",
    "Failure",
    "Judgement",
    "Necessity",
    "NecessityItem",
    "Sample",
    "Seed",
    "SubQuestion",
    "SynthTool",
    "ToolDoc",
    "attempt_id",
]

Mode = Literal["question", "corpus", "domain"]
Scenario = Literal["single_hop", "parallel_single_hop", "multi_hop", "parallel_multi_hop"]
CheckName = Literal["dependency", "atomicity", "serialization", "completeness", "coherence"]
LANGUAGE_NAMES = {"en": "English", "zh": "Simplified Chinese"}
"""The languages prompts name and `wrong_language` checks, by seed language code."""


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Seed(_Record):
    """One input row made uniform: where a sample starts."""

    id: str = Field(description="Content-derived id of the input row.")
    mode: Mode = Field(description="question: decompose a given question; corpus: write one from a corpus; domain: from a domain name.")
    domain: str
    language: str = Field(description="`en`, `zh`, ... (detected from the text when not given).")
    question: str | None = None
    knowledge_corpus: str | None = None
    min_hops: int = Field(ge=1)
    max_hops: int = Field(ge=1)
    ref: str = Field(description="`file:line` of the input row.")

    @property
    def fewest_hops(self) -> int:
        """The fewest sub-questions a trace of this seed may have: a given question may need one lookup only."""
        return 1 if self.mode == "question" else self.min_hops


def attempt_id(seed_id: str, attempt: int) -> str:
    """The id of a seed's `attempt`-th pass through the pipeline (`SynthConfig.seed_attempts`): the seed's own
    id first, so a run with one attempt reads and writes what it always did."""
    return seed_id if attempt == 0 else f"{seed_id}-a{attempt}"


class SubQuestion(_Record):
    """One hop of the trace, as the decomposer writes it."""

    id: str = Field(pattern=r"^[A-Za-z0-9_-]{1,32}$", description="Short id, e.g. q1; dependencies refer to it.")
    question: str = Field(min_length=1)
    statement: str | None = Field(
        default=None, description="The fact in one sentence, written before its value: a small model then keeps `answer` to the value."
    )
    answer: str = Field(min_length=1, max_length=300, description="A concrete atomic answer.")
    depends_on: list[str] = Field(default_factory=list, description="Ids of the sub-questions whose answers it needs.")
    parallel: bool = Field(default=False, description="Whether it can run at the same time as another sub-question.")


class Decomposition(BaseModel):
    """The decomposer's structured output."""

    main_question: str = Field(min_length=1)
    sub_questions: list[SubQuestion] = Field(min_length=1)
    final_answer: str = Field(min_length=1)


class NecessityItem(BaseModel):
    """Whether one sub-question needs a tool, and why."""

    id: str
    needs_tool: bool
    reason: str = Field(min_length=1)


class Necessity(BaseModel):
    """The tool-necessity judge's output."""

    items: list[NecessityItem] = Field(min_length=1)


class Judgement(BaseModel):
    """One check's verdict: a score in [0, 1] and the judge's reason. Both are required."""

    score: float = Field(ge=0, le=1)
    reason: str = Field(min_length=1)
    verdict: str | None = Field(default=None, description="The judge's word verdict (yes, mostly, partly, no) the score stands for.")


class CheckReply(BaseModel):
    """What a check judge writes: its reason first, then a word verdict."""

    reason: str = Field(min_length=1)
    verdict: Literal["yes", "mostly", "partly", "no"]


class ToolDoc(BaseModel):
    """A tool document as the model writes it (parameters is a JSON Schema object)."""

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
    description: str = Field(min_length=1)
    parameters: dict[str, Any]


class SynthTool(_Record):
    """A validated tool: its document, its code and the golden call of every sub-question it serves."""

    name: str = Field(description="The tool name (unique within the sample after assembly).")
    function: str = Field(description="Name of the function in `code` that implements it.")
    description: str
    input_schema: dict[str, Any]
    code: str = Field(description="Standard-library-only, deterministic Python defining `function`.")
    calls: dict[str, dict[str, Any]] = Field(description="Sub-question id -> golden call arguments.")
    merged: bool = False
    scaled: bool = Field(default=False, description="Whether complexity scaling was applied.")


class Sample(_Record):
    """A sample as it moves through the stages."""

    id: str
    seed: Seed
    question: str
    answer: str
    scenario: Scenario
    sub_questions: list[SubQuestion]
    necessity: dict[str, NecessityItem] | None = None
    checks: dict[str, Judgement] | None = None
    tools: list[SynthTool] | None = None
    notes: list[str] = Field(default_factory=list, description="Non-fatal events: fallbacks, renames.")


class EnvRecord(_Record):
    """The final stage's record: one environment written to `envs/<env_id>/`."""

    id: str
    env_id: str
    path: str = Field(description="Relative to the output directory.")
    domain: str
    language: str
    scenario: Scenario
    hops: int
    tools: int
    notes: list[str] = Field(default_factory=list)


class Failure(BaseModel):
    """Why a stage rejected a sample: a stable reason code and the evidence."""

    reason: str
    detail: str = ""
