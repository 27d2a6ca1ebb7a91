"""The embedded default model and `LocalChatModel`: real weights, real generation, real MCP tools."""

from __future__ import annotations

import json

import anyio
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from transformers import AutoTokenizer  # noqa: E402

import jsonschema  # noqa: E402

from agent_sdk import Agent, ChatMessage, ContextOverflowError, SamplingSettings, Toolbox  # noqa: E402
from agent_sdk._embedded import (  # noqa: E402
    EMBEDDED_GGUF_SHA256,
    EMBEDDED_GGUF_SIZE,
    EMBEDDED_MODEL_NAME,
    assemble_embedded_gguf,
    embedded_model_dir,
)
from agent_sdk._local import LocalChatModel, _compact_tool, _Request  # noqa: E402

FORECAST_TOOL = {
    "type": "function",
    "function": {
        "name": "get_forecast",
        "description": "Get the daily weather forecast for a city.",
        "parameters": {
            "type": "object",
            "title": "GetForecastArgs",
            "properties": {
                "city": {"type": "string", "title": "City"},
                "date": {"type": "string", "description": "YYYY-MM-DD"},
            },
            "required": ["city", "date"],
        },
    },
}
QUESTION = "What is the weather forecast for Oslo on 2025-06-14?"
SHORT = SamplingSettings(max_tokens=48)


@pytest.fixture(scope="module")
def local_model() -> LocalChatModel:
    return LocalChatModel("embedded")


def test_compact_tool_drops_schema_titles_but_keeps_a_parameter_named_title():
    tool = {
        "type": "function",
        "function": {
            "name": "add_book",
            "parameters": {
                "title": "AddBookArgs",
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": {"title": {"type": "string", "title": "Title"}},
            },
        },
    }
    compact = _compact_tool(tool)["function"]["parameters"]
    assert compact == {"type": "object", "properties": {"title": {"type": "string"}}}


def test_chunks_assemble_to_the_pinned_gguf(tmp_path):
    gguf = assemble_embedded_gguf(tmp_path / "model.gguf")
    assert gguf.stat().st_size == EMBEDDED_GGUF_SIZE
    assert gguf.read_bytes()[:4] == b"GGUF"
    assert len(EMBEDDED_GGUF_SHA256) == 64


def test_the_teacher_assembles_from_its_real_packages_and_names_itself(tmp_path):
    import importlib.util

    from agent_sdk import TEACHER, is_local_target

    if importlib.util.find_spec(TEACHER.chunk_modules[-1]) is None:
        pytest.skip(f"teacher chunk packages not installed ({TEACHER.install_hint})")
    gguf = assemble_embedded_gguf(tmp_path / "teacher.gguf", TEACHER)
    assert gguf.stat().st_size == TEACHER.gguf_size == 1_117_320_768
    from gguf import GGUFReader

    field = GGUFReader(gguf).fields["general.name"]
    assert bytes(field.parts[field.data[0]]).decode() == "Qwen2.5 Coder 1.5B Instruct GGUF"
    assert is_local_target("teacher") and TEACHER.served_name != EMBEDDED_MODEL_NAME


def test_a_corrupt_chunk_is_refused_and_the_partial_file_removed(tmp_path, monkeypatch):
    from agent_sdk import STUDENT, ModelError

    wrong = STUDENT.__class__(**{**STUDENT.__dict__, "gguf_sha256": "0" * 64})
    with pytest.raises(ModelError, match="corrupt"):
        assemble_embedded_gguf(tmp_path / "bad.gguf", wrong)
    assert not (tmp_path / "bad.gguf").exists()


def test_a_gguf_given_by_path_that_is_not_the_model_is_refused_naming_it(tmp_path):
    from agent_sdk import ModelError

    stray = tmp_path / "other.gguf"
    stray.write_bytes(b"GGUF" + bytes(64))
    with pytest.raises(ModelError, match=r"other\.gguf is corrupt \(size 68 bytes"):
        embedded_model_dir(tmp_path / "cache", gguf=stray)
    assert not (tmp_path / "cache" / "models" / "qwen2.5-coder-0.5b-instruct").exists()


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_an_assembled_gguf_builds_the_cache_without_the_chunk_packages(tmp_path, monkeypatch):
    from agent_sdk import _embedded

    gguf = assemble_embedded_gguf(tmp_path / "student.gguf")
    # An offline machine has the file but not the packages.
    monkeypatch.setattr(_embedded, "_chunk_paths", lambda model: pytest.fail("read the chunk packages"))
    model_dir = embedded_model_dir(tmp_path / "cache", gguf=gguf)
    assert (model_dir / "model.safetensors").stat().st_size > 900_000_000
    assert embedded_model_dir(tmp_path / "cache") == model_dir


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_embedded_cache_is_a_complete_hf_directory():
    model_dir = embedded_model_dir()
    assert embedded_model_dir() == model_dir
    config = json.loads((model_dir / "config.json").read_text())
    assert config["model_type"] == "qwen2" and "quantization_config" not in config
    assert (model_dir / "model.safetensors").stat().st_size > 900_000_000
    template = (model_dir / "chat_template.jinja").read_text()
    assert "<tool_call>" in template and "tools" in template
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    # One token each, as in training (GGUF's tokenizer alone would split them into text pieces).
    assert len(tokenizer("<tool_call>", add_special_tokens=False)["input_ids"]) == 1
    assert len(tokenizer("</tool_call>", add_special_tokens=False)["input_ids"]) == 1


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_prompt_renders_tools_with_the_chat_template(local_model):
    prompt = local_model.render([ChatMessage(role="user", content=QUESTION)], [FORECAST_TOOL])
    assert '"name": "get_forecast"' in prompt and "<tool_call>" in prompt
    assert "GetForecastArgs" not in prompt
    assert prompt.endswith("<|im_start|>assistant\n")


