"""Adaptive batch filling in veRL 0.9.1: a replay-buffer sampler for the V1 sync trainer.

veRL's own `algorithm.filter_groups` (DAPO) drops only groups whose metric is exactly
constant (no δ) and, in sync mode, discards the surplus. ASTRA keeps groups whose reward std
exceeds δ and carries the surplus to the next step. veRL 0.9.1's extension point for this is
the V1 trainer's replay buffer: `trainer.v1.sampler.custom_sampler.{path,name}` names a
`ReplayBuffer` subclass, built with `sampler_kwargs` and the trainer's `refill_fn`.

`AstraReplayBuffer.sample` runs `rl.batch_filling.BatchFiller` over generation rounds: the
step's first round is the batch the trainer already dispatched; each further round dispatches
another train batch of prompts through `refill_fn`. A round ends when nothing is in flight
(sync mode puts the rollout replicas to sleep after sampling, so nothing may be left
running). Groups are judged by the std of a per-trajectory metric (default `f1_reward` from
`reward_extra_info`); discarded groups are cleared from TransferQueue, kept surplus stays
there for the next step. Kept / discarded / carried counts are returned as
`training/batch_filling/*` metrics, which veRL logs each step.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import transfer_queue as tq
from omegaconf import DictConfig, OmegaConf
from pydantic import BaseModel, Field
from verl.trainer.ppo.v1.replay_buffer import FILTER_GROUPS_REWARD_METRIC, ReplayBuffer

from rl.batch_filling import BatchFiller
from rl.exceptions import TrainingSetupError

logger = logging.getLogger(__name__)

class FillSettings(BaseModel):
    """The sampler's `trainer.v1.sampler.sampler_kwargs`."""

    delta: float = Field(default=0.0, ge=0, description="Keep a group when its metric's std is > delta.")
    max_rounds: int = Field(default=16, ge=1, description="Generation rounds per step before BatchFillingError.")
    metric: str = Field(
        default="f1_reward",
        description="A `reward_extra_info` key per trajectory, or 'reward' for veRL's summed rm_scores.",
    )


@dataclass(frozen=True)
class TrajectoryGroup:
    """One prompt's rollouts in TransferQueue: its uid and each trajectory's metric."""

    uid: str
    rewards: list[float]


def rewards_by_group(keys: Sequence[str], values: Sequence[Any], metric: str) -> dict[str, list[float]]:
    """Per prompt uid, the metric of each of its trajectories.

    Args:
        keys: trajectory keys as veRL stores them, `{uid}_{session_id}_{index}`.
        values: per key, the `extra_fields` veRL stored (a dict, or an object with `.data`) or,
            for metric 'reward', the `rm_scores` tensor (summed).
        metric: a `reward_extra_info` key, or 'reward'.

    Raises:
        KeyError: when a trajectory's `reward_extra_info` lacks the metric (naming key and metric).
    """
    out: dict[str, list[float]] = {}
    for key, value in zip(keys, values, strict=True):
        uid = key.split("_")[0]
        if metric == FILTER_GROUPS_REWARD_METRIC:
            reward = float(value.sum().item())
        else:
            fields = getattr(value, "data", value)
            info = fields.get("reward_extra_info", {}) if isinstance(fields, Mapping) else {}
            if metric not in info:
                raise KeyError(f"trajectory {key}: reward_extra_info has no {metric!r} (batch filling metric)")
            reward = float(info[metric])
        out.setdefault(uid, []).append(reward)
    return out


