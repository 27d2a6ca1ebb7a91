"""World environments GRPO validates on that no stage of the loop trains on.

The served trainer keeps the weights with the best validation F1, so validation has to measure
what training did not see: the training worlds are walked again with another seed, and every
environment whose id or main question a training environment has is dropped.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

from astra_loop.exceptions import StageError


async def held_out_world_envs(worlds: list[Any], train_envs: Path, out: Path, *, wanted: int, seed: int) -> Path:
    """Build `wanted` held-out environments of `worlds` into `out/kept` and return that directory.

    Args:
        worlds: the worlds the training environments were built from (`synth.world.World`).
        train_envs: the training environments (none of their ids or main questions is kept).
        out: where the walk writes (`envs/`, `worlds/`, `stats.json`) and the kept ones go (`kept/`).
        wanted: how many to keep, taken round-robin over the worlds (shuffled within one).
        seed: the training walk's seed; this walk uses the next one.

    Raises:
        StageError: when every environment the walk wrote is also a training one.
    """
    from mcp_servers import SandboxConfig, load_envs
    from synth.world import WorldSynthConfig, synthesize_from_worlds

    config = WorldSynthConfig(per_world=-(-2 * wanted // len(worlds)), seed=seed + 1)
    async with SandboxConfig.from_env().build() as sandbox:
        await synthesize_from_worlds(worlds, out, config, sandbox=sandbox)
    training = load_envs(train_envs)
    seen_ids, seen_questions = {e.spec.id for e in training}, {e.spec.task.question.strip() for e in training}
    by_world: dict[str, list[Path]] = {}
    for env in load_envs(out / "envs"):
        fresh = env.spec.id not in seen_ids and env.spec.task.question.strip() not in seen_questions
        if fresh and env.path is not None:
            by_world.setdefault((env.spec.source.ref or "").split(":", 1)[0], []).append(env.path)
    # Shuffled within a world so the first rounds are not all one scenario (walks are written by scenario).
    queues = [random.Random(f"{seed}:{name}").sample(by_world[name], len(by_world[name])) for name in sorted(by_world)]
    picked = [q[i] for i in range(max(map(len, queues), default=0)) for q in queues if i < len(q)][:wanted]
    if not picked:
        raise StageError(f"no held-out world environment: every one under {out / 'envs'} is also a training one")
    kept = out / "kept"
    shutil.rmtree(kept, ignore_errors=True)
    for path in picked:
        shutil.copytree(path, kept / path.name)
    return kept
