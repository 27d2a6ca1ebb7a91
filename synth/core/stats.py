"""Pipeline statistics (`stats.json`): the funnel per stage, rejection reasons, LLM spend, wall time.

The funnel is computed from the stage stores themselves, so it is correct after any number
of interrupted and resumed runs; LLM counts are kept for the last run and accumulated over
all runs (a resumed run served from the cache shows few calls, which is the point).

Prompt sizes per stage come from `StageMeter`, a `ChatModel` view that tags the usage each
reply reports with its stage: what a stage sends is what must fit the model's context.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from agent_sdk import ChatMessage, ChatModel, ModelResponse, SamplingSettings, Usage, WrapperModel
from synth.core.llm import LLMCounts
from synth.core.store import Stage

__all__ = ["PipelineStats", "StageCounts", "StageMeter", "StageTokens", "stage_counts"]


class StageCounts(BaseModel):
    """One row of the funnel."""

    stage: str
    seen: int = Field(description="Records the stage decided on (accepted + rejected).")
    accepted: int
    rejected: int
    reasons: dict[str, int] = Field(default_factory=dict, description="Rejections per reason code.")


def stage_counts(stage: Stage) -> StageCounts:
    """The funnel row of `stage`, from its stores."""
    reasons = Counter(r.reason for r in stage.rejections())
    accepted = len(stage.out)
    rejected = sum(reasons.values())
    return StageCounts(
        stage=stage.name, seen=accepted + rejected, accepted=accepted, rejected=rejected, reasons=dict(sorted(reasons.items()))
    )


class StageTokens(BaseModel):
    """Tokens of the replies one stage used, as the model reported them (cache hits included:
    a cached reply's prompt was as long as when it was first sent)."""

    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    max_prompt_tokens: int = Field(default=0, description="The longest prompt: what must fit the model's context.")
    structured_replies: int = Field(default=0, description="Replies to structured requests.")
    syntax_failures: int = Field(default=0, description="Structured replies with no JSON or breaking their schema.")

    def add(self, usage: Usage) -> None:
        """Count one reply's usage."""
        self.requests += 1
        self.prompt_tokens += usage.prompt_tokens
        self.completion_tokens += usage.completion_tokens
        self.max_prompt_tokens = max(self.max_prompt_tokens, usage.prompt_tokens)


class StageMeter(WrapperModel):
    """A `ChatModel` that passes requests to `model` and counts each reply's usage under `stage`.

    Args:
        model: the model the stage uses (usually a `MeteredModel`).
        stage: the name the usage is counted under.
        tally: shared per-stage counts (one dict per pipeline run).
    """

    def __init__(self, model: ChatModel, stage: str, tally: dict[str, StageTokens]) -> None:
        super().__init__(model)
        self.stage = stage
        self.tally = tally

    async def complete(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[dict[str, Any]] | None = None,
        *,
        settings: SamplingSettings | None = None,
    ) -> ModelResponse:
        """The wrapped model's reply, its usage counted under the stage."""
        response = await self.inner.complete(messages, tools, settings=settings)
        self.tally.setdefault(self.stage, StageTokens()).add(response.usage)
        return response

    def record_reply_syntax(self, ok: bool) -> None:
        """Count one structured reply under the stage, and pass it on to the wrapped model."""
        tokens = self.tally.setdefault(self.stage, StageTokens())
        tokens.structured_replies += 1
        tokens.syntax_failures += not ok
        super().record_reply_syntax(ok)


class PipelineStats(BaseModel):
    """The content of `stats.json`."""

    pipeline: str
    input_records: int = 0
    input_errors: list[str] = Field(default_factory=list, description="`file:line: problem` for unusable input lines.")
    funnel: list[StageCounts] = Field(default_factory=list)
    outputs: int = Field(default=0, description="Final artifacts written.")
    llm_last_run: LLMCounts = Field(default_factory=LLMCounts)
    llm_total: LLMCounts = Field(default_factory=LLMCounts)
    tokens_by_stage_last_run: dict[str, StageTokens] = Field(
        default_factory=dict, description="Per stage: prompt and completion tokens of the replies used, and the longest prompt."
    )
    max_prompt_tokens: int = Field(default=0, description="The longest prompt of any stage in the last run.")
    wall_time_s_last_run: float = 0.0
    wall_time_s_total: float = 0.0
    runs: int = 0
    extra: dict[str, Any] = Field(default_factory=dict, description="Pipeline-specific distributions.")

    @classmethod
    def load(cls, path: str | Path) -> PipelineStats | None:
        """The stats of a previous run, or None."""
        try:
            return cls.model_validate_json(Path(path).read_bytes())
        except (OSError, ValueError):
            return None

    @classmethod
    def finish(
        cls,
        path: str | Path,
        *,
        pipeline: str,
        stages: Sequence[Stage],
        llm: LLMCounts,
        wall_time_s: float,
        input_records: int,
        input_errors: Sequence[object] = (),
        outputs: int,
        tokens_by_stage: dict[str, StageTokens] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> PipelineStats:
        """Build this run's stats (accumulating over previous runs) and write them to `path`."""
        previous = cls.load(path)
        stats = cls(
            pipeline=pipeline,
            input_records=input_records,
            input_errors=[str(e) for e in input_errors],
            funnel=[stage_counts(s) for s in stages],
            outputs=outputs,
            llm_last_run=llm,
            llm_total=llm + previous.llm_total if previous else llm,
            tokens_by_stage_last_run=dict(tokens_by_stage or {}),
            max_prompt_tokens=max((t.max_prompt_tokens for t in (tokens_by_stage or {}).values()), default=0),
            wall_time_s_last_run=round(wall_time_s, 3),
            wall_time_s_total=round(wall_time_s + (previous.wall_time_s_total if previous else 0.0), 3),
            runs=(previous.runs if previous else 0) + 1,
            extra=extra or {},
        )
        stats.write(path)
        return stats

    def write(self, path: str | Path) -> None:
        """Write atomically as indented JSON."""
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(self.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(tmp, path)
