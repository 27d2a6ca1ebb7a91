"""TRL's own parse path (`trl.chat_template_utils.parse_response`) reads calls with agent_sdk's parser."""

from __future__ import annotations

import json

import pytest

from agent_sdk import ArgumentRepair

TOOLS = {"find_flights", "get_gate"}
FLIGHTS = {"origin": "ZRH", "destination": "OPO"}

# What the embedded Qwen2.5-Coder-0.5B writes for a call: a bare object, a fenced block after
# some prose, a Hermes block; each turn ends with the template's end-of-turn token.
EMBEDDED_TURNS = {
    "bare": '{"name": "find_flights", "arguments": {"origin": "ZRH", "destination": "OPO"}}<|im_end|>',
    "fenced": 'Sure.\n```json\n{"name": "find_flights", "arguments": {"origin": "ZRH", "destination": "OPO"}}\n```<|im_end|>',
    "tagged": '<tool_call>\n{"name": "find_flights", "arguments": {"origin": "ZRH", "destination": "OPO"}}\n</tool_call><|im_end|>',
}


@pytest.fixture(scope="module")
def tokenizer(tokenizer_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(tokenizer_dir))


def trl_parse(tokenizer, text, tools=None):
    """What GRPOTrainer does with one generated turn: token ids through TRL's `parse_response`."""
    from trl.chat_template_utils import parse_response

    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    prefix = tokenizer("<|im_start|>assistant\n", add_special_tokens=False)["input_ids"]
    return parse_response(tokenizer, ids, prefix=prefix, tools=tools)


@pytest.mark.parametrize("kind", list(EMBEDDED_TURNS))
def test_trl_reads_the_calls_the_embedded_model_writes(tokenizer, kind):
    from rl.trl import agent_response_parser

    with agent_response_parser(tokenizer, TOOLS):
        message = trl_parse(tokenizer, EMBEDDED_TURNS[kind])
    (call,) = message["tool_calls"]
    assert call["type"] == "function"
    assert call["function"] == {"name": "find_flights", "arguments": FLIGHTS}
    assert message["content"] == ("Sure." if kind == "fenced" else "")


def test_without_the_parser_trl_sees_no_bare_call(tokenizer):
    from trl.chat_template_utils import add_response_schema

    add_response_schema(tokenizer)  # what GRPOTrainer sets up for TRL's Qwen2.5 template
    try:
        assert "tool_calls" not in trl_parse(tokenizer, EMBEDDED_TURNS["bare"])
    finally:
        tokenizer.response_schema = tokenizer.response_template = None


def test_repairs_ride_in_the_arguments_and_answers_stay_answers(tokenizer):
    from rl.trl import agent_response_parser
    from rl.trl._parsing import REPAIR_KEY

    with agent_response_parser(tokenizer, TOOLS):
        repaired = trl_parse(tokenizer, "```json\n{\"name\": \"get_gate\", \"arguments\": {'flight_number': 'LX2084',}}\n```")
        broken = trl_parse(tokenizer, '<tool_call>\n{"name": "get_gate", "arguments": ??}\n</tool_call><|im_end|>')
        answer = trl_parse(tokenizer, 'The record is {"name": "Alice", "arguments": "none"}.<|im_end|>')
    arguments = repaired["tool_calls"][0]["function"]["arguments"]
    repair = ArgumentRepair.model_validate(arguments.pop(REPAIR_KEY))
    assert arguments == {"flight_number": "LX2084"} and repair.fixes == ["single_quotes", "trailing_commas"]
    assert repair.call_id == repaired["tool_calls"][0]["id"]
    arguments = broken["tool_calls"][0]["function"]["arguments"]
    assert set(arguments) == {REPAIR_KEY} and not ArgumentRepair.model_validate(arguments[REPAIR_KEY]).ok
    assert answer == {"role": "assistant", "content": 'The record is {"name": "Alice", "arguments": "none"}.'}


def test_tools_passed_by_trl_are_the_episode_names(tokenizer):
    from rl.trl import agent_response_parser

    def find_trains(origin: str, destination: str) -> str:
        """Trains."""
        return ""

    schema = {"type": "function", "function": {"name": "get_gate", "parameters": {"type": "object", "properties": {}}}}
    other_env = '{"name": "find_flights", "arguments": {"origin": "ZRH", "destination": "OPO"}}'
    this_env = '{"name": "find_trains", "arguments": {"origin": "Bern", "destination": "Thun"}}'
    with agent_response_parser(tokenizer, TOOLS | {"find_trains"}) as parser:
        assert "tool_calls" in parser(tokenizer.encode(other_env))  # no tools given: every env's names
        assert "tool_calls" not in parser(tokenizer.encode(other_env), tools=[find_trains, schema])
        assert parser(tokenizer.encode(this_env), tools=[find_trains, schema])["tool_calls"][0]["function"]["name"] == "find_trains"
        batch = parser([tokenizer.encode(this_env), tokenizer.encode("Done.")])
    assert [("tool_calls" in m) for m in batch] == [True, False]


def test_the_tokenizer_is_restored_and_saves_no_marker(tokenizer, tmp_path):
    from rl.trl import agent_response_parser

    before = type(tokenizer).parse_response
    with agent_response_parser(tokenizer, TOOLS):
        assert tokenizer.response_schema is not None and tokenizer.parse_response is not before
    assert tokenizer.parse_response.__func__ is before and tokenizer.response_schema is None
    assert getattr(tokenizer, "response_template", None) is None
    tokenizer.save_pretrained(tmp_path)
    config = json.loads((tmp_path / "tokenizer_config.json").read_text())
    assert "response_schema" not in config and "response_template" not in config


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_the_embedded_model_keeps_its_template_and_its_calls_are_read():
    """Its own tokenizer (no weights loaded): `<tool_call>` is one token there, and the template renders tools."""
    from transformers import AutoTokenizer

    from agent_sdk import embedded_model_dir
    from rl._models import ensure_tool_template
    from rl.trl import agent_response_parser

    tokenizer = AutoTokenizer.from_pretrained(str(embedded_model_dir()))
    own = tokenizer.chat_template
    assert ensure_tool_template(tokenizer).chat_template == own
    assert len(tokenizer("<tool_call>", add_special_tokens=False)["input_ids"]) == 1
    with agent_response_parser(tokenizer, TOOLS):
        for text in EMBEDDED_TURNS.values():
            (call,) = trl_parse(tokenizer, text)["tool_calls"]
            assert call["function"] == {"name": "find_flights", "arguments": FLIGHTS}
