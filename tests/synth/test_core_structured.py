import json

import pytest
from pydantic import BaseModel, Field

import synth.core
from agent_sdk import ChatMessage, ContextOverflowError, FunctionModel, ModelHTTPError, SamplingSettings
from synth.core import LLMCache, MeteredModel, ask_structured, cache_key, extract_json


class Verdict(BaseModel):
    score: float = Field(ge=0, le=1)
    reason: str


PROMPT = [ChatMessage(role="user", content="Judge this.")]


def test_public_api():
    assert set(synth.core.__all__) >= {"ask_structured", "StructuredResult", "LLMCache", "Stage", "JsonlStore", "PipelineStats"}


@pytest.mark.parametrize(
    "text",
    [
        '{"score": 0.5, "reason": "ok"}',
        'Sure!\n```json\n{"score": 0.5, "reason": "ok"}\n```\nDone.',
        '<think>hmm {"no": 1</think> Here: {"score": 0.5, "reason": "ok"} trailing',
        '```\n{"score": 0.5, "reason": "ok"}\n```',
    ],
)
def test_extract_json_variants(text):
    assert extract_json(text) == {"score": 0.5, "reason": "ok"}


def test_extract_json_without_json_raises():
    with pytest.raises(ValueError):
        extract_json("I cannot help with that.")


@pytest.mark.anyio
async def test_malformed_then_valid_retry_feeds_error_back():
    model = FunctionModel.from_replies('{"score": 0.5, "reason": ', '{"score": 0.8, "reason": "covers it"}')
    result = await ask_structured(model, PROMPT, Verdict)
    assert result.ok and result.value == Verdict(score=0.8, reason="covers it")
    assert result.attempts == 2
    second = model.requests[1].messages
    assert second[-2].role == "assistant" and second[-2].content == '{"score": 0.5, "reason": '
    assert "could not be used" in second[-1].content
    assert "JSON Schema" in model.requests[0].messages[-1].content


@pytest.mark.anyio
async def test_validation_error_is_fed_back_and_then_rejected():
    model = FunctionModel.from_replies('{"score": 3, "reason": "x"}', '{"reason": "x"}', '{"score": "high"}')
    result = await ask_structured(model, PROMPT, Verdict, retries=2)
    assert result.value is None
    assert result.reason_code == "invalid_output"
    assert result.attempts == 3
    assert "score" in model.requests[1].messages[-1].content  # the first error (score > 1) was shown to the model
    assert "less than or equal to 1" in model.requests[1].messages[-1].content


@pytest.mark.anyio
async def test_model_error_rejects_never_passes():
    model = FunctionModel.from_replies(RuntimeError("connection reset"), RuntimeError("connection reset"))
    result = await ask_structured(model, PROMPT, Verdict, retries=1)
    assert result.value is None and result.reason_code == "model_error"
    assert "connection reset" in result.detail


@pytest.mark.anyio
async def test_prose_only_rejects_with_no_json():
    model = FunctionModel.from_replies("The answer looks fine to me.")
    result = await ask_structured(model, PROMPT, Verdict, retries=0)
    assert result.value is None and result.reason_code == "no_json"


@pytest.mark.anyio
async def test_semantic_check_failure_is_retried():
    model = FunctionModel.from_replies('{"score": 0.1, "reason": ""}', '{"score": 0.1, "reason": "too vague"}')
    result = await ask_structured(model, PROMPT, Verdict, check=lambda v: None if v.reason else "reason must not be empty")
    assert result.ok and result.value.reason == "too vague"
    assert "reason must not be empty" in model.requests[1].messages[-1].content


@pytest.mark.anyio
async def test_cache_makes_rerun_free(tmp_path):
    calls = []

    def fn(messages, tools, settings):
        calls.append(1)
        return json.dumps({"score": 1.0, "reason": "fine"})

    cache = LLMCache(tmp_path / "cache")
    first = await ask_structured(FunctionModel(fn), PROMPT, Verdict, cache=cache)
    metered = MeteredModel(FunctionModel(fn), cache=cache)
    second = await ask_structured(metered, PROMPT, Verdict)
    assert first.value == second.value
    assert len(calls) == 1
    assert metered.counts.calls == 0 and metered.counts.cache_hits == 1
    assert len(cache) == 1


