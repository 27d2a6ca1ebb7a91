"""The veRL MCP agent loop: scripted token ids from a fake server manager, a real arena, a real tokenizer."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from mcp_servers import ArenaServer, LocalSandbox, serve_app
from rl.datasets import RlTask, build_tasks
from rl.distractors import Distractor

pytestmark = pytest.mark.anyio


class ScriptedServerManager:
    """Stands in for veRL's LLM server manager: each turn returns the next scripted text as token ids."""

    def __init__(self, tokenizer: Any, turns: list[str]) -> None:
        self.tokenizer = tokenizer
        self.turns = list(turns)
        self.prompts: list[list[int]] = []
        self.generated: list[list[int]] = []

    async def generate(self, request_id: str, *, prompt_ids: list[int], sampling_params: dict[str, Any], **_: Any) -> Any:
        from verl.workers.rollout.replica import TokenOutput

        self.prompts.append(list(prompt_ids))
        text = self.turns.pop(0) if self.turns else "Done.<|im_end|>"
        ids = self.tokenizer.encode(text, add_special_tokens=False)
        self.generated.append(ids)
        return TokenOutput(token_ids=ids, log_probs=[-0.5] * len(ids))


def tool_call(name: str, arguments: dict[str, Any]) -> str:
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": arguments}) + "\n</tool_call><|im_end|>"


def make_loop(tokenizer: Any, manager: ScriptedServerManager, arena_url: str, max_turns: int = 32) -> Any:
    from omegaconf import OmegaConf
    from verl.experimental.agent_loop.agent_loop import DictConfigWrap
    from verl.utils.dataset.rl_dataset import RLHFDataset

    from rl.verl import McpAgentLoop

    config = OmegaConf.create(
        {
            "actor_rollout_ref": {
                "rollout": {
                    "prompt_length": 4096,
                    "response_length": 4096,
                    "multi_turn": {"format": "hermes", "max_assistant_turns": max_turns, "max_parallel_calls": 4,
                                   "max_tool_response_length": 2048},
                },
                "model": {"path": "local", "tokenizer_path": "local"},
            },
            "data": {"apply_chat_template_kwargs": {}},
            "astra": {"arena_url": arena_url, "call_timeout_s": 10},
        }
    )
    return McpAgentLoop(
        trainer_config=DictConfigWrap(config),
        server_manager=manager,
        tokenizer=tokenizer,
        processor=None,
        dataset_cls=RLHFDataset,
        data_config=DictConfigWrap(config.data),
        hf_model_type="qwen2",
    )


@pytest.fixture(scope="module")
def tokenizer(tokenizer_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(tokenizer_dir))


def travel_row(envs) -> tuple[dict[str, Any], Any]:
    travel = next(e for e in envs if e.spec.domain == "travel")
    finance = next(e for e in envs if e.spec.domain == "finance")
    distractors = {travel.spec.id: [Distractor(env_id=finance.spec.id, name="get_stock_price", domain="finance", band="low")]}
    (task,) = build_tasks([travel], distractors)
    row = task.verl_row(0, "train")
    row["raw_prompt"] = row["prompt"]
    return row, travel


async def run_loop(envs, tokenizer, turns: list[str]) -> tuple[Any, ScriptedServerManager]:
    row, _ = travel_row(envs)
    async with LocalSandbox() as sandbox, anyio.create_task_group() as tg:
        arena = ArenaServer(envs, sandbox)
        port = await tg.start(serve_app, arena.app)
        manager = ScriptedServerManager(tokenizer, turns)
        loop = make_loop(tokenizer, manager, f"http://127.0.0.1:{port}")
        with anyio.fail_after(120):
            output = await loop.run({"temperature": 1.0}, **row)
        tg.cancel_scope.cancel()
    return output, manager


