"""`CombinedTools`: several tool sources as one, a colliding name prefixed with its server's name."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AsyncExitStack
from typing import Any, Self

import anyio
from anyio.abc import TaskGroup, TaskStatus

from agent_sdk._tool_source import ToolInfo, ToolResult, ToolSource, unknown_tool
from agent_sdk.exceptions import ToolboxError, UserError

__all__ = ["CombinedTools"]


class CombinedTools:
    """The tools of several sources, entered concurrently and offered as one source.

    A name that more than one source offers is exposed as `<server>__<name>` for each of
    them (`ToolInfo.server` gives the prefix); every other name is kept. The names are fixed
    when the sources are entered, so they are stable for the whole episode.

    Each source is entered and left in a task of its own (an MCP session opens task groups
    that must be exited by the task that entered them), so connecting to many servers takes
    as long as the slowest one.

    Raises:
        UserError: when given no source.
    """

    def __init__(self, sources: Sequence[ToolSource]) -> None:
        if not sources:
            raise UserError("CombinedTools needs at least one tool source")
        self.sources = list(sources)
        self._routes: dict[str, tuple[ToolInfo, ToolSource, str]] | None = None
        self._stack: AsyncExitStack | None = None

    async def __aenter__(self) -> Self:
        if self._stack is not None:
            raise UserError("this CombinedTools is already open; use one per concurrent episode")
        stack = AsyncExitStack()
        try:
            tg = await stack.enter_async_context(anyio.create_task_group())
            leaving = anyio.Event()
            stack.callback(leaving.set)  # runs first on exit: every holder leaves its source
            await _enter_all(tg, self.sources, leaving)
        except BaseException:
            await stack.aclose()
            raise
        self._stack = stack
        self._routes = _routes(self.sources)
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        stack, self._stack = self._stack, None
        self._routes = None
        if stack is not None:
            await stack.aclose()

    def list_tools(self) -> list[ToolInfo]:
        """Every source's tools, in source order then listing order.

        Raises:
            UserError: outside `async with`.
        """
        return [info for info, _, _ in self._open_routes().values()]

    async def call_tool(self, name: str, arguments: Mapping[str, Any], *, timeout_s: float | None = None) -> ToolResult:
        """Call the tool exposed as `name` on the source that offers it.

        Raises:
            UserError: outside `async with`.
        """
        routes = self._open_routes()
        route = routes.get(name)
        if route is None:
            return unknown_tool(name, routes)
        _, source, inner = route
        return await source.call_tool(inner, arguments, timeout_s=timeout_s)

    def _open_routes(self) -> dict[str, tuple[ToolInfo, ToolSource, str]]:
        if self._routes is None:
            raise UserError("CombinedTools is not open: use `async with`")
        return self._routes


async def _enter_all(tg: TaskGroup, sources: Sequence[ToolSource], leaving: anyio.Event) -> None:
    """Enter every source concurrently, each held open by a task of `tg` until `leaving` is set.

    Raises:
        ToolboxError: joining the errors when every failure was a `ToolboxError`.
        BaseExceptionGroup: otherwise.
    """

    async def hold(source: ToolSource, *, task_status: TaskStatus[None]) -> None:
        async with source:
            task_status.started()
            await leaving.wait()

    async def enter(source: ToolSource) -> None:
        await tg.start(hold, source)

    try:
        async with anyio.create_task_group() as starters:
            for source in sources:
                starters.start_soon(enter, source)
    except BaseExceptionGroup as group:
        errors = [e for e in group.exceptions if isinstance(e, ToolboxError)]
        if len(errors) != len(group.exceptions):
            raise
        raise ToolboxError("; ".join(str(e) for e in errors)) from errors[0]


def _routes(sources: Sequence[ToolSource]) -> dict[str, tuple[ToolInfo, ToolSource, str]]:
    """Exposed name -> (its ToolInfo, the source offering it, the source's name for it)."""
    listed = [(source, source.list_tools()) for source in sources]
    counts: dict[str, int] = {}
    for _, tools in listed:
        for info in tools:
            counts[info.name] = counts.get(info.name, 0) + 1
    routes: dict[str, tuple[ToolInfo, ToolSource, str]] = {}
    for source, tools in listed:
        for info in tools:
            name = f"{info.server}__{info.name}" if counts[info.name] > 1 else info.name
            routes[name] = (info.model_copy(update={"name": name}), source, info.name)
    return routes
