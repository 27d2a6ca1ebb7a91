"""World environments GRPO validates on that no stage of the loop trains on.

The served trainer keeps the weights with the best validation F1, so validation has to measure
what training did not see: the training worlds are walked again with another seed, and every
environment whose id or main question a training environment has is dropped. It also has to hold
every scenario: a validation set of single-hop questions alone prefers a policy that calls one tool
and answers, whatever that costs on multi-hop tasks.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from astra_loop.exceptions import StageError

if TYPE_CHECKING:
    from synth.world import World


async def held_out_world_envs(worlds: list[World], train_envs: Path, out: Path, *, wanted: int, seed: int) -> Path:
    """Build `wanted` held-out environments of `worlds` into `out/kept` and return that directory.

    Args:
        worlds: the worlds the training environments were built from.
        train_envs: the training environments (none of their ids or main questions is kept).
        out: where the walk writes (`envs/`, `worlds/`, `stats.json`) and the kept ones go (`kept/`).
        wanted: how many to keep, one world at a time in turn, each turn asking the next scenario.
        seed: the training walk's seed; this walk uses the next one.

    Raises:
        StageError: when every environment the walk wrote is also a training one.
    """
    from mcp_servers import SandboxConfig, load_envs
    from synth.world import WorldSynthConfig, synthesize_from_worlds

    # A world's quota is split over its languages and the four scenarios in turn: 8 reaches all four.
    config = WorldSynthConfig(per_world=max(8, -(-2 * wanted // len(worlds))), seed=seed + 1)
    async with SandboxConfig.from_env().build() as sandbox:
        await synthesize_from_worlds(worlds, out, config, sandbox=sandbox)
    training = load_envs(train_envs)
    seen_ids, seen_questions = {e.spec.id for e in training}, {e.spec.task.question.strip() for e in training}
    by_world: dict[str, dict[str, list[Path]]] = {}
    for env in load_envs(out / "envs"):
        fresh = env.spec.id not in seen_ids and env.spec.task.question.strip() not in seen_questions
        if fresh and env.path is not None:
            world = (env.spec.source.ref or "").split(":", 1)[0]
            by_world.setdefault(world, {}).setdefault(env.spec.task.scenario, []).append(env.path)
    picked = _spread(by_world, wanted, seed)
    if not picked:
        raise StageError(f"no held-out world environment: every one under {out / 'envs'} is also a training one")
    kept = out / "kept"
    shutil.rmtree(kept, ignore_errors=True)
    for path in picked:
        shutil.copytree(path, kept / path.name)
    return kept


def _spread(by_world: dict[str, dict[str, list[Path]]], wanted: int, seed: int) -> list[Path]:
    """Up to `wanted` paths, one world at a time in turn, each turn asking the next scenario in turn.

    A world without the asked scenario gives its next one, so every world and every scenario
    appear as soon as `wanted` allows.
    """
    queues = {
        world: {name: random.Random(f"{seed}:{world}:{name}").sample(paths, len(paths)) for name, paths in sorted(scenarios.items())}
        for world, scenarios in sorted(by_world.items())
    }
    names = sorted({name for scenarios in by_world.values() for name in scenarios})
    picked: list[Path] = []
    turn = 0
    while len(picked) < wanted and any(q for scenarios in queues.values() for q in scenarios.values()):
        for scenarios in queues.values():
            order = names[turn % len(names):] + names[: turn % len(names)]
            queue = next((scenarios[n] for n in order if scenarios.get(n)), None)
            if queue is not None and len(picked) < wanted:
                picked.append(queue.pop(0))
            turn += 1
    return picked
