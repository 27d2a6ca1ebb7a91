"""The veRL agent loop that rolls out over MCP: one arena session per trajectory.

veRL 0.9.1 has no MCP support and runs a `BaseTool`'s create/execute/release per call, so the
per-trajectory session lives here. Per trajectory: open an MCP session to the arena for the
row's environment plus its distractors, list the tools, render the prompt with the
tokenizer's chat template and those tools, generate through veRL's server manager, parse
tool calls with the configured veRL tool parser (the recipe selects `AstraToolParser`, the
agent's own parser), call the tools over MCP (per-call timeout; failures become tool
messages), and return the F1 reward with its parts. `response_mask` is 1 on generated tokens
and 0 on tool tokens, as veRL's own tool loop builds it.

Where this loop departs from veRL's `ToolAgentLoop`, it does so for the F1 reward, whose c
must be every call the model made (the count the evaluator's agent makes):

- `multi_turn.max_parallel_calls` bounds how many of a turn's calls run at once; every call
  runs (veRL drops the calls past the limit, unanswered and uncounted).
- At `multi_turn.max_assistant_turns` the episode ends right after generation, before any
  tool runs, as in veRL; the calls of that last turn are recorded as failed calls ("turn
  limit reached"), so they count in c.
- A turn that fills the response budget ends the episode unparsed, as in veRL (its last call
  may be cut off).

The rollout server's `extra_fields` (weight versions `min_global_steps`/`max_global_steps`,
speculative-decoding counters, prefix-cache hits) are carried as `ToolAgentLoop` carries
them: veRL's v1 trainer reads the weight versions of every trajectory.

Settings come from the trainer config's `astra` section (`arena_url`, `call_timeout_s`),
falling back to the `ASTRA_ARENA_URL` environment variable.
"""

from __future__ import annotations

import json
import os
from typing import Any
from uuid import uuid4

import anyio
from verl.experimental.agent_loop.agent_loop import AgentLoopBase, AgentLoopOutput, register
from verl.experimental.agent_loop.tool_agent_loop import SPEC_DECODE_EXTRA_KEYS
from verl.experimental.agent_loop.tool_parser import FunctionCall, ToolParser
from verl.tools.schemas import OpenAIFunctionCallSchema, OpenAIFunctionParsedSchema
from verl.utils.profiler import simple_timer
from verl.workers.rollout.replica import TokenOutput

from agent_sdk import ToolCall, ToolCallRecord, ToolResult
from rl._episode import McpEpisode
from rl.datasets import AGENT_NAME, RlTask
from rl.exceptions import TrainingSetupError
from rl.verl._schema import sanitize_tool
from rl.verl._tool_parser import ASTRA_TOOL_PARSER

REWARD_KEYS = ("f1_reward", "n", "n_hat", "c", "recall", "precision")
"""Keys of `reward_extra_info` (the same for every row, so veRL can stack them)."""


