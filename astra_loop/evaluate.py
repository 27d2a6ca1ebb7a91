"""Before/after evaluation: a model as an MCP agent on every environment of a directory.

The same episode as `astra demo`: an in-process arena serves the environments and an
`agent_sdk.Agent` plays each task over its MCP session. The protocol (`EvalProtocol`) plays k
episodes per environment on a fixed list of seeds, sampled at the paper's agentic-eval settings
(temperature 0.6, top-p 0.95), so every model plays the same seeds and two evaluations pair up
episode by episode. Each episode is scored on F1 (`rl.f1_reward`), subtask recall, answer
correctness (`rl.answer_correctness`: the share of the answer's values the final message states),
tool calls, turns and stop reason; `summary` gives each metric's mean with its 95% bootstrap
interval (`astra_loop.intervals`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from pydantic import BaseModel, ConfigDict, Field, computed_field

from astra_loop.exceptions import LoopConfigError
from astra_loop.intervals import Interval, bootstrap_interval, paired_interval

if TYPE_CHECKING:
    from agent_sdk import Trajectory
    from mcp_servers import Environment, Sandbox

METRICS = ("reward", "recall", "answer_correct", "c")
"""The per-episode metrics an evaluation summarizes: F1, subtask recall, answer correctness, tool calls."""


class EvalProtocol(BaseModel):
    """How an evaluation plays: k seeded episodes per environment at one sampling setting."""

    model_config = ConfigDict(frozen=True)

    episodes: int = Field(default=4, ge=1, description="Episodes per environment (k).")
    temperature: float = Field(default=0.6, ge=0.0, description="Sampling temperature (0: greedy, one episode says it all).")
    top_p: float = Field(default=0.95, gt=0.0, le=1.0)
    first_seed: int = Field(default=1000, description="Episode i of every environment samples with seed first_seed + i.")

    @property
    def seeds(self) -> list[int]:
        """The seed of each episode, the same for every environment and every model."""
        return [self.first_seed + i for i in range(self.episodes)]

    @classmethod
    def greedy(cls) -> EvalProtocol:
        """One greedy episode per environment (the protocol before intervals)."""
        return cls(episodes=1, temperature=0.0, top_p=1.0)


class EpisodeScore(BaseModel):
    """One episode of one environment."""

    env: str = Field(description="The environment's directory name.")
    env_id: str
    seed: int | None = Field(default=None, description="The episode's sampling seed (None: greedy).")
    reward: float
    n: int
    n_hat: int
    recall: float = Field(default=0.0, description="n_hat / n.")
    answer_correct: float = Field(default=0.0, description="Share of the task answer's values the final message states.")
    c: int = Field(description="Tool calls made.")
    turns: int
    stop_reason: str | None = None


class EvalResult(BaseModel):
    """A model's scores on an evaluation set (`eval/<label>.json`)."""

    label: str = Field(description="'base', 'cold_start' or 'trained'.")
    model: str = Field(description="What was evaluated: a target string.")
    fingerprint: str = Field(default="", description="What the model was, exactly (`agent_sdk.model_fingerprint`): a result is reused only for the same one.")
    envs_dir: str
    protocol: EvalProtocol = Field(default_factory=EvalProtocol.greedy)
    distractors: int = Field(default=0, description="Banded distractor tools per band and environment tool offered beside each environment's (0: none).")
    scores: list[EpisodeScore]
    wall_s: float = 0.0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def mean_reward(self) -> float:
        """Mean F1: over each environment's episodes, then over environments."""
        return self.env_means("reward").get("mean", 0.0) if self.scores else 0.0

    def by_env(self, metric: str) -> dict[str, list[float]]:
        """Environment -> its episodes' values of `metric` (one of `METRICS`)."""
        out: dict[str, list[float]] = {}
        for s in self.scores:
            out.setdefault(s.env, []).append(float(getattr(s, metric)))
        return out

    def env_means(self, metric: str) -> dict[str, float]:
        """Each environment's mean of `metric`, and "mean": their mean."""
        means = {env: sum(v) / len(v) for env, v in self.by_env(metric).items()}
        return means | ({"mean": sum(means.values()) / len(means)} if means else {})

    def interval(self, metric: str) -> Interval:
        """The mean of `metric` with its 95% bootstrap interval (environments, then episodes)."""
        return bootstrap_interval(self.by_env(metric))

    def episodes(self, metric: str) -> dict[tuple[str, int], float]:
        """(environment, seed) -> `metric`, for pairing with another evaluation of the same seeds."""
        return {(s.env, s.seed if s.seed is not None else -1): float(getattr(s, metric)) for s in self.scores}