async def test_rollout_over_mcp_masks_tool_tokens_and_scores_f1(envs, tokenizer):
    turns = [
        tool_call("find_flights", {"origin": "ZRH", "destination": "OPO"}),
        tool_call("get_gate", {"flight_number": "LX2084"}),
        "The morning flight LX2084 leaves from gate A52.<|im_end|>",
    ]
    output, manager = await run_loop(envs, tokenizer, turns)
    # the prompt listed the env's tools plus the distractor
    first_prompt = tokenizer.decode(manager.prompts[0])
    assert "find_flights" in first_prompt and "get_gate" in first_prompt and "get_stock_price" in first_prompt
    assert output.prompt_ids == manager.prompts[0]
    assert len(output.response_ids) == len(output.response_mask)
    # generated tokens are exactly the mask-1 tokens, in order; tool messages are masked out
    generated = [t for t, m in zip(output.response_ids, output.response_mask, strict=True) if m == 1]
    assert generated == [t for ids in manager.generated for t in ids]
    observed = tokenizer.decode([t for t, m in zip(output.response_ids, output.response_mask, strict=True) if m == 0])
    assert "LX2084 departs 07:40" in observed  # the real environment answered over MCP
    assert '"gate":"A52"' in observed.replace(" ", "")
    assert output.response_mask[0] == 1 and output.response_mask[-1] == 1
    assert output.response_logprobs is not None and len(output.response_logprobs) == len(output.response_ids)
    # F1 reward: n=2 subtasks solved with c=2 calls
    assert output.reward_score == pytest.approx(1.0)
    info = output.extra_fields["reward_extra_info"]
    assert (info["n"], info["n_hat"], info["c"]) == (2, 2, 2)
    assert output.extra_fields["tool_calls"] == 2


async def test_distractor_calls_count_and_errors_become_tool_messages(envs, tokenizer):
    turns = [
        tool_call("get_stock_price", {"ticker": "ACME"}),
        "<tool_call>\n{\"name\": \"find_flights\", \"arguments\": {\"origin\": \"ZRH\"}}\n</tool_call><|im_end|>",
        tool_call("find_flights", {"origin": "ZRH", "destination": "OPO"}),
        tool_call("get_gate", {"flight_number": "LX2084"}),
        "Gate A52.<|im_end|>",
    ]
    output, _ = await run_loop(envs, tokenizer, turns)
    info = output.extra_fields["reward_extra_info"]
    assert (info["n"], info["n_hat"], info["c"]) == (2, 2, 4)
    assert output.reward_score == pytest.approx(2 * 2 / (2 + 4))
    observed = tokenizer.decode([t for t, m in zip(output.response_ids, output.response_mask, strict=True) if m == 0])
    assert "ACME trades at 41.20 USD" in observed  # the distractor ran in its source environment
    assert "destination" in observed  # the schema error came back as a tool message


async def test_turn_limit_and_no_call_episode(envs, tokenizer):
    looping = [tool_call("find_flights", {"origin": "AMS", "destination": "OPO"})] * 5
    output, manager = await run_loop(envs, tokenizer, looping[:3])
    assert len(manager.generated) == 4  # three calls then the default final answer
    assert output.reward_score == 0.0
    assert output.extra_fields["reward_extra_info"]["c"] == 3
    row, _ = travel_row(envs)
    assert RlTask.from_verl(row).distractor_names == ["get_stock_price"]


def test_sanitized_schemas_keep_what_verl_drops(envs):
    from rl.verl._schema import sanitize_tool

    weather = next(e for e in envs if e.spec.domain == "weather")
    uv = weather.spec.tool("get_uv_index")
    schema = sanitize_tool({"type": "function", "function": {"name": uv.name, "description": uv.description, "parameters": uv.input_schema}})
    days = schema.function.parameters.properties["days"]
    assert days.type == "array" and '"items"' in days.description
    odd = sanitize_tool({"name": "f", "parameters": {"type": "object", "properties": {"x": {"anyOf": [{"type": "integer"}, {"type": "null"}]}, "y": {"enum": ["a", "b"]}}, "required": ["x", "zzz"]}})
    props = odd.function.parameters.properties
    assert props["x"].type == ["integer", "null"] and props["y"].type == "string" and props["y"].enum == ["a", "b"]
    assert odd.function.parameters.required == ["x"]
