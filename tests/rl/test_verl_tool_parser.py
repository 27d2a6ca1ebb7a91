"""`AstraToolParser`: veRL's tool-parser slot running the agent's parser on what the embedded model writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.anyio

FLIGHTS = {"origin": "ZRH", "destination": "OPO"}


@pytest.fixture(scope="module")
def parser(tokenizer_dir):
    from transformers import AutoTokenizer
    from verl.experimental.agent_loop.tool_parser import ToolParser

    from rl.verl import ASTRA_TOOL_PARSER

    return ToolParser.get_tool_parser(ASTRA_TOOL_PARSER, AutoTokenizer.from_pretrained(str(tokenizer_dir)))


@pytest.fixture(scope="module")
def tools():
    from rl.verl import sanitize_tool

    def schema(name: str, *props: str):
        properties = {p: {"type": "string"} for p in props}
        return sanitize_tool({"name": name, "description": name, "parameters": {"type": "object", "properties": properties}})

    return [schema("find_flights", "origin", "destination"), schema("get_gate", "flight_number")]


async def extract(parser, tools, text: str):
    ids = parser.tokenizer.encode(text, add_special_tokens=False)
    return await parser.extract_tool_calls(ids, tools)


MODEL_TEXTS = {
    "bare-json": '{"name": "find_flights", "arguments": {"origin": "ZRH", "destination": "OPO"}}<|im_end|>',
    "json-fence": 'I will look it up.\n```json\n{"name": "find_flights", "arguments": {"origin": "ZRH", "destination": "OPO"}}\n```<|im_end|>',
    "tool-call-tags": '<tool_call>\n{"name": "find_flights", "arguments": {"origin": "ZRH", "destination": "OPO"}}\n</tool_call><|im_end|>',
}
"""The three ways the embedded Qwen2.5-Coder-0.5B writes a call."""


async def check_model_texts(parser, tools) -> None:
    for text in MODEL_TEXTS.values():
        content, calls = await extract(parser, tools, text)
        assert [(c.name, json.loads(c.arguments)) for c in calls] == [("find_flights", FLIGHTS)], text
        assert calls[0].tool_call_id  # ids let tool messages answer their call
        assert "find_flights" not in content and "<|im_end|>" not in content


async def test_the_embedded_models_call_formats(parser, tools):
    await check_model_texts(parser, tools)


@pytest.mark.slow
async def test_the_call_formats_through_the_embedded_models_tokenizer(tools):
    from transformers import AutoTokenizer
    from verl.experimental.agent_loop.tool_parser import ToolParser

    from agent_sdk import embedded_model_dir
    from rl.verl import ASTRA_TOOL_PARSER

    tokenizer = AutoTokenizer.from_pretrained(str(embedded_model_dir()))
    assert len(tokenizer.encode("<tool_call>", add_special_tokens=False)) == 1  # a token of its own here
    await check_model_texts(ToolParser.get_tool_parser(ASTRA_TOOL_PARSER, tokenizer), tools)


async def test_several_tagged_calls_keep_their_order(parser, tools):
    text = (
        '<tool_call>\n{"name": "find_flights", "arguments": {"origin": "ZRH", "destination": "OPO"}}\n</tool_call>\n'
        '<tool_call>\n{"name": "get_gate", "arguments": {"flight_number": "LX2084"}}\n</tool_call><|im_end|>'
    )
    _, calls = await extract(parser, tools, text)
    assert [c.name for c in calls] == ["find_flights", "get_gate"]
    assert len({c.tool_call_id for c in calls}) == 2


async def test_json_that_names_no_tool_is_an_answer(parser, tools):
    content, calls = await extract(parser, tools, '{"name": "Porto", "arguments": "none"}<|im_end|>')
    assert calls == [] and '"Porto"' in content
    content, calls = await extract(parser, tools, "The gate is A52.<|im_end|>")
    assert calls == [] and content == "The gate is A52."


async def test_arguments_are_handed_on_as_written(parser, tools):
    # the episode repairs them (and records the repair), as the agent does: one decision, counted either way
    _, (quoted,) = await extract(parser, tools, '<tool_call>\n{"name": "get_gate", "arguments": "{\'flight_number\': \'LX2084\'}"}\n</tool_call>')
    assert quoted.arguments == "{'flight_number': 'LX2084'}"
    _, (whole,) = await extract(parser, tools, "<tool_call>\n{'name': 'get_gate', 'arguments': {'flight_number': 'LX2084'}}\n</tool_call>")
    assert json.loads(whole.arguments) == {"flight_number": "LX2084"}  # written as an object: no argument text to keep
    _, (broken,) = await extract(parser, tools, '<tool_call>\n{"name": "get_gate", "arguments": "flight LX2084"}\n</tool_call>')
    assert broken.name == "get_gate" and broken.arguments == "flight LX2084"  # the episode answers it with an error

MODEL_REPLIES = Path(__file__).resolve().parents[1] / "agent_sdk" / "data" / "model_replies.jsonl"
"""The replies every reader must read alike (tests/agent_sdk/test_parse_parity.py)."""


async def test_the_model_replies_read_as_the_agent_reads_them(parser):
    from agent_sdk import parse_arguments
    from rl.verl import sanitize_tool

    replies = [json.loads(line) for line in MODEL_REPLIES.read_text(encoding="utf-8").splitlines() if line.strip()]
    for reply in replies:
        tools = [sanitize_tool({"name": n, "description": n, "parameters": {"type": "object", "properties": {}}}) for n in reply["tools"]]
        content, calls = await extract(parser, tools, reply["text"])
        read = []
        for call in calls:  # the arguments as the episode parses them (an unparsable text: {} and an error)
            try:
                read.append([call.name, parse_arguments(call.arguments)[0]])
            except ValueError:
                read.append([call.name, {}])
        assert read == reply["calls"], reply["shape"]
        assert (content or None) == reply["content"], reply["shape"]
