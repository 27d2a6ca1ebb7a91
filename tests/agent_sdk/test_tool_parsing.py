"""Tool calls from structured fields and from text, and JSON argument repair."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_sdk import parse_arguments, parse_tool_calls


def test_structured_calls_keep_ids_and_content():
    parsed = parse_tool_calls(
        "thinking",
        [{"id": "a1", "type": "function", "function": {"name": "f", "arguments": '{"x": [1, 2]}'}}],
    )
    assert [(c.id, c.name, c.arguments, c.raw_arguments) for c in parsed.calls] == [("a1", "f", {"x": [1, 2]}, '{"x": [1, 2]}')]
    assert parsed.content_without_calls == "thinking" and parsed.repairs == []


def test_several_tool_call_blocks_and_remaining_text():
    text = (
        'I will look both up.\n<tool_call>\n{"name": "f", "arguments": {"x": 1}}\n</tool_call>\n'
        '<tool_call>{"name": "g", "arguments": "{\\"y\\": \\"z\\"}"}</tool_call>'
    )
    parsed = parse_tool_calls(text)
    assert [(c.name, c.arguments) for c in parsed.calls] == [("f", {"x": 1}), ("g", {"y": "z"})]
    assert parsed.content_without_calls == "I will look both up."
    assert len({c.id for c in parsed.calls}) == 2


def test_fenced_json_object_and_list():
    one = parse_tool_calls('```json\n{"name": "f", "arguments": {"q": "a"}}\n```')
    many = parse_tool_calls('```\n[{"name": "f", "arguments": {}}, {"name": "g", "parameters": {"k": 2}}]\n```')
    assert [(c.name, c.arguments) for c in one.calls] == [("f", {"q": "a"})]
    assert [(c.name, c.arguments) for c in many.calls] == [("f", {}), ("g", {"k": 2})]


def test_bare_json_object_as_qwen_writes_it():
    parsed = parse_tool_calls('{"name": "get_weather", "arguments": {"city": "Oslo", "date": "2025-06-14"}}')
    assert [(c.name, c.arguments) for c in parsed.calls] == [("get_weather", {"city": "Oslo", "date": "2025-06-14"})]
    assert parsed.content_without_calls is None


def test_several_bare_objects_are_parallel_calls():
    text = '{"name": "f", "arguments": {"a": 1}}\n{"name": "f", "arguments": {"a": 2}}\nThese fetch both.'
    parsed = parse_tool_calls(text, known_tools={"f"})
    assert [c.arguments for c in parsed.calls] == [{"a": 1}, {"a": 2}]
    assert parsed.content_without_calls == "These fetch both."


def test_json_answers_are_not_calls_when_tools_are_known():
    answer = 'The record is {"name": "Alice", "arguments": "none"}.'
    assert parse_tool_calls(answer, known_tools={"lookup"}).calls == []
    assert parse_tool_calls(answer, known_tools={"lookup"}).content_without_calls == answer
    assert parse_tool_calls("Plain answer: 42.").calls == []


@pytest.mark.parametrize(
    ("raw", "expected", "fixes"),
    [
        ("{'city': 'Oslo'}", {"city": "Oslo"}, ["single_quotes"]),
        ('{"a": 1, "b": [1, 2,],}', {"a": 1, "b": [1, 2]}, ["trailing_commas"]),
        ("{city: \"Oslo\", days: 3}", {"city": "Oslo", "days": 3}, ["unquoted_keys"]),
        ('{"ok": True, "none": None, "no": False}', {"ok": True, "none": None, "no": False}, ["python_literals"]),
        ('{"a": {"b": [1, 2', {"a": {"b": [1, 2]}}, ["truncated"]),
        ('{"q": "unterminated', {"q": "unterminated"}, ["truncated"]),
        ("{'s': \"it's \\\"quoted\\\"\"}", {"s": 'it\'s "quoted"'}, ["single_quotes"]),
        ('"{\\"a\\": 1}"', {"a": 1}, ["double_encoded"]),
        ('Arguments: {"a": 1}', {"a": 1}, ["surrounding_text"]),
        ('{"True": "keys stay"}', {"True": "keys stay"}, []),
        ('{{"a": "x}}y", "b": {{"c": 1}}}}', {"a": "x}}y", "b": {"c": 1}}, ["doubled_braces"]),
        ("{{'a': 1}}", {"a": 1}, ["doubled_braces", "single_quotes"]),
        ('{"id": "12345",  // the id the search returned\n "url": "http://x/y"}', {"id": "12345", "url": "http://x/y"}, ["comments"]),
        ('{"a": 1 /* one */, "b": 2}', {"a": 1, "b": 2}, ["comments"]),
    ],
)
def test_argument_repairs_are_named(raw, expected, fixes):
    value, applied = parse_arguments(raw)
    assert value == expected
    assert applied == fixes


def test_unrepairable_arguments_become_a_failed_repair():
    parsed = parse_tool_calls(None, [{"id": "z", "function": {"name": "f", "arguments": "[1, 2]"}}])
    assert parsed.calls[0].arguments == {} and parsed.calls[0].raw_arguments == "[1, 2]"
    assert not parsed.repairs[0].ok and "JSON object" in parsed.repairs[0].error
    with pytest.raises(ValueError):
        parse_arguments("<<<>>>")


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.text(max_size=6), JSON_VALUES, max_size=4))
def test_valid_json_is_never_repaired(arguments):
    value, fixes = parse_arguments(json.dumps(arguments))
    assert value == arguments and fixes == []


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.from_regex(r"[a-z]{1,6}", fullmatch=True), st.integers() | st.booleans(), min_size=1, max_size=4))
def test_python_repr_of_simple_dicts_is_repaired(arguments):
    value, fixes = parse_arguments(repr(arguments))
    assert value == arguments and "single_quotes" in fixes


# What the embedded Qwen2.5-Coder-0.5B writes for a call, decoded as a trainer decodes it (the
# turn's end marker kept): a bare object, a fenced block after some prose, a Hermes block.
EMBEDDED_TURNS = [
    '{"name": "find_flights", "arguments": {"origin": "ZRH", "destination": "OPO"}}<|im_end|>',
    'Sure.\n```json\n{"name": "find_flights", "arguments": {"origin": "ZRH", "destination": "OPO"}}\n```<|im_end|>',
    '<tool_call>\n{"name": "find_flights", "arguments": {"origin": "ZRH", "destination": "OPO"}}\n</tool_call><|im_end|>',
]


@pytest.mark.parametrize("text", EMBEDDED_TURNS, ids=["bare", "fenced", "tagged"])
def test_decoded_turn_and_known_names_give_the_call(text):
    parsed = parse_tool_calls(text, known_tools={"find_flights", "get_gate"})
    assert [(c.name, c.arguments) for c in parsed.calls] == [("find_flights", {"origin": "ZRH", "destination": "OPO"})]
    assert parsed.repairs == []


def test_an_unparsable_call_keeps_its_name_and_says_why():
    parsed = parse_tool_calls('<tool_call>\n{"name": "get_gate", "arguments": ??}\n</tool_call>', known_tools={"get_gate"})
    (call,), (repair,) = parsed.calls, parsed.repairs
    assert call.name == "get_gate" and call.arguments == {} and repair.call_id == call.id and not repair.ok
    assert repair.failure_message().startswith("the arguments of 'get_gate' are not a JSON object (")
