"""One parse path from raw text to calls: every reader of a model reply gets the same calls.

`data/model_replies.jsonl` holds replies in the shapes Qwen2.5-Coder writes (`<tool_call>`
blocks, several calls, ```json fences, bare objects, doubled braces (the teacher wrote them in 13
of 207 rejected SFT rollouts; opened doubled and closed single, and calls with `//` comments or the name under
"function", in 3 of 13 unread teacher rollouts), `parameters` for `arguments`, JSON answers
that name no tool, argument text that needs repair, text around the calls), transcribed from
what the embedded models wrote in earlier tests and runs. Each line pins the calls, the content
left over and the repairs `parse_tool_calls` makes, and whether a server hands the calls on as
`tool_calls` or as text (`structured_calls`). The readers checked against it: `parse_tool_calls`
(what the local backend runs), `OpenAIChatModel` reading what a vLLM server with the project's
plugin sends, that plugin itself inside vLLM's environment, and veRL's `AstraToolParser`
(tests/rl/test_verl_tool_parser.py).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent_sdk import ChatMessage, OpenAIChatModel, parse_tool_calls
from agent_sdk._tool_parsing import ParsedCalls, arguments_text, structured_calls

pytestmark = pytest.mark.anyio

REPLIES_FILE = Path(__file__).parent / "data" / "model_replies.jsonl"
REPLIES = [json.loads(line) for line in REPLIES_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]
SHAPES = [r["shape"] for r in REPLIES]
SDK = Path(__file__).resolve().parents[2] / "agent_sdk"


def tool_schemas(names: list[str]) -> list[dict[str, Any]]:
    return [
        {"type": "function", "function": {"name": n, "description": n, "parameters": {"type": "object", "properties": {}}}}
        for n in names
    ]


def reading(parsed: ParsedCalls) -> dict[str, Any]:
    """What a reader makes of a reply, call ids aside."""
    return {
        "calls": [[c.name, c.arguments] for c in parsed.calls],
        "content": parsed.content_without_calls,
        "repairs": [[r.tool, r.fixes, r.ok] for r in parsed.repairs],
    }


def served_message(reply: dict[str, Any]) -> dict[str, Any]:
    """The chat-completions message vLLM sends for `reply` with the plugin as its tool-call parser.

    vLLM puts the parser's calls in `tool_calls` and its content (None when blank) in `content`;
    when the parser found no calls the content is the text as generated.
    """
    parsed = structured_calls(reply["text"], known_tools=set(reply["tools"]))
    if parsed is None:
        return {"role": "assistant", "content": reply["text"], "tool_calls": []}
    calls = [
        {"id": f"chatcmpl-tool-{i}", "type": "function", "function": {"name": c.name, "arguments": arguments_text(c)}}
        for i, c in enumerate(parsed.calls)
    ]
    return {"role": "assistant", "content": parsed.content_without_calls, "tool_calls": calls}


def test_the_replies_cover_the_shapes_the_models_write():
    assert len(SHAPES) == len(set(SHAPES)) >= 20
    assert {r["server"] for r in REPLIES} == {"tool_calls", "text"}
    assert any(len(r["calls"]) > 1 for r in REPLIES) and any(not r["calls"] for r in REPLIES)
    assert any(r["repairs"] for r in REPLIES if r["server"] == "tool_calls")  # repairs the argument text carries
    assert any(r["repairs"] for r in REPLIES if r["server"] == "text")  # repairs made on the whole call


@pytest.mark.parametrize("reply", REPLIES, ids=SHAPES)
def test_parse_tool_calls_reads_each_reply_as_pinned(reply):
    parsed = parse_tool_calls(reply["text"], None, known_tools=set(reply["tools"]))
    assert reading(parsed) == {k: reply[k] for k in ("calls", "content", "repairs")}
    assert len({c.id for c in parsed.calls}) == len(parsed.calls)
    server = structured_calls(reply["text"], known_tools=set(reply["tools"]))
    assert ("text" if server is None else "tool_calls") == reply["server"]


@pytest.mark.parametrize("reply", REPLIES, ids=SHAPES)
async def test_the_openai_client_reads_the_served_reply_as_the_text(reply):
    message = served_message(reply)

    def answer(request: httpx.Request) -> httpx.Response:
        finish = "tool_calls" if message["tool_calls"] else "stop"
        body = {"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": message, "finish_reason": finish}]}
        return httpx.Response(200, json=body)

    async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as client:
        model = OpenAIChatModel("m", base_url="http://llm.test/v1", http_client=client)
        response = await model.complete([ChatMessage(role="user", content="hi")], tool_schemas(reply["tools"]))
    text = parse_tool_calls(reply["text"], None, known_tools=set(reply["tools"]))
    calls = response.message.tool_calls
    client = ParsedCalls(calls=calls, content_without_calls=response.message.content, repairs=response.repairs)
    assert reading(client) == reading(text)
    assert [c.raw_arguments for c in calls] == [c.raw_arguments for c in text.calls]  # as the model wrote them
    assert {r.call_id for r in response.repairs} <= {c.id for c in calls}


PLUGIN_RUN = """
import json, sys
from transformers import AutoTokenizer
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
from vllm.tool_parsers.abstract_tool_parser import ToolParserManager

