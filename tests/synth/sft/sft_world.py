"""The scripted world of the SFT pipeline tests: a reply function answering each kind of pipeline prompt plausibly.

It plays every role the pipeline gives a model — chain proposer, coherence voter, task
writer, augmenter, scorer, emulator backend, agent and judge — recognising the role from the
prompt. Wrapped in `agent_sdk.FunctionModel`, it is the only test double: MCP servers, sandboxes
and files in these tests are real. Importable by subprocess tests (this directory on `sys.path`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from agent_sdk import ChatMessage, FunctionModel, ModelResponse, ToolCall, Usage

_TOOL_LINE = re.compile(r"^- (\w[\w-]*)\(", re.MULTILINE)


def _value(schema: dict[str, Any]) -> Any:
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    return {"integer": 2, "number": 1.5, "boolean": True, "array": [], "object": {}}.get(kind, "Paris")


def _arguments(tool: dict[str, Any]) -> dict[str, Any]:
    params = tool["function"].get("parameters", {})
    props = params.get("properties", {})
    return {name: _value(props.get(name, {})) for name in params.get("required", [])}


def _agent(messages: list[ChatMessage], tools: list[dict[str, Any]]) -> ModelResponse:
    """Calls the tools the rollout's plan hint names, in order (else the first two offered), then answers."""
    done = [m for m in messages if m.role == "tool"]
    hint = re.search(r"answered with these tools(?: in this order)?: ([\w, ]+)\.", messages[0].content or "")
    named = hint.group(1).split(", ") if hint else []
    plan = [t for name in named for t in tools if t["function"]["name"] == name] or tools[:2]
    if len(done) >= len(plan):
        answer = f"Here is what I found: {done[-1].content[:80]}"
        return ModelResponse(message=ChatMessage(role="assistant", content=answer), usage=Usage(requests=1))
    tool = plan[len(done)]
    call = ToolCall(id=f"call_{len(done) + 1}", name=tool["function"]["name"], arguments=_arguments(tool))
    return ModelResponse(message=ChatMessage(role="assistant", content="", tool_calls=[call]), usage=Usage(requests=1))


def world_reply(messages: list[ChatMessage], tools: Any, settings: Any) -> Any:
    """One plausible reply for whichever pipeline role the prompt asks for."""
    if tools:
        return _agent(messages, list(tools))
    system = messages[0].content if messages[0].role == "system" else ""
    prompt = messages[-1].content or ""
    if system and system.startswith("You emulate the backend"):
        tool = re.search(r"Now respond to: (\w+)", prompt).group(1)
        return json.dumps({"tool": tool, "id": f"{tool}-001", "status": "ok", "booking_id": "BK-42", "flight_id": "FL-7"})
    first = messages[0].content or ""
    names = _TOOL_LINE.findall(first)
    if "Propose" in first and "tool names in call order" in first:
        chains = [{"task": f"Use {a} then {b} for my trip", "tools": [a, b]} for a, b in zip(names, names[1:])]
        chains.append({"task": "A longer errand across three tools", "tools": names[:3]})
        return json.dumps({"chains": chains})
    if "Proposed tool chain" in first:
        return json.dumps({"coherent": True, "task": "Plan the trip end to end", "reason": "steps connect"})
    if "Each request must need ALL of these tools" in first:
        return json.dumps({"questions": ["I fly from Paris to Rome on 2025-06-01; please sort out everything for my trip.", "My colleague Anna needs the same arrangement for Berlin on 2025-06-08; her reference is BK-42."]})
    if "Each request must need at least" in first:
        return json.dumps({"tasks": [{"question": "Compare the options for Paris on 2025-06-02 and book the best one for me; my member number is 7781.", "tools": names[:2]}]})
    if first.startswith("Original request:"):
        original = first.split("\n", 1)[0].removeprefix("Original request: ")
        return json.dumps({"question": f"{original} I also need it before noon."})
    if "A user sends this request" in first:
        first = re.search(r"^- (\w+)\(", first, re.MULTILINE).group(1)
        return json.dumps({"reason": "clear", "first_tool": first, "needs_tools": "yes", "clear": "mostly", "realistic": "mostly"})
    if "You check the work of an AI assistant" in first:
        steps = int(re.search(r"\((\d+) tool steps\)", first).group(1))
        return json.dumps(
            {
                "query_understanding": "yes",
                "query_planning": "mostly",
                "tool_response_understanding": ["mostly"] * steps,
                "tool_call_planning": ["mostly"] * steps,
                "conciseness": "mostly",
                "final_answer": "mostly",
                "reason": "reasonable",
            }
        )
    raise AssertionError(f"the scripted world has no answer for: {first[:200]!r}")


def world_model(name: str = "world") -> FunctionModel:
    """A `FunctionModel` answering with `world_reply`."""
    return FunctionModel(world_reply, name=name)


def small_config(**overrides: Any) -> Any:
    """A pipeline configuration small enough for tests (a few chains, one augmentation)."""
    from synth.sft import SftConfig

    fields: dict[str, Any] = {
        "walk": {"chains_per_server": 2, "min_length": 2, "max_length": 3},
        "votes": 1,
        "graph_rounds": 1,
        "tasks_per_chain": 1,
        "server_tasks": 1,
        "augment": ["persona"],
        "concurrency": 3,
        "personas": str(Path(__file__).resolve().parents[3] / "examples" / "personas.jsonl"),
        "rollout": {"plan_hint": True},
    }
    fields.update(overrides)
    return SftConfig.model_validate(fields)


async def assert_example_only_without_schema(stages: list[tuple[Any, Any]]) -> None:
    """Each `(PromptExample, stage)` shows its example (and a "Format" line) to a plain model and hides it from one that enforces the schema."""
    for example, stage in stages:
        for enforced in (False, True):
            model = FunctionModel(lambda *_: "no json", supports_output_schema=enforced)
            await stage(model)
            prompt = model.requests[0].messages[-1].content
            assert (example.text in prompt, "Format" in prompt) == (not enforced, not enforced), "an enforced schema needs no format example"