class AstraReplayBuffer(ReplayBuffer):
    """veRL's sync replay buffer with ASTRA's adaptive batch filling (keep std > δ, carry the surplus).

    Built by veRL's trainer with the custom-sampler constructor contract.

    Raises:
        TrainingSetupError: outside the sync trainer mode, without a refill function, or with bad sampler_kwargs.
    """

    def __init__(
        self,
        trainer_mode: str,
        trainer_config: DictConfig,
        max_off_policy_threshold: int | None,
        max_off_policy_strategy: str,
        sampler_kwargs: DictConfig | Mapping[str, Any] | None,
        refill_fn: Any = None,
        **kwargs: Any,
    ) -> None:
        if trainer_mode != "sync":
            raise TrainingSetupError(f"ASTRA batch filling runs in veRL's sync trainer mode, not {trainer_mode!r}")
        if refill_fn is None:
            raise TrainingSetupError("ASTRA batch filling needs the trainer's refill function")
        raw = OmegaConf.to_container(sampler_kwargs) if isinstance(sampler_kwargs, DictConfig) else dict(sampler_kwargs or {})
        try:
            self.settings = FillSettings.model_validate(raw)
        except ValueError as exc:
            raise TrainingSetupError(f"trainer.v1.sampler.sampler_kwargs: {exc}") from exc
        super().__init__(
            trainer_mode=trainer_mode,
            trainer_config=trainer_config,
            max_off_policy_threshold=max_off_policy_threshold,
            max_off_policy_strategy=max_off_policy_strategy,
            sampler_kwargs=sampler_kwargs,
            refill_fn=refill_fn,
            **kwargs,
        )
        self.filler: BatchFiller[TrajectoryGroup] | None = None

    def sample(self, global_steps: int, partition_id: str, batch_size: int) -> tuple[Any, dict]:
        """The step's batch of `batch_size` groups with reward std > δ (validation: veRL's plain sampling).

        Raises:
            BatchFillingError: when `max_rounds` rounds do not fill the batch.
        """
        if partition_id == "val":
            return super().sample(global_steps, partition_id, batch_size)
        filler = self._filler(batch_size)
        rounds = 0

        def generate_round() -> list[TrajectoryGroup]:
            nonlocal rounds
            if rounds:
                self.refill_fn(batch_size)
            rounds += 1
            return self._finished_round(partition_id, known={g.uid for g in filler.buffer})

        batch, stats = filler.fill(generate_round)
        keep = {g.uid for g in batch} | {g.uid for g in filler.buffer}
        terminal = self.finished_keys[partition_id] | self.failure_keys[partition_id]
        self._clear_groups(partition_id, terminal - keep)  # discarded groups and surplus dropped from the buffer
        metrics = {f"training/{name}": value for name, value in stats.metrics().items()}
        logger.info("step %d batch filling: %s", global_steps, stats.summary())
        selected = [g.uid for g in batch]
        return self._materialize_batch(partition_id, selected, dict(self.partitions[partition_id])), metrics

    def _filler(self, batch_size: int) -> BatchFiller[TrajectoryGroup]:
        if self.filler is None or self.filler.n != batch_size:
            self.filler = BatchFiller(
                n=batch_size, rewards=lambda g: g.rewards, delta=self.settings.delta, max_rounds=self.settings.max_rounds
            )
        return self.filler

    def _finished_round(self, partition_id: str, *, known: set[str]) -> list[TrajectoryGroup]:
        """Wait until no prompt is in flight, then the groups that finished since the buffer was filled."""
        last_debug = time.time()
        while True:
            self._sync_metadata_from_transfer_queue()
            if not self.pending_keys[partition_id] and not self.running_keys[partition_id]:
                break
            last_debug = self._wait_for_next_poll(partition_id, last_debug)
        uids = (self.finished_keys[partition_id] | self.failure_keys[partition_id]) - known
        keys = [key for key in self.partitions[partition_id] if key.split("_")[0] in uids]
        values: list[Any] = []
        if keys:
            field = "rm_scores" if self.settings.metric == FILTER_GROUPS_REWARD_METRIC else "extra_fields"
            values = list(tq.kv_batch_get(keys=keys, partition_id=partition_id, select_fields=[field])[field])
        rewards = rewards_by_group(keys, values, self.settings.metric)
        # Oldest prompts first, as veRL selects them; a group with no trajectory has no rewards (std 0).
        order = sorted(uids, key=lambda uid: (self.prompt_global_steps[partition_id].get(uid, 0), uid))
        return [TrajectoryGroup(uid=uid, rewards=rewards.get(uid, [])) for uid in order]
