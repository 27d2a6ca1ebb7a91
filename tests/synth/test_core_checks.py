"""Copied prompt examples are caught by one mechanism; checks keep their codes; stage meters count prompts."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel

from agent_sdk import ChatMessage, FunctionModel
from synth.core import COPIED_EXAMPLE, MeteredModel, PipelineStats, PromptExample, ReplyCheck, StageMeter, StageTokens, ask_structured


class Verdict(BaseModel):
    score: float
    reason: str


EXAMPLE = PromptExample({"score": 0.0, "reason": "<one sentence>"})


def test_a_copy_is_the_whole_example_or_one_of_its_placeholders() -> None:
    assert EXAMPLE.markers == ("<one sentence>",), "placeholders are the default markers"
    assert EXAMPLE.copied(Verdict(score=0, reason="<One  sentence>"))
    assert EXAMPLE.copied({"score": 0.9, "reason": "fine <one sentence> here"}), "a placeholder left in is a copy"
    assert not EXAMPLE.copied(Verdict(score=0.0, reason="q2 does not need q1")), "a failing score with its own reason is genuine"
    numbers = PromptExample({"a": 1, "b": [0, 0], "c": True})
    assert numbers.copied({"a": 1.0, "b": [0, 0], "c": True, "extra": "x"})
    assert not numbers.copied({"a": 1, "b": [0, 0, 0], "c": True}) and not numbers.copied({"a": 1, "b": [0, 0], "c": 1})
    assert json.loads(EXAMPLE.text) == EXAMPLE.value


def test_the_format_section_is_shown_only_to_a_model_that_does_not_enforce_the_schema() -> None:
    shown = EXAMPLE.format_section(FunctionModel.from_replies(), "replace <one sentence>")
    assert shown == f"\nFormat (replace <one sentence>):\n{EXAMPLE.text}", "it starts a new line after the prompt's last one"
    assert EXAMPLE.format_section(MeteredModel(FunctionModel.from_replies(supports_output_schema=True))) == "", "wrappers keep the profile"


@pytest.mark.anyio
async def test_reply_check_codes_a_copy_and_each_check_failure() -> None:
    def own(v: Verdict) -> tuple[str, str] | str | None:
        if v.score > 1:
            return "out_of_range", "score above 1"
        return "reason too short" if len(v.reason) < 3 else None

    copied = json.dumps({"score": 0.0, "reason": "<one sentence>"})
    guard = ReplyCheck(EXAMPLE, check=own)
    result = await ask_structured(FunctionModel.from_replies(copied, copied), [ChatMessage(role="user", content="judge")], Verdict, retries=1, check=guard)
    assert guard.reason(result) == COPIED_EXAMPLE and guard.settle(result).reason_code == COPIED_EXAMPLE
    assert "copied the format example" in result.detail

    guard = ReplyCheck(EXAMPLE, check=own)
    result = await ask_structured(FunctionModel.from_replies('{"score": 2, "reason": "why not"}'), [ChatMessage(role="user", content="j")], Verdict, retries=0, check=guard)
    assert guard.reason(result) == "out_of_range"

    guard = ReplyCheck(EXAMPLE, check=own)
    result = await ask_structured(FunctionModel.from_replies('{"score": 0.5, "reason": "x"}'), [ChatMessage(role="user", content="j")], Verdict, retries=0, check=guard)
    assert guard.reason(result) == "invalid_output", "a bare message keeps the generic code"

    guard = ReplyCheck(EXAMPLE, check=own)
    result = await ask_structured(FunctionModel.from_replies(copied, "no json at all"), [ChatMessage(role="user", content="j")], Verdict, retries=1, check=guard)
    assert guard.reason(result) == "no_json", "the code is the one of the failure that ended the request"

    guard = ReplyCheck(EXAMPLE, check=own)
    result = await ask_structured(FunctionModel.from_replies(copied, '{"score": 0.7, "reason": "fits"}'), [ChatMessage(role="user", content="j")], Verdict, check=guard)
    assert result.ok and guard.reason(result) is None and guard.settle(result) is result


@pytest.mark.anyio
async def test_stage_meter_counts_prompt_tokens_per_stage_into_stats(tmp_path) -> None:
    tally: dict[str, StageTokens] = {}
    base = MeteredModel(FunctionModel.from_replies("a" * 40, "b" * 8, "c" * 4))
    short, long = StageMeter(base, "short", tally), StageMeter(base, "long", tally)
    await short.complete([ChatMessage(role="user", content="x" * 40)])
    await long.complete([ChatMessage(role="user", content="y" * 400)])
    await long.complete([ChatMessage(role="user", content="y" * 200)])
    assert tally["short"] == StageTokens(requests=1, prompt_tokens=10, completion_tokens=10, max_prompt_tokens=10)
    assert tally["long"] == StageTokens(requests=2, prompt_tokens=150, completion_tokens=3, max_prompt_tokens=100)
    assert short.profile.supports_output_schema is False
    stats = PipelineStats.finish(
        tmp_path / "stats.json", pipeline="t", stages=[], llm=base.counts, wall_time_s=1.0, input_records=0, outputs=0, tokens_by_stage=tally
    )
    saved = json.loads((tmp_path / "stats.json").read_text())
    assert stats.max_prompt_tokens == saved["max_prompt_tokens"] == 100
    assert saved["tokens_by_stage_last_run"]["long"]["prompt_tokens"] == 150
