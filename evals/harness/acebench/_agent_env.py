"""One ACEBench agent entry's scenario instances behind a low-level MCP server.

The server lists the entry's function docs (as JSON Schema) and runs each call on the
scenario instance that owns the function; every call is logged with its outcome, which is
what process accuracy is measured on, and `end_state` is what the end-state check compares
with the gold classes.
"""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext

from harness._schema import doc_to_schema
from harness.acebench._data import AceEntry
from harness.acebench._phone import BaseApi, FoodPlatform, MessageApi, ReminderApi
from harness.acebench._scenario import Scenario, ScenarioError
from harness.acebench._travel import Travel

__all__ = ["AgentEpisode", "ExecutedCall", "canonical_class"]

_PHONE = ("BaseApi", "MessageApi", "ReminderApi", "FoodPlatform")
# The gold end states spell some class names differently ("ReminderAPI", "Reminderpi", "BaseAPI").
_ALIASES = {"baseapi": "BaseApi", "messageapi": "MessageApi", "reminderapi": "ReminderApi", "reminderpi": "ReminderApi",
            "foodplatform": "FoodPlatform", "travel": "Travel"}


def canonical_class(name: str) -> str:
    """The scenario class a (possibly misspelled) class name in the data means.

    Raises:
        ValueError: for a name no scenario class answers to.
    """
    canonical = _ALIASES.get(name.lower())
    if canonical is None:
        raise ValueError(f"unknown ACEBench scenario class {name!r}")
    return canonical


@dataclass(frozen=True, kw_only=True)
class ExecutedCall:
    """A call that reached a scenario, with its outcome."""

    name: str
    arguments: dict[str, Any]
    ok: bool
    result: str


def _build(classes: set[str]) -> dict[str, Scenario]:
    if classes & set(_PHONE):
        device = BaseApi()
        instances: dict[str, Scenario] = {"BaseApi": device, "MessageApi": MessageApi(device),
                                          "ReminderApi": ReminderApi(device), "FoodPlatform": FoodPlatform(device)}
    else:
        instances = {}
    if "Travel" in classes:
        instances["Travel"] = Travel()
    return instances


class AgentEpisode:
    """Fresh scenario state for one entry (its `initial_config` applied) and its MCP server.

    The phone apps share one device, so an entry involving any of them gets all four (its
    function list documents all of them).

    Raises:
        ValueError: for an involved class, or a documented function, no scenario provides.
    """

    def __init__(self, entry: AceEntry) -> None:
        self.entry = entry
        classes = {canonical_class(c) for c in entry.involved_classes}
        self.instances = _build(classes | {canonical_class(c) for c in entry.initial_config})
        for name, overrides in entry.initial_config.items():
            self.instances[canonical_class(name)].load(overrides)
        self._methods: dict[str, Any] = {}
        for doc in entry.functions:
            owner = next((i for i in self.instances.values() if callable(getattr(i, doc["name"], None))), None)
            if owner is None:
                raise ValueError(f"{entry.id}: no scenario class provides {doc['name']!r}")
            self._methods[doc["name"]] = getattr(owner, doc["name"])
        self.calls: list[ExecutedCall] = []
        self.server: Server[Any] = Server(f"acebench-{entry.id}", version="1", on_list_tools=self._list_tools,
                                          on_call_tool=self._call_tool)

    def end_state(self) -> dict[str, dict[str, Any]]:
        """Every scenario instance's compared attributes, by class name."""
        return {name: instance.state() for name, instance in self.instances.items()}

    def execute(self, name: str, arguments: dict[str, Any]) -> tuple[bool, str]:
        """Run one call; returns (ok, result text) and logs it."""
        method = self._methods.get(name)
        if method is None:
            ok, text = False, f"Unknown function {name!r}; available: {', '.join(self._methods)}"
        else:
            try:
                inspect.signature(method).bind(**arguments)
            except TypeError as exc:
                ok, text = False, f"Invalid arguments for {name}: {exc}"
            else:
                try:
                    ok, text = True, json.dumps(method(**arguments), ensure_ascii=False)
                except ScenarioError as exc:
                    ok, text = False, json.dumps({"status": False, "message": str(exc)}, ensure_ascii=False)
                except Exception as exc:  # noqa: BLE001 — a wrongly typed argument is an observation, as in BFCL
                    ok, text = False, f"Error during execution of {name}: {type(exc).__name__}: {exc}"
        self.calls.append(ExecutedCall(name=name, arguments=dict(arguments), ok=ok, result=text))
        return ok, text

    def _schema(self, doc: dict[str, Any]) -> dict[str, Any]:
        schema = doc_to_schema(doc.get("parameters") or {"type": "dict", "properties": {}})
        schema["type"] = "object"
        properties = schema.setdefault("properties", {})
        # reserve_flight requires `payment_methods` but documents `payment_method`: require what is documented.
        schema["required"] = [p for p in schema.get("required", []) if p in properties]
        return schema

    async def _list_tools(self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[
            types.Tool(name=doc["name"], description=doc.get("description", ""), input_schema=self._schema(doc))
            for doc in self.entry.functions
        ])

    async def _call_tool(self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        ok, text = self.execute(params.name, dict(params.arguments or {}))
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=not ok)
