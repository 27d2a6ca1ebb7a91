"""veRL's tool parser slot filled with the project's one tool-call parser (`agent_sdk.parse_tool_calls`).

veRL's stock `hermes` parser reads only `<tool_call>...</tool_call>` blocks, but the embedded
Qwen2.5-Coder-0.5B also writes its calls as a bare JSON object or a ```json fence. A call
the trainer's parser misses is a call the evaluator (agent_sdk) would have run: train/eval
parity needs the same parser on both sides (DESIGN §7). `AstraToolParser` decodes the
generated tokens and runs `parse_tool_calls`; fenced and bare JSON count as calls only when
they name one of the rollout's tools, so a final answer that happens to be JSON stays an
answer. Arguments are handed on repaired (as the agent would run them); arguments that
cannot be repaired are handed on as written, so the episode answers them with an error.

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
        unparsed = {repair.call_id for repair in parsed.repairs if not repair.ok}
        calls = [
            FunctionCall(
                name=call.name,
                arguments=_arguments_text(call.raw_arguments, call.arguments, as_written=call.id in unparsed),
                tool_call_id=call.id,
            )
            for call in parsed.calls
        ]
        return parsed.content_without_calls or "", calls


def _arguments_text(raw: str | None, arguments: dict[str, Any], *, as_written: bool) -> str:
    if as_written and raw is not None:
        return raw
    return json.dumps(arguments, ensure_ascii=False)
