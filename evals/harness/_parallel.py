"""Running many episodes at once against one model server, bounded."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

import anyio

__all__ = ["gather_bounded"]

T = TypeVar("T")
R = TypeVar("R")


async def gather_bounded(items: Sequence[T], run: Callable[[T], Awaitable[R]], *, concurrency: int = 8) -> list[R]:
    """`run` on every item, at most `concurrency` at a time; results in item order."""
    limiter = anyio.CapacityLimiter(concurrency)
    results: list[R | None] = [None] * len(items)

    async def one(index: int, item: T) -> None:
        async with limiter:
            results[index] = await run(item)

    async with anyio.create_task_group() as tg:
        for index, item in enumerate(items):
            tg.start_soon(one, index, item)
    return [r for r in results if r is not None]
