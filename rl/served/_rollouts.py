"""Rollout groups for served GRPO: one task played `size` times by a served policy over the arena.

Each rollout is an `agent_sdk` episode (the evaluator's own loop) on a fresh arena session
with the task's distractors, scored by the F1 reward from its recorded calls. The group's
rollouts run concurrently, so a vLLM server batches them.
"""

from __future__ import annotations

from collections.abc import Sequence

import anyio
from pydantic import BaseModel, Field

from agent_sdk import Agent, ChatModel, SamplingSettings, Toolbox, Trajectory
from rl._episode import episode_url
from rl.batch_filling import reward_std
from rl.datasets import RlTask
from rl.reward import RewardParts, f1_reward


class Rollout(BaseModel):
    """One episode of a group: its trajectory and F1 reward."""

    trajectory: Trajectory
    reward: RewardParts


def finished(rollout: Rollout) -> bool:
    """Whether the episode ended with a final answer (not at the turn limit, the token budget or a model error)."""
    return rollout.trajectory.stop_reason == "final_answer"


class RolloutGroup(BaseModel):
    """A task's rollouts (a GRPO group) with their group-normalized advantages."""

    task: RlTask
    rollouts: list[Rollout]
    unfinished_scale: float = Field(default=1.0, ge=0, le=1, description="Multiplies the F1 of a rollout without a final answer.")

    @property
    def rewards(self) -> list[float]:
        """The reward GRPO trains on: each rollout's F1, times `unfinished_scale` when it ended without a final answer."""
        return [r.reward.reward * (1.0 if finished(r) else self.unfinished_scale) for r in self.rollouts]

    def advantages(self, eps: float = 1e-6) -> list[float]:
        """GRPO advantages: (reward - group mean) / (group std + eps); all 0 for a constant group."""
        rewards = self.rewards
        mean, std = sum(rewards) / len(rewards), reward_std(rewards)
        return [(r - mean) / (std + eps) if std > 0 else 0.0 for r in rewards]


class RolloutSettings(BaseModel):
    """How a rollout is played."""

    max_turns: int = Field(ge=1, description="Model requests per episode.")
    max_tokens: int = Field(ge=8, description="Reply budget of one model request.")
    temperature: float = Field(default=1.0, gt=0, description="Sampling temperature (GRPO samples at 1.0).")
    call_timeout_s: float = Field(default=30.0, gt=0)
    # An unanswered episode still scores F1 on its calls, so within a group one that keeps calling
    # until the turn limit can outscore one that answers: a scale < 1 makes answering pay.
    unfinished_scale: float = Field(default=1.0, ge=0, le=1, description="Multiplies the trained reward of an episode without a final answer.")


def _split_prompt(task: RlTask) -> tuple[str | None, str]:
    system = next((m["content"] for m in task.prompt if m.get("role") == "system"), None)
    user = [m["content"] for m in task.prompt if m.get("role") == "user"]
    return system, "\n\n".join(user) or task.spec.task.question


async def play_episode(model: ChatModel, arena_url: str, task: RlTask, sampling: SamplingSettings, settings: RolloutSettings) -> Rollout:
    """One episode of `task` on a fresh arena session (with the task's distractors), scored by F1."""
    system, question = _split_prompt(task)
    toolbox = Toolbox(episode_url(arena_url, task), timeout_s=settings.call_timeout_s)
    agent = Agent(model, toolbox, system_prompt=system, max_turns=settings.max_turns, settings=sampling)
    metadata = {"env_id": task.env_id, "distractors": list(task.distractors), "seed": sampling.seed}
    trajectory = await agent.run(question, metadata=metadata)
    return Rollout(trajectory=trajectory, reward=f1_reward(trajectory, task.spec, distractor_names=task.distractor_names))


async def play_group(model: ChatModel, arena_url: str, task: RlTask, size: int, settings: RolloutSettings) -> RolloutGroup:
    """Play `task` `size` times concurrently, each on its own arena session."""
    # the sampled token ids and logprobs are what the update trains on (on-policy)
    sampling = SamplingSettings(temperature=settings.temperature, max_tokens=settings.max_tokens, return_tokens=True)
    rollouts: list[Rollout | None] = [None] * size

    async def play(index: int) -> None:
        rollouts[index] = await play_episode(model, arena_url, task, sampling, settings)

    async with anyio.create_task_group() as tg:
        for index in range(size):
            tg.start_soon(play, index)
    return RolloutGroup(task=task, rollouts=[r for r in rollouts if r is not None], unfinished_scale=settings.unfinished_scale)


async def play_round(model: ChatModel, arena_url: str, tasks: Sequence[RlTask], size: int, settings: RolloutSettings) -> list[RolloutGroup]:
    """One generation round: every task's group, all played at once."""
    groups: list[RolloutGroup | None] = [None] * len(tasks)

    async def play(index: int, task: RlTask) -> None:
        groups[index] = await play_group(model, arena_url, task, size, settings)

    async with anyio.create_task_group() as tg:
        for index, task in enumerate(tasks):
            tg.start_soon(play, index, task)
    return [g for g in groups if g is not None]