def paired_difference(before: EvalResult, after: EvalResult, metric: str) -> Interval:
    """`after - before` on `metric` over the episodes both played, with its 95% paired interval."""
    return paired_interval(before.episodes(metric), after.episodes(metric))


async def evaluate(
    model: Any, envs_dir: Path, *, label: str, target: str, max_turns: int, concurrency: int, max_tokens: int = 256,
    protocol: EvalProtocol | None = None, fingerprint: str = "", distractors: int = 0, embedder: Any = None,
    envs: Sequence[Environment] | None = None, on_episode: Callable[[EpisodeScore, Trajectory], None] | None = None,
    sandbox: Sandbox | None = None,
) -> EvalResult:
    """Play every environment under `envs_dir` with `model` by `protocol` (default: 4 sampled seeds) and score each episode.

    With `distractors` > 0 each environment is offered, beside its own tools, banded distractors
    drawn from the other evaluation environments (as GRPO's rollouts are, `rl.sample_distractors`
    with that many per band; seed 0, so every model meets the same ones), and calls to them count
    against F1 as in training. `envs` plays those environments (of `envs_dir`, e.g. the ones that
    passed verify) instead of every one found there; `on_episode` sees each scored episode with its
    trajectory as it ends; `sandbox` runs the tool code in a sandbox the caller keeps open (default:
    one from `$ASTRA_SANDBOX` for the evaluation).

    Raises:
        LoopConfigError: when there is no environment to play.
    """
    from agent_sdk import Agent, SamplingSettings, Toolbox
    from mcp_servers import load_envs, serve_arena
    from rl import DistractorConfig, answer_correctness, f1_reward, sample_distractors

    protocol = protocol or EvalProtocol()
    greedy = protocol.temperature == 0.0

    envs = list(envs) if envs is not None else load_envs(envs_dir)
    if not envs:
        raise LoopConfigError(f"{envs_dir}: no environments (*/env.json) to evaluate on")
    offered = (
        sample_distractors(envs, DistractorConfig(mode="banded", per_band=distractors), embedder=embedder) if distractors else {}
    )
    scores: list[EpisodeScore] = []
    started = time.monotonic()
    limiter = anyio.CapacityLimiter(concurrency)
    async with serve_arena(envs, sandbox) as arena:

        async def play(env: Any, seed: int | None) -> None:
            settings = SamplingSettings(temperature=protocol.temperature, top_p=protocol.top_p, seed=seed, max_tokens=max_tokens)
            async with limiter:
                refs = [d.ref for d in offered.get(env.spec.id, [])]
                toolbox = Toolbox(arena.url(env.spec.id, distractors=refs), timeout_s=env.spec.limits.call_timeout_s + 5)
                agent = Agent(model, toolbox, max_turns=max_turns, settings=settings)
                trajectory = await agent.run(env.spec.task.question, metadata={"env_id": env.spec.id, "seed": seed})
            parts = f1_reward(trajectory, env.spec, distractor_names=[r.partition(".")[2] for r in refs])
            score = EpisodeScore(
                env=env.path.name, env_id=env.spec.id, seed=seed, reward=parts.reward, n=parts.n, n_hat=parts.n_hat,
                recall=parts.recall, answer_correct=answer_correctness(trajectory.final_answer, env.spec), c=parts.c,
                turns=trajectory.turns, stop_reason=str(trajectory.stop_reason) if trajectory.stop_reason else None,
            )
            scores.append(score)
            if on_episode is not None:
                on_episode(score, trajectory)

        # greedy decoding plays one episode: more would repeat it
        seeds: list[int | None] = [None] if greedy else list(protocol.seeds)
        async with anyio.create_task_group() as episodes:
            for env in envs:
                for seed in seeds:
                    episodes.start_soon(play, env, seed)
    scores.sort(key=lambda s: (s.env, s.seed if s.seed is not None else -1))
    return EvalResult(
        label=label, model=target, fingerprint=fingerprint, envs_dir=str(envs_dir), protocol=protocol, distractors=distractors, scores=scores,
        wall_s=round(time.monotonic() - started, 1),
    )  # fmt: skip