@register(AGENT_NAME)
class McpAgentLoop(AgentLoopBase):
    """A multi-turn tool-calling agent loop whose tools are an arena MCP session."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.pop("tools", None)  # veRL's configured tools are not used: the MCP session provides them
        super().__init__(*args, **kwargs)
        multi_turn = self.rollout_config.multi_turn
        self.max_turns = int(multi_turn.get("max_assistant_turns") or 32)
        self.max_parallel_calls = int(multi_turn.get("max_parallel_calls") or 1)
        self.max_tool_response_length = int(multi_turn.get("max_tool_response_length") or 8192)
        self.tool_parser = ToolParser.get_tool_parser(multi_turn.get("format") or ASTRA_TOOL_PARSER, self.tokenizer)
        self.response_length = self.rollout_config.response_length
        astra = self.config.get("astra") or {}
        self.arena_url = astra.get("arena_url") or os.environ.get("ASTRA_ARENA_URL")
        if not self.arena_url:
            raise TrainingSetupError("no arena URL: set astra.arena_url in the trainer config or ASTRA_ARENA_URL")
        self.call_timeout_s = float(astra.get("call_timeout_s") or 30.0)

    async def run(self, sampling_params: dict[str, Any], priority: int = 0, **kwargs: Any) -> AgentLoopOutput:
        """Roll out one trajectory of the row in `kwargs` (a veRL `RLHFDataset` item)."""
        task = RlTask.from_verl(kwargs)
        messages: list[dict[str, Any]] = [dict(m) for m in kwargs["raw_prompt"]]
        metrics: dict[str, Any] = {}
        server_fields: dict[str, Any] = {}
        request_id = uuid4().hex
        if self.tool_parser.stop_token_ids:
            stops = set(sampling_params.get("stop_token_ids") or []) | set(self.tool_parser.stop_token_ids)
            sampling_params = {**sampling_params, "stop_token_ids": sorted(stops)}
        async with McpEpisode(
            self.arena_url, task, call_timeout_s=self.call_timeout_s, max_observation_chars=self.max_tool_response_length
        ) as episode:
            tools = episode.tools
            parser_tools = [sanitize_tool(t) for t in tools]
            prompt_ids = await self.ct_build_initial_tokens(messages, tools=tools)
            response_mask: list[int] = []
            logprobs: list[float] = []
            assistant_turns = tool_turns = 0
            while True:
                with simple_timer("generate_sequences", metrics):
                    output = await self.server_manager.generate(
                        request_id=request_id, prompt_ids=prompt_ids, sampling_params=sampling_params
                    )
                _carry_server_fields(server_fields, metrics, output)
                assistant_turns += 1
                merged, response_mask, new_logprobs = await self.ct_merge_assistant_token(
                    prompt_ids,
                    output.token_ids,
                    response_mask,
                    logprobs if (logprobs or output.log_probs) else None,
                    assistant_logprobs=output.log_probs or None,
                )
                prompt_ids = merged.token_ids
                if new_logprobs is not None:
                    logprobs = new_logprobs
                if len(response_mask) >= self.response_length:
                    break
                content, calls = await self.tool_parser.extract_tool_calls(output.token_ids, parser_tools)
                messages.append(_assistant_message(content, calls))
                if not calls:
                    break
                if assistant_turns >= self.max_turns:
                    for call in calls:
                        _record_unrun(episode, call, turn=assistant_turns, reason=f"the turn limit ({self.max_turns}) was reached")
                    break
                with simple_timer("tool_calls", metrics):
                    observations = await self._call_tools(episode, calls, turn=assistant_turns)
                previous = list(messages)
                for call, text in zip(calls, observations, strict=True):
                    tool_message = {"role": "tool", "name": call.name, "content": text}
                    if call.tool_call_id is not None:
                        tool_message["tool_call_id"] = call.tool_call_id
                    messages.append(tool_message)
                merged, mask_after, logprobs_after = await self.ct_merge_context_msg(
                    previous, messages, prompt_ids, response_mask, logprobs or None, tools=tools
                )
                if len(mask_after) >= self.response_length:
                    break
                prompt_ids, response_mask = merged.token_ids, mask_after
                tool_turns += 1
                if logprobs:
                    logprobs = logprobs_after or []
            parts = episode.reward(messages)
        n_response = len(response_mask)
        response_ids = prompt_ids[len(prompt_ids) - n_response :] if n_response else []
        prompt_only = prompt_ids[: len(prompt_ids) - n_response]
        extra = {
            **server_fields,
            "reward_extra_info": {
                "f1_reward": float(parts.reward), "n": int(parts.n), "n_hat": int(parts.n_hat), "c": int(parts.c),
                "recall": float(parts.recall), "precision": float(parts.precision),
            },
            "tool_calls": len(episode.records),
            "env_id": task.env_id,
            "turn_scores": [],
            "tool_rewards": [],
        }
        return AgentLoopOutput(
            prompt_ids=prompt_only,
            response_ids=response_ids[: self.response_length],
            response_mask=response_mask[: self.response_length],
            response_logprobs=logprobs[: self.response_length] if logprobs else None,
            reward_score=float(parts.reward),
            num_turns=assistant_turns + tool_turns + 1,  # veRL's count: assistant + tool turns + the prompt
            metrics=metrics,
            extra_fields=extra,
        )

    async def _call_tools(self, episode: McpEpisode, calls: list[FunctionCall], *, turn: int) -> list[str]:
        """Every call of the turn, at most `max_parallel_calls` at once; observations in call order."""
        observations = [""] * len(calls)
        limiter = anyio.CapacityLimiter(self.max_parallel_calls)

        async def call_one(index: int, call: FunctionCall) -> None:
            async with limiter:
                observations[index] = await episode.call(call.name, call.arguments, turn=turn, call_id=call.tool_call_id)

        async with anyio.create_task_group() as tg:
            for index, call in enumerate(calls):
                tg.start_soon(call_one, index, call)
        return observations


def _carry_server_fields(fields: dict[str, Any], metrics: dict[str, Any], output: TokenOutput) -> None:
    """Fold one generation's `extra_fields` and preemptions in, as veRL's `ToolAgentLoop` does."""
    if metrics.get("num_preempted") is None:
        metrics["num_preempted"] = output.num_preempted if output.num_preempted is not None else -1
    else:
        metrics["num_preempted"] += output.num_preempted or 0
    if not fields:
        fields.update(output.extra_fields)
        return
    # later turns: the newest weight version, and summed speculative-decoding counters
    if output.extra_fields.get("max_global_steps"):
        fields["max_global_steps"] = output.extra_fields["max_global_steps"]
    for key in SPEC_DECODE_EXTRA_KEYS:
        if key in output.extra_fields and key in fields:
            fields[key] = int(fields[key]) + int(output.extra_fields[key])


def _record_unrun(episode: McpEpisode, call: FunctionCall, *, turn: int, reason: str) -> None:
    """Record a call the model made but that never ran: a failed call, so it counts in the reward's c."""
    try:
        value = json.loads(call.arguments)
    except (TypeError, ValueError):
        value = None
    arguments = value if isinstance(value, dict) else {}
    call_id = call.tool_call_id or f"call_{len(episode.records)}"
    message = f"not executed: {reason}"
    episode.records.append(
        ToolCallRecord(
            turn=turn,
            call=ToolCall(id=call_id, name=call.name, arguments=arguments, raw_arguments=call.arguments),
            result=ToolResult(ok=False, text=message, error=message, tool=call.name),
        )
    )


def _assistant_message(content: str, calls: list[FunctionCall]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content or ""}
    if calls:
        rendered = []
        for call in calls:
            parsed, bad = OpenAIFunctionCallSchema.from_openai_function_parsed_schema(
                OpenAIFunctionParsedSchema(name=call.name, arguments=call.arguments)
            )
            function = {"name": call.name, "arguments": call.arguments} if bad else parsed.model_dump()
            item: dict[str, Any] = {"type": "function", "function": function}
            if call.tool_call_id is not None:
                item["id"] = call.tool_call_id
            rendered.append(item)
        message["tool_calls"] = rendered
    return message
