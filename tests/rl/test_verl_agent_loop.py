"""The veRL MCP agent loop: a real arena, a real tokenizer, the recipe's composed config, and veRL's own
server client (`LLMServerClient`) in front of a scripted replica that returns what veRL's vLLM server returns."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import numpy as np
import pytest

from mcp_servers import ArenaServer, LocalSandbox, serve_app
from rl.datasets import RlTask, build_tasks, prompt_tokens, task_tools
from rl.distractors import Distractor

pytestmark = pytest.mark.anyio


class _Method:
    """`replica.generate.remote(...)`, as a Ray actor handle exposes it."""

    def __init__(self, fn: Any) -> None:
        self.remote = fn


class ScriptedReplica:
    """Stands in for veRL's vLLM server actor: each turn returns the next scripted text as token ids.

    Its `TokenOutput` carries what `vLLMHttpServer.generate` puts there: log probs, stop reason,
    preemptions and `extra_fields` with the weight version (`global_steps`) and prefix-cache hits.
    """

    def __init__(self, tokenizer: Any, turns: list[str], weight_versions: list[int]) -> None:
        self.tokenizer = tokenizer
        self.turns = list(turns)
        self.weight_versions = list(weight_versions)
        self.prompts: list[list[int]] = []
        self.generated: list[list[int]] = []
        self.generate = _Method(self._generate)

    async def _generate(self, *, request_id: str, prompt_ids: list[int], sampling_params: dict[str, Any], **_: Any) -> Any:
        from verl.workers.rollout.replica import TokenOutput

        self.prompts.append(list(prompt_ids))
        text = self.turns.pop(0) if self.turns else "Done.<|im_end|>"
        version = self.weight_versions.pop(0) if len(self.weight_versions) > 1 else self.weight_versions[0]
        ids = self.tokenizer.encode(text, add_special_tokens=False)
        self.generated.append(ids)
        return TokenOutput(
            token_ids=ids, log_probs=[-0.5] * len(ids), stop_reason="completed", num_preempted=0,
            extra_fields={"global_steps": version, "num_cached_tokens": 0},
        )


def scripted_client(config: Any, replica: ScriptedReplica) -> Any:
    """veRL's `LLMServerClient` (its own `generate`) routed to the scripted replica instead of a Ray load balancer."""
    from verl.workers.rollout.llm_server import LLMServerClient

    class Client(LLMServerClient):
        async def _acquire_server(self, request_id: str, **extra: Any) -> tuple[str, Any]:
            return "replica-0", replica

        def _release_server(self, server_id: str, request_id: str | None = None) -> None:
            pass

    return Client(config)


def tool_call(name: str, arguments: dict[str, Any]) -> str:
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": arguments}) + "\n</tool_call>"


def turn(*calls: str) -> str:
    return "\n".join(calls) + "<|im_end|>"


def composed_config(arena_url: str, tmp_path: Path, **settings: Any) -> Any:
    """The trainer config `astra rl train --engine verl` composes (cpu-small preset, wider lengths, 8 turns)."""
    from rl.presets import CPU_SMALL
    from rl.verl import VerlRecipe, compose_config

    recipe = VerlRecipe.from_preset(
        CPU_SMALL, model_path="/models/local", train_files="t.parquet", val_files="v.parquet", arena_url=arena_url,
        n_gpus_per_node=1, call_timeout_s=10, **{"max_prompt_length": 4096, "max_response_length": 4096, "max_turns": 8, **settings},
    )
    return compose_config(recipe, tmp_path / "agent_loops.yaml")


@pytest.fixture(scope="module")
def tokenizer(tokenizer_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(tokenizer_dir))


def travel_row(envs) -> dict[str, Any]:
    travel = next(e for e in envs if e.spec.domain == "travel")
    finance = next(e for e in envs if e.spec.domain == "finance")
    distractors = {travel.spec.id: [Distractor(env_id=finance.spec.id, name="get_stock_price", domain="finance", band="low")]}
    (task,) = build_tasks([travel], distractors)
    row = task.verl_row(0, "train")
    row["raw_prompt"] = row["prompt"]
    return row