plugin, tokenizer_dir, replies = sys.argv[1:4]
ToolParserManager.import_tool_parser(plugin)
parser = ToolParserManager.get_tool_parser("hermes_json")(AutoTokenizer.from_pretrained(tokenizer_dir))
out = []
for reply in json.loads(replies):
    request = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}], tools=reply["tools"])
    info = parser.extract_tool_calls(reply["text"], request)
    calls = [[c.function.name, c.function.arguments] for c in info.tool_calls]
    out.append({"called": info.tools_called, "content": info.content, "calls": calls})
print(json.dumps({"project_package_stubbed": not hasattr(sys.modules["agent_sdk"], "__file__"), "replies": out}))
"""


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_vllm_plugin_hands_on_what_structured_calls_gives():
    from agent_sdk import STUDENT, cache_dir
    from agent_sdk._serve import _TOOL_PARSER_PLUGIN, DEFAULT_VLLM_PYTHON, find_vllm_python

    python = find_vllm_python()
    if python is None:
        pytest.skip(f"vLLM is not installed (no {DEFAULT_VLLM_PYTHON}; run scripts/install_vllm.sh)")
    tokenizer_dir = cache_dir() / "models" / STUDENT.dir_name
    if not (tokenizer_dir / "tokenizer.json").is_file():
        pytest.skip(f"the embedded student is not unpacked at {tokenizer_dir} (embedded_model_dir() builds it)")
    replies = json.dumps([{"text": r["text"], "tools": tool_schemas(r["tools"])} for r in REPLIES])
    command = [str(python), "-c", PLUGIN_RUN, str(_TOOL_PARSER_PLUGIN), str(tokenizer_dir), replies]
    done = subprocess.run(command, capture_output=True, text=True, timeout=500)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["project_package_stubbed"]  # the plugin ran without importing agent_sdk/__init__
    for reply, plugin in zip(REPLIES, result["replies"], strict=True):
        message = served_message(reply)
        expected = {
            "called": bool(message["tool_calls"]),
            "content": message["content"],
            "calls": [[c["function"]["name"], c["function"]["arguments"]] for c in message["tool_calls"]],
        }
        assert plugin == expected, reply["shape"]


PLUGIN_MODULES = ("_tool_parsing.py", "_json_repair.py", "_messages.py")


def test_the_modules_the_plugin_loads_import_only_stdlib_and_pydantic():
    allowed = {"agent_sdk._json_repair", "agent_sdk._messages", "pydantic", "__future__"}
    for name in PLUGIN_MODULES:
        tree = ast.parse((SDK / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
            else:
                continue
            for module in modules:
                assert module in allowed or module.split(".")[0] in sys.stdlib_module_names, f"{name} imports {module}"