@pytest.mark.anyio
async def test_cache_key_depends_on_model_and_messages(tmp_path):
    cache = LLMCache(tmp_path)
    a = MeteredModel(FunctionModel(lambda m, t, s: '{"score": 0, "reason": "a"}', name="a"), cache=cache)
    b = MeteredModel(FunctionModel(lambda m, t, s: '{"score": 1, "reason": "b"}', name="b"), cache=cache)
    ra = await ask_structured(a, PROMPT, Verdict)
    rb = await ask_structured(b, PROMPT, Verdict)
    rc = await ask_structured(a, [ChatMessage(role="user", content="Other.")], Verdict)
    assert (ra.value.reason, rb.value.reason, rc.value.reason) == ("a", "b", "a")
    assert a.counts.calls == 2 and b.counts.calls == 1 and len(cache) == 3


@pytest.mark.anyio
async def test_corrupt_cache_entry_is_a_miss(tmp_path):
    cache = LLMCache(tmp_path)
    model = MeteredModel(FunctionModel.from_replies('{"score": 0.2, "reason": "r"}', '{"score": 0.3, "reason": "r"}'), cache=cache)
    await ask_structured(model, PROMPT, Verdict)
    (entry,) = list(tmp_path.glob("*/*.json"))
    entry.write_text("{not json")
    again = await ask_structured(model, PROMPT, Verdict)
    assert again.value.score == 0.3 and model.counts.calls == 2


def enforcing(fn):
    """A model that says it enforces output schemas."""
    return FunctionModel(fn, supports_output_schema=True)


@pytest.mark.anyio
async def test_enforced_schema_goes_in_settings_not_in_the_prompt():
    seen = []

    def fn(messages, tools, settings):
        seen.append(settings)
        return '{"score": 0.5, "reason": "ok"}'

    model = enforcing(fn)
    result = await ask_structured(model, PROMPT, Verdict, settings=SamplingSettings(max_tokens=64))
    assert result.ok
    assert seen[0].output_schema == Verdict.model_json_schema()
    assert seen[0].max_tokens == 64 and "temperature" not in seen[0].model_fields_set
    prompt = model.requests[0].messages[-1].content
    assert "JSON Schema" not in prompt and '"properties"' not in prompt
    assert prompt.endswith("Reply with a JSON object.")


@pytest.mark.anyio
async def test_a_reply_that_is_not_json_is_never_sent_a_json_schema():
    # a JSON grammar forced the embedded model's tool code into one escaped string
    seen = []

    class Code(BaseModel):
        code: str

    def fn(messages, tools, settings):
        seen.append(settings)
        return "```python\ndef f():\n    return 1\n```"

    def code_block(text: str) -> dict:
        return {"code": text.split("```python\n", 1)[1].split("```", 1)[0]}

    result = await ask_structured(enforcing(fn), PROMPT, Code, include_schema=False, parse=code_block, enforce=False)
    assert result.ok and result.value.code.startswith("def f()")
    assert seen[0] is None or seen[0].output_schema is None


@pytest.mark.anyio
async def test_per_call_schema_is_enforced_and_the_reply_still_validated():
    seen = []
    exactly_two = {"type": "object", "properties": {"scores": {"type": "array", "minItems": 2, "maxItems": 2}}}

    class Scores(BaseModel):
        scores: list[int]

    def fn(messages, tools, settings):
        seen.append(settings.output_schema)
        return '{"scores": [1, 2, 3]}' if len(seen) == 1 else '{"scores": [1, 2]}'

    def check(value: Scores) -> str | None:
        return None if len(value.scores) == 2 else "give exactly 2 scores"

    result = await ask_structured(enforcing(fn), PROMPT, Scores, schema=exactly_two, check=check)
    assert result.ok and result.value.scores == [1, 2] and result.attempts == 2
    assert seen == [exactly_two, exactly_two]


@pytest.mark.anyio
async def test_per_call_schema_is_shown_when_not_enforced():
    custom = {"type": "object", "properties": {"score": {"type": "number", "maximum": 0.5}}}
    model = FunctionModel.from_replies('{"score": 0.5, "reason": "ok"}')
    await ask_structured(model, PROMPT, Verdict, schema=custom)
    assert json.dumps(custom, separators=(",", ":")) in model.requests[0].messages[-1].content