async def run_loop(envs, tokenizer, tmp_path, turns: list[str], *, weight_versions=(7,), **settings) -> tuple[Any, ScriptedReplica]:
    from verl.experimental.agent_loop.agent_loop import DictConfigWrap
    from verl.utils.dataset.rl_dataset import RLHFDataset

    from rl.verl import McpAgentLoop

    row = travel_row(envs)
    async with LocalSandbox() as sandbox, anyio.create_task_group() as tg:
        port = await tg.start(serve_app, ArenaServer(envs, sandbox).app)
        config = composed_config(f"http://127.0.0.1:{port}", tmp_path, **settings)
        replica = ScriptedReplica(tokenizer, turns, list(weight_versions))
        loop = McpAgentLoop(
            trainer_config=DictConfigWrap(config), server_manager=scripted_client(config, replica), tokenizer=tokenizer,
            processor=None, dataset_cls=RLHFDataset, data_config=DictConfigWrap(config.data), hf_model_type="qwen2",
        )
        with anyio.fail_after(120):
            output = await loop.run({"temperature": 1.0}, **row)
        tg.cancel_scope.cancel()
    return output, replica


def tool_text(tokenizer, output) -> str:
    return tokenizer.decode([t for t, m in zip(output.response_ids, output.response_mask, strict=True) if m == 0])


async def test_rollout_over_mcp_masks_tool_tokens_and_scores_f1(envs, tokenizer, tmp_path):
    turns = [
        turn(tool_call("find_flights", {"origin": "ZRH", "destination": "OPO"})),
        turn(tool_call("get_gate", {"flight_number": "LX2084"})),
        "The morning flight LX2084 leaves from gate A52.<|im_end|>",
    ]
    output, replica = await run_loop(envs, tokenizer, tmp_path, turns)
    # the prompt listed the env's tools plus the distractor
    first_prompt = tokenizer.decode(replica.prompts[0])
    assert "find_flights" in first_prompt and "get_gate" in first_prompt and "get_stock_price" in first_prompt
    assert output.prompt_ids == replica.prompts[0]
    assert len(output.response_ids) == len(output.response_mask)
    # generated tokens are exactly the mask-1 tokens, in order; tool messages are masked out
    generated = [t for t, m in zip(output.response_ids, output.response_mask, strict=True) if m == 1]
    assert generated == [t for ids in replica.generated for t in ids]
    observed = tool_text(tokenizer, output)
    assert "LX2084 departs 07:40" in observed  # the real environment answered over MCP
    assert '"gate":"A52"' in observed.replace(" ", "")
    assert output.response_mask[0] == 1 and output.response_mask[-1] == 1
    assert output.response_logprobs is not None and len(output.response_logprobs) == len(output.response_ids)
    # F1 reward: n=2 subtasks solved with c=2 calls
    assert output.reward_score == pytest.approx(1.0)
    info = output.extra_fields["reward_extra_info"]
    assert (info["n"], info["n_hat"], info["c"]) == (2, 2, 2)
    assert output.extra_fields["tool_calls"] == 2
    assert output.num_turns == 3 + 2 + 1  # veRL's count: assistant turns + tool turns + the prompt


async def test_server_extra_fields_reach_the_trainer(envs, tokenizer, tmp_path):
    turns = [turn(tool_call("find_flights", {"origin": "ZRH", "destination": "OPO"})), "LX2084.<|im_end|>"]
    output, _ = await run_loop(envs, tokenizer, tmp_path, turns, weight_versions=[3, 4])
    fields = output.extra_fields
    # the weights moved from version 3 to 4 during the trajectory, as veRL's server client reports them
    assert (fields["min_global_steps"], fields["max_global_steps"]) == (3, 4)
    assert fields["num_cached_tokens"] == 0
    assert output.metrics.num_preempted == 0
    # what the v1 trainer does with them after each step (trainer_base: staleness metrics)
    tags = [{"min_global_steps": fields.get("min_global_steps"), "max_global_steps": fields.get("max_global_steps")}]
    spans = np.array([t["max_global_steps"] for t in tags], dtype=int) - np.array([t["min_global_steps"] for t in tags], dtype=int)
    assert spans.tolist() == [1]


async def test_distractor_calls_count_and_errors_become_tool_messages(envs, tokenizer, tmp_path):
    turns = [
        turn(tool_call("get_stock_price", {"ticker": "ACME"})),
        turn(tool_call("find_flights", {"origin": "ZRH"})),
        turn(tool_call("find_flights", {"origin": "ZRH", "destination": "OPO"})),
        turn(tool_call("get_gate", {"flight_number": "LX2084"})),
        "Gate A52.<|im_end|>",
    ]
    output, _ = await run_loop(envs, tokenizer, tmp_path, turns)
    info = output.extra_fields["reward_extra_info"]
    assert (info["n"], info["n_hat"], info["c"]) == (2, 2, 4)
    assert output.reward_score == pytest.approx(2 * 2 / (2 + 4))
    observed = tool_text(tokenizer, output)
    assert "ACME trades at 41.20 USD" in observed  # the distractor ran in its source environment
    assert "destination" in observed  # the schema error came back as a tool message


