"""veRL's tool parser slot filled with the project's one tool-call parser (`agent_sdk.parse_tool_calls`).

veRL's stock `hermes` parser reads only `<tool_call>...</tool_call>` blocks, but the embedded
Qwen2.5-Coder-0.5B also writes its calls as a bare JSON object or a ```json fence. A call
the trainer's parser misses is a call the evaluator (agent_sdk) would have run: train/eval
parity needs the same parser on both sides (docs/design.md §7). `AstraToolParser` decodes the
generated tokens and runs `parse_tool_calls`; fenced and bare JSON count as calls only when
they name one of the rollout's tools, so a final answer that happens to be JSON stays an
answer. Arguments are handed on as the model wrote them: `McpEpisode.call` repairs them the
way the agent does and records the repair on the trajectory (one decision in training and
evaluation, counted either way); arguments that cannot be repaired get an error there.

Importing this module registers the parser under `ASTRA_TOOL_PARSER`, the recipe's default
`actor_rollout_ref.rollout.multi_turn.format`.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
from verl.experimental.agent_loop.tool_parser import FunctionCall, ToolParser
from verl.tools.schemas import OpenAIFunctionToolSchema

from agent_sdk import parse_tool_calls

ASTRA_TOOL_PARSER = "astra"
"""The name `AstraToolParser` is registered under in veRL's `ToolParser` registry."""


@ToolParser.register(ASTRA_TOOL_PARSER)
class AstraToolParser(ToolParser):
    """Tool calls as `<tool_call>` tags, ```json fences or bare JSON objects (`agent_sdk.parse_tool_calls`)."""

    async def extract_tool_calls(
        self, responses_ids: list[int], tools: list[OpenAIFunctionToolSchema] | None = None
    ) -> tuple[str, list[FunctionCall]]:
        """The text without its calls, and the calls, of one generated turn.

        Args:
            responses_ids: the turn's generated token ids.
            tools: the rollout's tools; a fenced or bare JSON object is a call only when it names one.
        """
        # Special tokens (the end-of-turn marker) are not content; `<tool_call>` is not special in
        # ChatML tokenizers, and a template that made it special still leaves the JSON to parse.
        text = await anyio.to_thread.run_sync(lambda: self.tokenizer.decode(responses_ids, skip_special_tokens=True))
        known = {tool.function.name for tool in tools} if tools else None
        parsed = parse_tool_calls(text, None, known_tools=known)
        calls = [
            FunctionCall(name=call.name, arguments=_arguments_text(call.raw_arguments, call.arguments), tool_call_id=call.id)
            for call in parsed.calls
        ]
        return parsed.content_without_calls or "", calls


def _arguments_text(raw: str | None, arguments: dict[str, Any]) -> str:
    """The arguments as written (a call given as a JSON object has no text: its arguments, serialized)."""
    return raw if raw is not None else json.dumps(arguments, ensure_ascii=False)
