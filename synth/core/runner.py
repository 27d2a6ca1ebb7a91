"""Run a stage over many records concurrently, with a progress bar, keeping input order.

Records complete in any order (LLM latency varies); `map_ordered` returns results in input
order, and stages append to their stores as records finish so a crash loses nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TypeVar

import anyio
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

__all__ = ["map_ordered", "progress_bar"]

A = TypeVar("A")
R = TypeVar("R")


@contextmanager
def progress_bar(total: int, description: str, *, enabled: bool | None = None) -> Iterator[Callable[[], None]]:
    """A rich progress bar on stderr; yields `advance()`. Disabled when stderr is not a terminal."""
    if enabled is None:
        enabled = sys.stderr.isatty()
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        disable=not enabled,
        transient=False,
    )
    with progress:
        task = progress.add_task(description, total=total)
        yield lambda: progress.advance(task)


async def map_ordered(
    items: Sequence[A],
    fn: Callable[[A], Awaitable[R]],
    *,
    limit: int = 8,
    description: str = "",
    show_progress: bool | None = None,
) -> list[R]:
    """`[await fn(x) for x in items]`, at most `limit` at a time, results in input order.

    An exception from `fn` cancels the others and propagates (a bug, not data): stages turn
    expected failures into rejections themselves, and the stores make the re-run resume.
    """
    results: list[R | None] = [None] * len(items)
    limiter = anyio.CapacityLimiter(max(1, limit))
    with progress_bar(len(items), description or "records", enabled=show_progress) as advance:

        async def one(i: int, item: A) -> None:
            async with limiter:
                results[i] = await fn(item)
            advance()

        async with anyio.create_task_group() as tg:
            for i, item in enumerate(items):
                tg.start_soon(one, i, item)
    return results  # type: ignore[return-value]
