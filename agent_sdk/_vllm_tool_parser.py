"""A vLLM tool-parser plugin that parses with the project's own `parse_tool_calls`.

Loaded by the vLLM server process, not by `agent_sdk` (it imports vLLM, which lives in its
own environment): `--tool-parser-plugin <this file> --tool-call-parser hermes_json`.
Qwen2.5-Coder writes its calls as `<tool_call>` blocks, ```json fences or bare JSON objects
(often under `tool_choice="auto"`); vLLM's stock hermes parser reads only the first, so a
client reading `tool_calls` would miss the others, and a client parsing the content itself
would read the same text differently. This parser runs the function every other path runs
(`agent_sdk._tool_parsing.structured_calls`, built on `parse_tool_calls`), so one function
turns raw text into calls wherever the text comes from: fenced and bare JSON count as calls
only when they name one of the request's tools, arguments are handed on as the model wrote
them, and a reply whose calls needed a repair the arguments cannot carry is handed on as
text for the client to parse and record. Streaming keeps the hermes behaviour.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from vllm.entrypoints.generate.base.protocol import ExtractedToolCallInformation, FunctionCall, ToolCall
from vllm.tool_parsers.abstract_tool_parser import ToolParserManager
from vllm.tool_parsers.hermes_tool_parser import Hermes2ProToolParser


def _load_tool_parsing() -> ModuleType:
    """`agent_sdk._tool_parsing`, loaded from this file's directory without running `agent_sdk/__init__`.

    vLLM's environment has pydantic but not the project or its other dependencies; the parsing
    module and the two it imports need only the standard library and pydantic. A bare package
    object stands in for `agent_sdk` so their `agent_sdk._...` imports resolve to this directory.
    """
    if "agent_sdk" not in sys.modules:
        package = ModuleType("agent_sdk")
        package.__path__ = [str(Path(__file__).resolve().parent)]
        sys.modules["agent_sdk"] = package
    return importlib.import_module("agent_sdk._tool_parsing")


_tool_parsing = _load_tool_parsing()


@ToolParserManager.register_module("hermes_json")
class HermesJsonToolParser(Hermes2ProToolParser):
    """Calls as `parse_tool_calls` reads them (tags, fences, bare JSON); hermes streaming."""

    def extract_tool_calls(self, model_output: str, request: Any) -> ExtractedToolCallInformation:
        tools = getattr(request, "tools", None) or []
        names = {tool.function.name for tool in tools if getattr(tool, "function", None)}
        parsed = _tool_parsing.structured_calls(model_output, known_tools=names or None)
        if parsed is None:
            return ExtractedToolCallInformation(tools_called=False, tool_calls=[], content=model_output)
        calls = [
            ToolCall(type="function", function=FunctionCall(name=call.name, arguments=_tool_parsing.arguments_text(call)))
            for call in parsed.calls
        ]
        return ExtractedToolCallInformation(tools_called=True, tool_calls=calls, content=parsed.content_without_calls)
