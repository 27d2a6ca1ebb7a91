"""A vLLM tool-parser plugin: hermes, plus calls written as bare or fenced JSON.

Loaded by the vLLM server process, not by `agent_sdk` (it imports vLLM, which lives in its
own environment): `--tool-parser-plugin <this file> --tool-call-parser hermes_json`.
Qwen2.5-Coder with `tool_choice="auto"` often writes `{"name": ..., "arguments": {...}}`
without `<tool_call>` tags; the stock hermes parser then returns it as content. This parser
returns such an object as a structured call when its name is one of the request's tools, so
clients that read only `tool_calls` see it. Streaming keeps the hermes behaviour.
"""

from __future__ import annotations

import json
from typing import Any

from vllm.entrypoints.generate.base.protocol import ExtractedToolCallInformation, FunctionCall, ToolCall
from vllm.tool_parsers.abstract_tool_parser import ToolParserManager
from vllm.tool_parsers.hermes_tool_parser import Hermes2ProToolParser

_DECODER = json.JSONDecoder()


@ToolParserManager.register_module("hermes_json")
class HermesJsonToolParser(Hermes2ProToolParser):
    """Hermes `<tool_call>` blocks first; else JSON objects naming a requested tool."""

    def extract_tool_calls(self, model_output: str, request: Any) -> ExtractedToolCallInformation:
        if self.tool_call_start_token in model_output:
            return super().extract_tool_calls(model_output, request)
        names = {tool.function.name for tool in (getattr(request, "tools", None) or []) if getattr(tool, "function", None)}
        calls: list[ToolCall] = []
        spans: list[tuple[int, int]] = []
        start = model_output.find("{")
        while start != -1:
            try:
                value, end = _DECODER.raw_decode(model_output, start)
            except ValueError:
                start = model_output.find("{", start + 1)
                continue
            for item in value if isinstance(value, list) else [value]:
                if _is_call(item, names):
                    args = item.get("arguments", item.get("parameters")) or {}
                    calls.append(
                        ToolCall(
                            type="function",
                            function=FunctionCall(name=item["name"], arguments=json.dumps(args, ensure_ascii=False)),
                        )
                    )
                    spans.append((start, end))
            start = model_output.find("{", end)
        if not calls:
            return ExtractedToolCallInformation(tools_called=False, tool_calls=[], content=model_output)
        rest = model_output[: spans[0][0]]
        rest = rest.replace("```json", "").replace("```", "").strip()
        return ExtractedToolCallInformation(tools_called=True, tool_calls=calls, content=rest or None)


def _is_call(item: Any, names: set[str]) -> bool:
    if not isinstance(item, dict) or not isinstance(item.get("name"), str) or item["name"] not in names:
        return False
    args = item.get("arguments", item.get("parameters"))
    return args is None or isinstance(args, dict)
