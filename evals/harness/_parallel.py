"""Running many episodes at once against one model server, bounded."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

import anyio

__all__ = ["gather_bounded", "play_trials"]

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


async def play_trials(
    entries: Sequence[T], trials: int, play: Callable[[T], Awaitable[R]], *, concurrency: int = 8
) -> list[tuple[T, int, R]]:
    """`play` each entry `trials` times, bounded; (entry, trial, result) in entry-then-trial order."""

    async def run(item: tuple[T, int]) -> tuple[T, int, R]:
        entry, trial = item
        return entry, trial, await play(entry)

    return await gather_bounded([(e, t) for e in entries for t in range(trials)], run, concurrency=concurrency)
