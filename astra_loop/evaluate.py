"""Before/after evaluation: a model as an MCP agent on every environment of a directory, F1-scored.

The same episode as `astra demo`: an in-process arena serves the environments, an
`agent_sdk.Agent` plays each task once over its MCP session, `rl.f1_reward` scores it.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import anyio
from pydantic import BaseModel, Field, computed_field

from astra_loop.exceptions import LoopConfigError


class EpisodeScore(BaseModel):
    """One environment's episode."""

    env: str = Field(description="The environment's directory name.")
    env_id: str
    reward: float
    n: int
    n_hat: int
    c: int = Field(description="Tool calls made.")
    turns: int
    stop_reason: str | None = None


class EvalResult(BaseModel):
    """A model's scores on an evaluation set (`eval/<label>.json`)."""

    label: str = Field(description="'base' or 'trained'.")
    model: str = Field(description="What was evaluated: a target string.")
    envs_dir: str
    scores: list[EpisodeScore]
    wall_s: float = 0.0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def mean_reward(self) -> float:
        """Mean F1 over the environments."""
        return sum(s.reward for s in self.scores) / len(self.scores) if self.scores else 0.0


async def evaluate(model: Any, envs_dir: Path, *, label: str, target: str, max_turns: int, concurrency: int) -> EvalResult:
    """Play every environment under `envs_dir` once with `model` and score each episode with F1.

    Raises:
        LoopConfigError: when `envs_dir` holds no environment.
    """
    from agent_sdk import Agent, Toolbox
    from mcp_servers import load_envs, serve_arena
    from rl import f1_reward

    envs = load_envs(envs_dir)
    if not envs:
        raise LoopConfigError(f"{envs_dir}: no environments (*/env.json) to evaluate on")
    scores: list[EpisodeScore] = []
    started = time.monotonic()
    limiter = anyio.CapacityLimiter(concurrency)
    async with serve_arena(envs) as arena:

        async def play(env: Any) -> None:
            async with limiter:
                toolbox = Toolbox(arena.url(env.spec.id), timeout_s=env.spec.limits.call_timeout_s + 5)
                trajectory = await Agent(model, toolbox, max_turns=max_turns).run(env.spec.task.question, metadata={"env_id": env.spec.id})
            parts = f1_reward(trajectory, env.spec)
            scores.append(
                EpisodeScore(
                    env=env.path.name, env_id=env.spec.id, reward=parts.reward, n=parts.n, n_hat=parts.n_hat, c=parts.c,
                    turns=trajectory.turns, stop_reason=str(trajectory.stop_reason) if trajectory.stop_reason else None,
                )
            )

        async with anyio.create_task_group() as episodes:
            for env in envs:
                episodes.start_soon(play, env)
    scores.sort(key=lambda s: s.env)
    return EvalResult(label=label, model=target, envs_dir=str(envs_dir), scores=scores, wall_s=round(time.monotonic() - started, 1))
