"""`ToolSource`: the seam between an agent and its tools, and the records that cross it.

A tool source is an async context manager with two methods: `list_tools()` (the tools
listed when it was entered) and `call_tool(name, arguments)` (which never raises for a
failed call: the failure is a `ToolResult` with `ok=False`). `McpTools` is the source over
one MCP server; `CombinedTools`, `FilteredTools`, `TimeLimitedTools` and `RecordedTools`
each wrap any source and add one behaviour; `Toolbox` composes them.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from contextlib import AsyncExitStack
from typing import Any, Literal, Protocol, Self, runtime_checkable

from pydantic import BaseModel, Field

__all__ = ["ErrorKind", "ToolInfo", "ToolResult", "ToolSource", "WrapperTools", "unknown_tool"]

ErrorKind = Literal["tool_error", "timeout", "transport", "protocol", "unknown_tool", "bad_arguments"]


class ToolInfo(BaseModel):
    """A tool as the model sees it, and where it lives."""

    name: str = Field(description="Exposed name (prefixed `<server>__<tool>` when names collide across servers).")
    server: str = Field(description="Name of the server providing it.")
    tool: str = Field(description="The tool's name on its server.")
    description: str = ""
    input_schema: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})

    def to_openai(self) -> dict[str, Any]:
        """The OpenAI `tools[]` item for this tool."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.input_schema},
        }


class ToolResult(BaseModel):
    """The outcome of one tool call."""

    ok: bool = Field(description="True when the tool ran and did not report an error.")
    text: str = Field(default="", description="Text of the result (or of the error), as the model will read it.")
    structured: dict[str, Any] | list[Any] | None = Field(default=None, description="Structured content, if any.")
    error: str | None = Field(default=None, description="What went wrong, when not ok.")
    error_kind: ErrorKind | None = Field(default=None, description="Class of failure, when not ok.")
    latency_s: float = Field(default=0.0, description="Wall time of the call, reconnection included.")
    server: str | None = Field(default=None, description="Server that handled the call (None for unknown tools).")
    tool: str = Field(description="Tool name on its server (or the unknown name asked for).")

    def observation(self) -> str:
        """The text to send back to the model as the tool message."""
        if self.ok:
            return self.text
        return f"Error: {self.error or self.text}"


@runtime_checkable
class ToolSource(Protocol):
    """Tools an agent can list and call; open it with `async with` before either.

    Both methods raise `UserError` outside `async with`. `call_tool` never raises for a
    failure of the call itself (unknown tool, bad arguments, tool error, timeout, lost
    connection): that is a `ToolResult` with `ok=False`.
    """

    async def __aenter__(self) -> Self: ...

    async def __aexit__(self, *exc_info: Any) -> None: ...

    def list_tools(self) -> list[ToolInfo]:
        """The tools offered, as listed when the source was entered."""
        ...

    async def call_tool(self, name: str, arguments: Mapping[str, Any], *, timeout_s: float | None = None) -> ToolResult:
        """Call the tool exposed as `name`; `timeout_s` overrides the source's default limit."""
        ...


def unknown_tool(name: str, available: Collection[str]) -> ToolResult:
    """The result of calling a tool that is not offered, naming the ones that are."""
    listed = ", ".join(sorted(available)) or "(none)"
    return ToolResult(ok=False, error=f"unknown tool {name!r}; available tools: {listed}", error_kind="unknown_tool", tool=name)


class WrapperTools:
    """A tool source that delegates to the one it wraps; wrappers override what they change.

    Entering it enters the wrapped source (with `async with`, through an exit stack), so a
    chain of wrappers opens and closes as one.
    """

    def __init__(self, wrapped: ToolSource) -> None:
        self.wrapped = wrapped
        self._stack: AsyncExitStack | None = None

    async def __aenter__(self) -> Self:
        stack = AsyncExitStack()
        await stack.enter_async_context(self.wrapped)
        self._stack = stack
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        stack, self._stack = self._stack, None
        if stack is not None:
            await stack.aclose()

    def list_tools(self) -> list[ToolInfo]:
        """The wrapped source's tools."""
        return self.wrapped.list_tools()

    async def call_tool(self, name: str, arguments: Mapping[str, Any], *, timeout_s: float | None = None) -> ToolResult:
        """Call the wrapped source's tool."""
        return await self.wrapped.call_tool(name, arguments, timeout_s=timeout_s)