async def test_the_models_json_call_formats_are_calls(envs, tokenizer, tmp_path):
    # what the embedded Qwen2.5-Coder-0.5B writes: a ```json fence, then a bare JSON object
    fenced = '```json\n{"name": "find_flights", "arguments": {"origin": "ZRH", "destination": "OPO"}}\n```<|im_end|>'
    bare = '{"name": "get_gate", "arguments": {"flight_number": "LX2084"}}<|im_end|>'
    output, _ = await run_loop(envs, tokenizer, tmp_path, [fenced, bare, "Gate A52.<|im_end|>"])
    info = output.extra_fields["reward_extra_info"]
    assert (info["n_hat"], info["c"]) == (2, 2) and output.reward_score == pytest.approx(1.0)


async def test_every_call_of_a_turn_runs_beyond_max_parallel_calls(envs, tokenizer, tmp_path):
    calls = [
        tool_call("find_flights", {"origin": "ZRH", "destination": "OPO"}),
        tool_call("get_gate", {"flight_number": "LX2084"}),
        tool_call("get_stock_price", {"ticker": "ACME"}),
    ]
    output, _ = await run_loop(envs, tokenizer, tmp_path, [turn(*calls), "A52.<|im_end|>"], max_parallel_calls=2)
    observed = tool_text(tokenizer, output)
    assert "LX2084 departs" in observed and "A52" in observed and "ACME trades" in observed
    info = output.extra_fields["reward_extra_info"]
    assert (info["n_hat"], info["c"]) == (2, 3)  # the third call (a distractor) ran and counts


async def test_turn_limit_stops_before_the_last_turns_tools_run(envs, tokenizer, tmp_path):
    turns = [
        turn(tool_call("find_flights", {"origin": "ZRH", "destination": "OPO"})),
        turn(tool_call("get_gate", {"flight_number": "LX2084"})),
    ]
    output, replica = await run_loop(envs, tokenizer, tmp_path, turns, max_turns=2)
    assert len(replica.generated) == 2
    observed = tool_text(tokenizer, output)
    assert "LX2084 departs" in observed and "A52" not in observed  # get_gate never ran
    assert output.response_mask[-1] == 1  # the episode ends on the model's own tokens
    info = output.extra_fields["reward_extra_info"]
    # the unexecuted call still counts in c: the model made it
    assert (info["n_hat"], info["c"]) == (1, 2)
    assert output.num_turns == 2 + 1 + 1


async def test_no_call_episode_scores_zero(envs, tokenizer, tmp_path):
    output, replica = await run_loop(envs, tokenizer, tmp_path, ["I cannot help with that.<|im_end|>"])
    assert len(replica.generated) == 1 and output.reward_score == 0.0
    assert output.extra_fields["reward_extra_info"]["c"] == 0
    assert RlTask.from_verl(travel_row(envs)).distractor_names == ["get_stock_price"]


async def test_prepare_measures_the_prompt_the_rollout_sends(envs, tokenizer, tmp_path):
    output, replica = await run_loop(envs, tokenizer, tmp_path, ["Done.<|im_end|>"])
    task = RlTask.from_verl(travel_row(envs))
    tools = task_tools(task, {e.spec.id: e for e in envs})
    assert prompt_tokens(tokenizer, task.prompt, tools) == len(replica.prompts[0])


def test_sanitized_schemas_keep_what_verl_drops(envs):
    from rl.verl import sanitize_tool

    weather = next(e for e in envs if e.spec.domain == "weather")
    uv = weather.spec.tool("get_uv_index")
    schema = sanitize_tool({"type": "function", "function": {"name": uv.name, "description": uv.description, "parameters": uv.input_schema}})
    days = schema.function.parameters.properties["days"]
    assert days.type == "array" and '"items"' in days.description
    odd = sanitize_tool({"name": "f", "parameters": {"type": "object", "properties": {"x": {"anyOf": [{"type": "integer"}, {"type": "null"}]}, "y": {"enum": ["a", "b"]}}, "required": ["x", "zzz"]}})
    props = odd.function.parameters.properties
    assert props["x"].type == ["integer", "null"] and props["y"].type == "string" and props["y"].enum == ["a", "b"]
    assert odd.function.parameters.required == ["x"]
