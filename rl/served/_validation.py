"""The validation curve of served GRPO: the held-out split played with the evaluation's protocol.

`rl.prepare` splits the environments into train and val; GRPO never trains on val. Every
`val_every` steps (and before the first, and after the last) the current policy plays each
val task `val_episodes` times on fixed seeds at the evaluation's sampling settings (temperature
0.6, top-p 0.95: `astra_loop.EvalProtocol`), so successive points differ by the weights only.
Each point records F1, subtask recall and answer correctness: a policy that learns to call
fewer tools shows a rising training reward beside a falling recall here.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import anyio
from pydantic import BaseModel, Field

from agent_sdk import ChatModel, SamplingSettings
from rl.datasets import RlTask
from rl.reward import answer_correctness
from rl.served._rollouts import Rollout, RolloutSettings, play_episode

VAL_TEMPERATURE, VAL_TOP_P, VAL_FIRST_SEED = 0.6, 0.95, 1000
"""The evaluation's sampling settings and first seed (`astra_loop.EvalProtocol`'s defaults)."""


class ValidationRecord(BaseModel):
    """One point of the validation curve (a line of `validation.jsonl`)."""

    step: int = Field(description="Optimizer steps the played weights had taken (0: the starting policy).")
    tasks: int
    episodes: int
    reward: float = Field(description="Mean F1 over the episodes.")
    recall: float = Field(description="Mean subtask recall (n_hat / n).")
    answer_correct: float = Field(description="Mean share of each task answer's values the final message states.")
    tool_calls: int
    wall_s: float


def mean_or_zero(values: Sequence[float]) -> float:
    """The mean of `values`, 0 for none (a step or a validation point that played nothing)."""
    return sum(values) / len(values) if values else 0.0


async def play_validation(
    model: ChatModel, arena_url: str, tasks: Sequence[RlTask], *, step: int, episodes: int, settings: RolloutSettings
) -> ValidationRecord:
    """Play every val task `episodes` times (seeds `VAL_FIRST_SEED + i`) and summarize the episodes."""
    started = time.monotonic()
    played: list[tuple[RlTask, Rollout]] = []

    async def play(task: RlTask, seed: int) -> None:
        sampling = SamplingSettings(temperature=VAL_TEMPERATURE, top_p=VAL_TOP_P, seed=seed, max_tokens=settings.max_tokens)
        played.append((task, await play_episode(model, arena_url, task, sampling, settings)))

    async with anyio.create_task_group() as tg:
        for task in tasks:
            for i in range(episodes):
                tg.start_soon(play, task, VAL_FIRST_SEED + i)
    return ValidationRecord(
        step=step, tasks=len(tasks), episodes=len(played), reward=mean_or_zero([r.reward.reward for _, r in played]),
        recall=mean_or_zero([r.reward.recall for _, r in played]),
        answer_correct=mean_or_zero([answer_correctness(r.trajectory.final_answer, t.spec) for t, r in played]),
        tool_calls=sum(r.reward.c for _, r in played), wall_s=round(time.monotonic() - started, 1),
    )  # fmt: skip