@pytest.mark.anyio
async def test_retries_feed_back_only_the_last_reply_whole_or_not_at_all():
    long_bad = '{"score": 7, "reason": "' + "x" * 5000 + '"}'
    model = FunctionModel.from_replies(long_bad, '{"score": 8, "reason": "y"}', '{"score": 0.5, "reason": "ok"}')
    result = await ask_structured(model, PROMPT, Verdict, retries=2)
    assert result.ok and result.attempts == 3
    first, second, third = (r.messages for r in model.requests)
    assert len(second) == len(first), "a reply too long to echo is not echoed, cut off or otherwise"
    assert "x" * 20 not in second[-1].content and f"({len(long_bad)} characters) could not be used" in second[-1].content
    assert second[:-1] == first[:-1]
    assert len(third) == len(first) + 2
    assert third[-2].content == '{"score": 8, "reason": "y"}'
    assert third[:-2] == first


@pytest.mark.anyio
async def test_context_overflow_is_terminal_and_not_retried():
    model = FunctionModel.from_replies(ContextOverflowError("prompt of 5000 tokens: this model's maximum context length is 4096 tokens"))
    result = await ask_structured(model, PROMPT, Verdict, retries=3)
    assert result.value is None and result.reason_code == "context_overflow"
    assert result.attempts == 1 and len(model.requests) == 1
    assert "4096" in result.detail


@pytest.mark.anyio
async def test_endpoint_refusing_the_schema_is_asked_the_unenforced_way():
    seen = []

    def fn(messages, tools, settings):
        seen.append(settings)
        if settings is not None and settings.output_schema is not None:
            return ModelHTTPError("HTTP 400: invalid schema for response_format", status_code=400)
        return '{"score": 0.5, "reason": "ok"}'

    model = enforcing(fn)
    result = await ask_structured(model, PROMPT, Verdict)
    assert result.ok and result.attempts == 2
    assert seen[1] is None
    assert "JSON Schema" in model.requests[1].messages[-1].content


@pytest.mark.anyio
async def test_metered_model_forwards_enforcement_and_keys_the_cache_by_schema(tmp_path):
    model = MeteredModel(enforcing(lambda m, t, s: '{"score": 0.5, "reason": "ok"}'), cache=LLMCache(tmp_path))
    assert model.profile.supports_output_schema
    assert not MeteredModel(FunctionModel(lambda m, t, s: "")).profile.supports_output_schema
    other = {"type": "object", "properties": {"score": {"type": "number"}, "reason": {"type": "string"}}}
    await ask_structured(model, PROMPT, Verdict)
    await ask_structured(model, PROMPT, Verdict, schema=other)
    await ask_structured(model, PROMPT, Verdict, schema=other)
    assert model.counts.calls == 2 and model.counts.cache_hits == 1


def test_cache_key_of_an_unconstrained_request_ignores_the_schema_field():
    plain = SamplingSettings(max_tokens=10)
    assert cache_key("m", PROMPT, None, plain) == cache_key("m", PROMPT, None, SamplingSettings(max_tokens=10, output_schema=None))
    assert cache_key("m", PROMPT, None, plain) != cache_key("m", PROMPT, None, SamplingSettings(max_tokens=10, output_schema={}))


def test_cache_key_keeps_the_order_of_the_schema_properties():
    # an engine writes the properties in the schema's order: another order is another request
    first = {"type": "object", "properties": {"answer": {"type": "string"}, "reason": {"type": "string"}}}
    second = {"type": "object", "properties": {"reason": {"type": "string"}, "answer": {"type": "string"}}}
    keys = {cache_key("m", PROMPT, None, SamplingSettings(output_schema=schema)) for schema in (first, second, dict(first))}
    assert len(keys) == 2


@pytest.mark.anyio
async def test_syntax_failures_are_counted_apart_from_content_checks():
    replies = ["no json here", '{"score": "high"}', '{"score": 0.4, "reason": "r"}', '{"score": 0.9, "reason": "r"}']
    model = MeteredModel(FunctionModel.from_replies(*replies))
    result = await ask_structured(model, PROMPT, Verdict, retries=3, check=lambda v: None if v.score > 0.5 else "too low")
    assert result.ok and result.attempts == 4
    # the reply with no JSON and the one breaking the schema failed on syntax; the low score failed on content
    assert (model.counts.structured_replies, model.counts.syntax_failures) == (4, 2)
