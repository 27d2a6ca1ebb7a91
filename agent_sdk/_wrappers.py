"""Small wrappers over any `ToolSource`, one behaviour each: filtering, per-tool timeouts, recording."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from fnmatch import fnmatchcase
from typing import Any

from agent_sdk._messages import ArgumentRepair, ToolCall
from agent_sdk._tool_source import ToolInfo, ToolResult, ToolSource, WrapperTools, unknown_tool
from agent_sdk._trajectory import ToolCallRecord

__all__ = ["FilteredTools", "RecordedTools", "TimeLimitedTools"]


class FilteredTools(WrapperTools):
    """Only the tools of `wrapped` that `allow` lets through and `deny` does not hide.

    Patterns are globs (`get_*`) matched against the exposed name, the server-side name and
    `<server>__<tool>`; deny wins over allow. A hidden tool is an unknown tool to the caller.

    Args:
        wrapped: the source to filter.
        allow: if given, only tools matching one of these patterns are offered.
        deny: tools matching any of these patterns are hidden.
    """

    def __init__(self, wrapped: ToolSource, *, allow: Collection[str] | None = None, deny: Collection[str] = ()) -> None:
        super().__init__(wrapped)
        self.allow = list(allow) if allow is not None else None
        self.deny = list(deny)

    def offers(self, info: ToolInfo) -> bool:
        """Whether the filter lets `info` through."""
        keys = (info.name, info.tool, f"{info.server}__{info.tool}")
        if any(fnmatchcase(k, p) for p in self.deny for k in keys):
            return False
        return self.allow is None or any(fnmatchcase(k, p) for p in self.allow for k in keys)

    def list_tools(self) -> list[ToolInfo]:
        """The wrapped source's tools that pass the filter."""
        return [info for info in self.wrapped.list_tools() if self.offers(info)]

    async def call_tool(self, name: str, arguments: Mapping[str, Any], *, timeout_s: float | None = None) -> ToolResult:
        """Call `name` if the filter offers it; otherwise an `unknown_tool` result."""
        offered = [info.name for info in self.list_tools()]
        if name not in offered:
            return unknown_tool(name, offered)
        return await self.wrapped.call_tool(name, arguments, timeout_s=timeout_s)


class TimeLimitedTools(WrapperTools):
    """`wrapped` with a time limit of its own for some tools (the rest keep the source's default).

    Args:
        wrapped: the source whose calls to limit.
        limits: seconds per tool, keyed by exposed name or by server-side name (the exposed
            name wins when both match).
    """

    def __init__(self, wrapped: ToolSource, limits: Mapping[str, float]) -> None:
        super().__init__(wrapped)
        self.limits = dict(limits)

    def timeout_for(self, name: str) -> float | None:
        """The limit for the exposed tool `name`, or None to leave it to the wrapped source."""
        if name in self.limits:
            return self.limits[name]
        for info in self.wrapped.list_tools():
            if info.name == name and info.tool in self.limits:
                return self.limits[info.tool]
        return None

    async def call_tool(self, name: str, arguments: Mapping[str, Any], *, timeout_s: float | None = None) -> ToolResult:
        """Call `name` under its own limit; a `timeout_s` given here still wins."""
        limit = timeout_s if timeout_s is not None else self.timeout_for(name)
        return await self.wrapped.call_tool(name, arguments, timeout_s=limit)


class RecordedTools(WrapperTools):
    """`wrapped`, keeping every call made through it as a `ToolCallRecord` in `records`.

    Records are appended as calls complete, so concurrent calls of one turn appear in the
    order they finished. `call` records a call with its turn and argument repair;
    `call_tool` (the plain `ToolSource` method) records each call as a turn of its own.
    """

    def __init__(self, wrapped: ToolSource) -> None:
        super().__init__(wrapped)
        self.records: list[ToolCallRecord] = []
        """The calls made (and refused, see `record`), in completion order."""

    async def call(
        self, call: ToolCall, *, turn: int, repair: ArgumentRepair | None = None, timeout_s: float | None = None
    ) -> ToolResult:
        """Run `call` on the wrapped source and record it under `turn`."""
        result = await self.wrapped.call_tool(call.name, call.arguments, timeout_s=timeout_s)
        self.record(call, result, turn=turn, repair=repair)
        return result

    def record(self, call: ToolCall, result: ToolResult, *, turn: int, repair: ArgumentRepair | None = None) -> None:
        """Record a call with its result, e.g. one refused before it ran (arguments not parsable)."""
        self.records.append(ToolCallRecord(turn=turn, call=call, result=result, repair=repair))

    async def call_tool(self, name: str, arguments: Mapping[str, Any], *, timeout_s: float | None = None) -> ToolResult:
        """Call `name` and record it as the next turn, with call id `call_<n>`."""
        n = len(self.records)
        return await self.call(ToolCall(id=f"call_{n}", name=name, arguments=dict(arguments)), turn=n + 1, timeout_s=timeout_s)