@pytest.mark.slow
@pytest.mark.timeout(1200)
@pytest.mark.anyio
async def test_embedded_model_calls_a_real_example_environment(local_model, helpers):
    env_dir = helpers.EXAMPLE_ENVS / "weather_forecast"
    async with Toolbox(env_dir) as toolbox:
        # One turn: the model's call is executed, then the episode stops (keeps the test short).
        agent = Agent(local_model, toolbox, max_turns=1, settings=SamplingSettings(max_tokens=64))
        trajectory = await agent.run("I'm in Oslo on 14 June 2025. What weather should I expect that day?")
    first = trajectory.tool_calls[0]
    assert first.call.name == "get_forecast" and trajectory.stop_reason == "max_turns"
    assert first.call.arguments["city"].lower() == "oslo" and first.call.arguments["date"] == "2025-06-14"
    assert first.result.ok and "light rain" in first.result.text
    assert trajectory.model == EMBEDDED_MODEL_NAME and trajectory.usage.completion_tokens > 0


@pytest.mark.slow
@pytest.mark.timeout(1200)
@pytest.mark.anyio
async def test_concurrent_calls_are_generated_in_one_batch(local_model):
    messages = [ChatMessage(role="user", content=QUESTION)]
    before = local_model.batches_run
    responses = []

    async def one() -> None:
        responses.append(await local_model.complete(messages, [FORECAST_TOOL], settings=SHORT))

    with anyio.fail_after(900):
        async with anyio.create_task_group() as tg:
            for _ in range(3):
                tg.start_soon(one)
    assert local_model.batches_run - before == 1
    for response in responses:
        assert [c.name for c in response.message.tool_calls] == ["get_forecast"]
        assert response.finish_reason == "tool_calls" and response.usage.prompt_tokens > 100


@pytest.mark.slow
@pytest.mark.timeout(1200)
@pytest.mark.anyio
async def test_a_cancelled_caller_does_not_stall_the_others(local_model):
    messages = [ChatMessage(role="user", content=QUESTION)]
    done: list[str] = []

    async def one(tag: str) -> None:
        response = await local_model.complete(messages, [FORECAST_TOOL], settings=SamplingSettings(max_tokens=8))
        done.append(tag)
        assert response.finish_reason == "length" and response.usage.completion_tokens == 8

    with anyio.fail_after(900):
        async with anyio.create_task_group() as tg:
            tg.start_soon(one, "first")
            await anyio.sleep(0)
            with anyio.CancelScope() as doomed:
                doomed.cancel()
                await one("cancelled")
            tg.start_soon(one, "second")
    assert sorted(done) == ["first", "second"]
    assert not local_model._queue and not local_model._leading


def test_requests_with_different_output_schemas_never_share_a_batch():
    def request(schema):
        return _Request(prompt=[1], settings=SamplingSettings(output_schema=schema), matcher=None if schema is None else object())

    a, b = {"type": "object", "properties": {"a": {"type": "integer"}}}, {"type": "object", "properties": {"b": {"type": "integer"}}}
    assert request(a).group() == request(dict(reversed(a.items()))).group()
    assert len({request(a).group(), request(b).group(), request(None).group()}) == 3


FORECAST_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string", "maxLength": 12}, "rain": {"type": "boolean"}},
    "required": ["city", "rain"],
    "additionalProperties": False,
}


@pytest.mark.slow
@pytest.mark.timeout(1200)
@pytest.mark.anyio
async def test_output_schema_is_enforced_while_decoding(local_model):
    assert local_model.profile.supports_output_schema
    messages = [ChatMessage(role="user", content=QUESTION + " Will it rain?")]
    settings = SamplingSettings(max_tokens=32, output_schema=FORECAST_SCHEMA)
    with anyio.fail_after(900):
        response = await local_model.complete(messages, [FORECAST_TOOL], settings=settings)
    reply = json.loads(response.message.content)
    jsonschema.validate(reply, FORECAST_SCHEMA)
    assert response.message.tool_calls == [] and response.finish_reason == "stop"
    assert response.message.content == json.dumps(reply, ensure_ascii=False)  # no padding whitespace


@pytest.mark.slow
@pytest.mark.timeout(1200)
@pytest.mark.anyio
async def test_prompt_beyond_the_context_is_a_context_overflow(local_model):
    settings = SamplingSettings(max_tokens=local_model.max_context)
    with pytest.raises(ContextOverflowError, match="maximum context length"):
        await local_model.complete([ChatMessage(role="user", content=QUESTION)], settings=settings)
