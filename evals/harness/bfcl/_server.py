"""One BFCL entry's executable backends behind a low-level MCP server.

The server of a `BfclEpisode` owns the backend instances of one entry (loaded from the
entry's initial config, long-context variant when the category asks for it), so every episode
is isolated; reconnecting to the same episode keeps its state, which lets a driver re-list
tools after a miss_func reveal. Calls run on the instances exactly as bfcl-eval runs them
(same result text, same "Error during execution" messages) and every call that reached a
backend is logged as a BFCL call string, which is what bfcl-eval's checker re-executes.
"""

from __future__ import annotations

import ast
import copy
import importlib
import inspect
import json
import keyword
from typing import Any

import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext

from harness._schema import doc_to_schema
from harness.bfcl._data import BfclEntry

__all__ = ["BfclEpisode", "call_string", "doc_to_schema", "parse_call_string"]


def call_string(name: str, arguments: dict[str, Any]) -> str:
    """The call as BFCL writes decoded calls: `name(k=repr(v),...)`.

    Argument names that cannot be Python keywords (a model may write `(required`) go into a
    trailing `**{...}`, so the string still parses, and executing it fails as BFCL's own
    executor fails on such a call: with an unexpected-argument error.
    """
    plain = [f"{k}={v!r}" for k, v in arguments.items() if k.isidentifier() and not keyword.iskeyword(k)]
    odd = {k: v for k, v in arguments.items() if not (k.isidentifier() and not keyword.iskeyword(k))}
    return f"{name}({','.join(plain + ([f'**{odd!r}'] if odd else []))})"


def parse_call_string(call: str) -> tuple[str, list[Any], dict[str, Any]]:
    """Name, positional and keyword literal arguments of a BFCL call string.

    Raises:
        ValueError: when `call` is not a single call with literal arguments.
    """
    try:
        node = ast.parse(call.strip(), mode="eval").body
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            raise ValueError("not a plain function call")
        args = [ast.literal_eval(a) for a in node.args]
        kwargs: dict[str, Any] = {}
        for k in node.keywords:
            value = ast.literal_eval(k.value)
            if k.arg is None and not isinstance(value, dict):
                raise ValueError("** of a non-dict")
            kwargs.update(value if k.arg is None else {k.arg: value})
    except (SyntaxError, ValueError) as exc:
        raise ValueError(f"cannot parse BFCL call {call!r}: {exc}") from exc
    return node.func.id, args, kwargs


def _result_text(value: Any) -> str:
    # Mirrors bfcl-eval's execute_multi_turn_func_call, so the model reads what BFCL would show.
    if type(value) is str:
        return value
    if type(value) is dict:
        try:
            return json.dumps(value)
        except (TypeError, ValueError):
            return str(value)
    return str(value)


class BfclEpisode:
    """The backends of one BFCL entry, their MCP server and the log of executed calls.

    Args:
        entry: the entry (its docs, initial config and involved classes).
    """

    def __init__(self, entry: BfclEntry) -> None:
        from bfcl_eval.constants.executable_backend_config import CLASS_FILE_PATH_MAPPING, STATELESS_CLASSES

        self.entry = entry
        self.instances: dict[str, Any] = {}
        self._methods: dict[str, Any] = {}
        for class_name in entry.involved_classes:
            cls = getattr(importlib.import_module(CLASS_FILE_PATH_MAPPING[class_name]), class_name)
            instance = cls()
            if class_name not in STATELESS_CLASSES:
                config = copy.deepcopy(entry.initial_config.get(class_name, {}))
                instance._load_scenario(config, long_context=entry.long_context)  # noqa: SLF001 — BFCL's loader
            self.instances[class_name] = instance
            for name, method in inspect.getmembers(instance, predicate=inspect.ismethod):
                if not name.startswith("_"):
                    self._methods[name] = method  # later classes win, as in bfcl-eval
        self._visible: dict[str, dict[str, Any]] = {d["name"]: d for d in entry.function}
        self._documented = set(self._visible) | {d["name"] for docs in entry.missed_function.values() for d in docs}
        self.executed: list[str] = []
        server: Server[Any] = Server(f"bfcl-{entry.id}", version="1", on_list_tools=self._list_tools, on_call_tool=self._call_tool)
        self.server = server

    @property
    def visible_tools(self) -> list[str]:
        """Names of the functions the model can see now."""
        return list(self._visible)

    def reveal(self, turn: int) -> list[str]:
        """Make visible the functions held out until `turn` (miss_func); returns their names."""
        docs = self.entry.missed_function.get(str(turn), [])
        for doc in docs:
            self._visible[doc["name"]] = doc
        return [d["name"] for d in docs]

    def positional_to_keywords(self, name: str, args: list[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
        """Keyword arguments for a call written with positional ones (some ground truth is).

        Raises:
            ValueError: for an unknown function or too many positional arguments.
        """
        method = self._methods.get(name)
        if method is None:
            raise ValueError(f"{self.entry.id}: no backend method {name!r}")
        params = list(inspect.signature(method).parameters)
        if len(args) > len(params):
            raise ValueError(f"{self.entry.id}: {name} takes {len(params)} arguments, got {len(args)} positional")
        return {**dict(zip(params, args)), **kwargs}

    def execute(self, name: str, arguments: dict[str, Any]) -> tuple[bool, str]:
        """Run a documented function on its backend; returns (ok, text) and logs the call.

        Held-out functions are hidden from the listing until revealed but stay callable, as in
        bfcl-eval (its executor runs any backend method a model names; one miss_func ground
        truth, multi_turn_miss_func_49, calls `tail` two turns before it is revealed).
        """
        if name not in self._documented:
            return False, f"Unknown function {name!r}; available: {', '.join(sorted(self._visible))}"
        self.executed.append(call_string(name, arguments))
        try:
            return True, _result_text(self._methods[name](**arguments))
        except Exception as exc:  # noqa: BLE001 — a failing call is an observation, as in BFCL
            return False, f"Error during execution: {exc}"

    async def _list_tools(self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(name=name, description=doc.get("description", ""), input_schema=doc_to_schema(doc["parameters"]))
                for name, doc in self._visible.items()
            ]
        )

    async def _call_tool(self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        ok, text = self.execute(params.name, dict(params.arguments or {}))
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=not ok)
