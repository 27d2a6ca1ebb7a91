"""Worlds for a list of domains: one proposal per domain, world files written, resumable.

`propose_worlds` asks the model for each domain not yet in `OUT/proposals.jsonl` (the log of what
each domain gave, with its calls, tokens and seconds), writes every accepted world to
`OUT/<name>.json` (names made unique), and returns the results in the domains' order.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import anyio

from synth.core import LLMCache, MeteredModel
from synth.world._domain import DomainResult, propose_world

__all__ = ["propose_worlds"]


async def propose_worlds(model: object, domains: list[str], out: Path, *, concurrency: int = 2,
                         on_result: Callable[[DomainResult], None] | None = None) -> list[DomainResult]:  # fmt: skip
    """Propose and check a world per domain; domains already logged in `out` are not asked again.

    Args:
        model: a `ChatModel` (its replies are cached under `out/cache`).
        domains: the domains in words.
        out: the folder of world files, `proposals.jsonl` and the cache.
        concurrency: requests in flight.
        on_result: called with each new result as it lands (progress).
    """
    out.mkdir(parents=True, exist_ok=True)
    log = out / "proposals.jsonl"
    logged = [DomainResult.model_validate_json(line) for line in log.read_text(encoding="utf-8").splitlines()] if log.is_file() else []
    results: dict[str, DomainResult] = {}
    for r in logged:
        if r.domain in domains:
            results[r.domain] = r
    names = {json.loads(p.read_text(encoding="utf-8"))["name"] for p in out.glob("*.json")}
    metered = MeteredModel(model, cache=LLMCache(out / "cache"), max_concurrency=concurrency)  # type: ignore[arg-type]
    limiter = anyio.CapacityLimiter(concurrency)

    async def one(domain: str) -> None:
        async with limiter:
            result = await propose_world(metered, domain)
        if result.world is not None:
            base, name, n = result.world.name, result.world.name, 2
            while name in names:
                name, n = f"{base[:36]}_{n}", n + 1
            names.add(name)
            result = result.model_copy(update={"world": result.world.model_copy(update={"name": name})})
            (out / f"{name}.json").write_text(result.world.model_dump_json(indent=2, exclude_none=True) + "\n", encoding="utf-8")
        results[domain] = result
        with log.open("a", encoding="utf-8") as fh:
            fh.write(result.model_dump_json() + "\n")
        if on_result is not None:
            on_result(result)

    async with anyio.create_task_group() as tg:
        for domain in domains:
            if domain not in results:
                tg.start_soon(one, domain)
    return [results[d] for d in domains]
