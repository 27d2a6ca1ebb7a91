"""Exports of real episodes, loaded back by our readers and by TRL's and veRL's own readers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_sdk import (
    Agent,
    FunctionModel,
    Toolbox,
    read_openai_jsonl,
    read_sft_parquet,
    read_trajectories_jsonl,
    write_openai_jsonl,
    write_sft_parquet,
    write_trajectories_jsonl,
)
from agent_sdk.exceptions import UserError

# A ChatML template that renders tools and tool calls (arguments through tojson, as Qwen2.5's does).
CHAT_TEMPLATE = (
    "{%- if tools %}<|im_start|>system\n"
    "{%- for m in messages if m.role == 'system' %}{{ m.content }}\n{% endfor %}"
    "<tools>{% for t in tools %}{{ t | tojson }}\n{% endfor %}</tools><|im_end|>\n{% endif %}"
    "{%- for message in messages %}"
    "{%- if not (message.role == 'system' and tools) %}<|im_start|>{{ message.role }}\n"
    "{% if message.content %}{{ message.content }}{% endif %}"
    "{% for call in message.tool_calls or [] %}<tool_call>{\"name\": \"{{ call.function.name }}\", "
    "\"arguments\": {{ call.function.arguments | tojson }}}</tool_call>{% endfor %}<|im_end|>\n{% endif %}"
    "{%- endfor %}{%- if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def _tiny_tokenizer():
    """A byte-level tokenizer built locally (no hub): one token per byte plus ChatML specials."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    backend = Tokenizer(models.BPE(vocab={c: i for i, c in enumerate(alphabet)}, merges=[]))
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    backend.decoder = decoders.ByteLevel()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend, eos_token="<|im_end|>", pad_token="<|endoftext|>",
        additional_special_tokens=["<|im_start|>"],
    )  # fmt: skip
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


def _golden_episode(helpers, env_name: str):
    """A real episode: a `FunctionModel` makes the environment's golden calls, then answers."""
    from mcp_servers import load_env

    env = load_env(helpers.EXAMPLE_ENVS / env_name)
    golden = [s.golden_call for s in env.spec.subtasks if s.golden_call is not None]

    def script(messages, tools, settings):
        done = sum(m.role == "tool" for m in messages)
        if done < len(golden):
            g = golden[done]
            return helpers.calls(helpers.call(g.tool, f"call_{done}", **g.arguments))
        return env.spec.task.answer

    agent = Agent(FunctionModel(script), Toolbox(helpers.EXAMPLE_ENVS / env_name))
    return agent.run_sync(env.spec.task.question, metadata={"env": env_name})


def _shape(message):
    calls = [(c.id, c.name, c.arguments) for c in message.tool_calls]
    return message.role, message.content or "", calls, message.tool_call_id


@pytest.fixture(scope="module")
def episodes(helpers):
    return [_golden_episode(helpers, name) for name in ("weather_forecast", "currency_convert")]


def test_roundtrips(episodes, tmp_path: Path):
    assert [t.stop_reason for t in episodes] == ["final_answer", "final_answer"]
    full = tmp_path / "t.jsonl"
    assert write_trajectories_jsonl(episodes, full) == 2
    assert read_trajectories_jsonl(full) == episodes

    openai = tmp_path / "openai.jsonl"
    write_openai_jsonl(episodes, openai)
    line = json.loads(openai.read_text().splitlines()[1])
    call = line["messages"][2]["tool_calls"][0]
    assert isinstance(call["function"]["arguments"], str) and json.loads(call["function"]["arguments"])
    for back, original in zip(read_openai_jsonl(openai), episodes, strict=True):
        assert [_shape(m) for m in back.messages] == [_shape(m) for m in original.messages]
        assert back.tools == original.tools and back.final_answer == original.final_answer
        assert back.task == original.task

    parquet = tmp_path / "sft.parquet"
    assert write_sft_parquet(episodes, parquet) == 2
    for back, original in zip(read_sft_parquet(parquet), episodes, strict=True):
        assert [_shape(m) for m in back.messages] == [_shape(m) for m in original.messages]
        assert back.tools == original.tools


def test_bad_lines_name_file_and_line(tmp_path: Path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"messages": []}\n{not json\n')
    with pytest.raises(UserError, match=r"bad.jsonl:2: invalid JSON"):
        read_openai_jsonl(path)
    path.write_text('{"messages": [{"role": "robot", "content": "x"}]}\n')
    with pytest.raises(UserError, match=r"bad.jsonl:1: messages\[0\]"):
        read_openai_jsonl(path)
    path.write_text('{"task": 3}\n')
    with pytest.raises(UserError, match=r"bad.jsonl:1: not a trajectory: task"):
        read_trajectories_jsonl(path)


def test_trl_loads_the_sft_parquet_exactly(episodes, tmp_path: Path):
    datasets = pytest.importorskip("datasets")
    trl_data_utils = pytest.importorskip("trl.data_utils")
    path = tmp_path / "sft.parquet"
    write_sft_parquet(episodes, path)
    dataset = datasets.load_dataset("parquet", data_files=str(path), split="train")
    assert len(dataset) == 2
    row = dataset[1]
    assert trl_data_utils.is_conversational(row)
    # Each row keeps exactly its own tool schemas and arguments (no keys merged across rows).
    assert row["tools"] == episodes[1].tools
    assert row["messages"][2]["tool_calls"][0]["function"]["arguments"] == episodes[1].tool_calls[0].call.arguments
    assert dataset[0]["tools"] == episodes[0].tools
    text = trl_data_utils.apply_chat_template(row, _tiny_tokenizer(), tools=row["tools"])["text"]
    call = episodes[1].tool_calls[0].call
    assert f'"arguments": {json.dumps(call.arguments)}' in text
    assert "null" not in text


def test_verl_multiturn_sft_dataset_reads_the_sft_parquet(episodes, tmp_path: Path):
    pytest.importorskip("verl")
    from verl.utils.import_utils import load_extern_object

    from rl.verl import JsonMultiTurnSFTDataset

    # what a veRL SFT config names: data.custom_cls.path=pkg://rl.verl, data.custom_cls.name=JsonMultiTurnSFTDataset
    assert load_extern_object("pkg://rl.verl", "JsonMultiTurnSFTDataset") is JsonMultiTurnSFTDataset
    path = tmp_path / "sft.parquet"
    write_sft_parquet(episodes, path)
    tokenizer = _tiny_tokenizer()
    dataset = JsonMultiTurnSFTDataset(str(path), tokenizer, {"max_length": 4096, "truncation": "error"})
    assert len(dataset) == 2
    for index, episode in enumerate(episodes):
        item = dataset[index]
        ids = item["input_ids"][item["attention_mask"].bool()]
        text = tokenizer.decode(ids)
        assert episode.tools[0]["function"]["name"] in text and "null" not in text
        trained = tokenizer.decode(item["input_ids"][item["loss_mask"].bool()])
        assert episode.final_answer in trained
        for record in episode.tool_calls:
            assert json.dumps(record.call.arguments) in trained
        assert episode.task not in trained  # user turns are not trained on
