"""Adaptive batch filling inside TRL's GRPOTrainer (imports TRL; loaded only by `train_grpo`).

TRL generates and scores one generation batch per step in `_generate_and_score_completions`
and has no hook to regenerate groups. `BatchFillingGRPOTrainer` overrides that method: the
dataloader's batch is the first generation round; each further round rolls out a fresh
batch of prompts drawn from the training set (its own seeded shuffle). Every round's output
is cut into groups (the `num_generations` consecutive rows of one prompt, as TRL's
`RepeatSampler` orders them), `rl.batch_filling.BatchFiller` keeps those whose reward std
exceeds δ and carries the surplus to the next step, and the kept groups are merged back into
one batch (re-padded, with the loss-token count recomputed). Advantages stay as TRL computed
them within each group. Kept / discarded / carried counts go to TRL's metrics as
`batch_filling/*` (hence to metrics.jsonl) and to the log; TRL's own `reward` and
`frac_reward_zero_std` average over every round of the step, discarded groups included.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from typing import Any

import torch
from trl import GRPOTrainer

from rl.batch_filling import BatchFiller
from rl.exceptions import TrainingSetupError

logger = logging.getLogger(__name__)

# Per-row tensors padded on the left (prompt side) or on the right (completion side), with their pad values.
_PROMPT_SIDE = {"prompt_ids": None, "prompt_mask": 0}
_COMPLETION_SIDE = {
    "completion_ids": None, "completion_mask": 0, "tool_mask": 1, "old_per_token_logps": 0.0,
    "sampling_per_token_logps": 0.0, "ref_per_token_logps": 0.0, "importance_sampling_ratio": 0.0,
}


@dataclass
class RolloutGroup:
    """The rows of one prompt's rollouts, as TRL prepared them for the loss, with their rewards."""

    rewards: list[float]
    rows: dict[str, Any]


class BatchFillingGRPOTrainer(GRPOTrainer):
    """GRPOTrainer that trains only on groups whose reward std exceeds δ, regenerating until the batch is full.

    Args:
        delta: a group is kept when its reward std is > delta.
        max_fill_rounds: generation rounds per step before `BatchFillingError` ends the run.
        *args, **kwargs: GRPOTrainer's.

    Raises:
        TrainingSetupError: with several processes or an iterable (unindexable) training set.
    """

    def __init__(self, *args: Any, delta: float, max_fill_rounds: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.accelerator.num_processes != 1:
            raise TrainingSetupError("adaptive batch filling with TRL runs in one process; use veRL to scale out")
        if not hasattr(self.train_dataset, "__getitem__"):
            raise TrainingSetupError("adaptive batch filling needs an indexable training set to draw refill prompts from")
        self.filler: BatchFiller[RolloutGroup] = BatchFiller(
            n=self.args.generation_batch_size // self.num_generations,
            rewards=lambda group: group.rewards,
            delta=delta,
            max_rounds=max_fill_rounds,
        )
        self._refill_rng = random.Random(self.args.seed + 1)
        self._refill_order: list[int] = []
        self._round_rewards: torch.Tensor | None = None

    def _calculate_rewards(self, inputs: Any, prompts: Any, completions: Any, completion_ids_list: Any) -> torch.Tensor:
        rewards_per_func = super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)
        self._round_rewards = rewards_per_func  # the round's (rows x reward functions), to judge its groups
        return rewards_per_func

    def _generate_and_score_completions(self, inputs: list[dict[str, Any]]) -> dict[str, Any]:
        if not self.model.training:
            return super()._generate_and_score_completions(inputs)
        pending = [inputs]

        def generate_round() -> list[RolloutGroup]:
            rows = pending.pop() if pending else self._fresh_rows()
            output = super(BatchFillingGRPOTrainer, self)._generate_and_score_completions(rows)
            return self._split_groups(output, len(rows))

        groups, stats = self.filler.fill(generate_round)
        for name, value in stats.metrics().items():
            self._metrics["train"][name].append(value)
        logger.info("GRPO step %d batch filling: %s", self.state.global_step + 1, stats.summary())
        return self._merge_groups(groups)

    def _fresh_rows(self) -> list[dict[str, Any]]:
        """One more round of prompts from the training set, each repeated for its group."""
        rows: list[dict[str, Any]] = []
        for _ in range(self.filler.n):
            if not self._refill_order:
                self._refill_order = list(range(len(self.train_dataset)))
                self._refill_rng.shuffle(self._refill_order)
            row = self.train_dataset[self._refill_order.pop()]
            rows += [dict(row) for _ in range(self.num_generations)]
        return rows

    def _split_groups(self, output: dict[str, Any], n_rows: int) -> list[RolloutGroup]:
        assert self._round_rewards is not None
        per_func = self._round_rewards
        rewards = (per_func * self.reward_weights.to(per_func.device).unsqueeze(0)).nansum(dim=1)
        rewards[torch.isnan(per_func).all(dim=1)] = torch.nan  # unscorable rows do not count towards the std
        size = self.num_generations
        groups = []
        for start in range(0, n_rows, size):
            rows = {key: value[start : start + size] for key, value in output.items() if _per_row(value, n_rows)}
            groups.append(RolloutGroup(rewards=rewards[start : start + size].tolist(), rows=rows))
        return groups

    def _merge_groups(self, groups: list[RolloutGroup]) -> dict[str, Any]:
        pad_id = self._tokenizer.pad_token_id
        merged: dict[str, Any] = {}
        for key in groups[0].rows:
            parts = [g.rows[key] for g in groups]
            if isinstance(parts[0], list):
                merged[key] = [item for part in parts for item in part]
            elif key in _PROMPT_SIDE:
                merged[key] = _cat_padded(parts, _pad_value(_PROMPT_SIDE[key], pad_id), left=True)
            elif key in _COMPLETION_SIDE and parts[0].ndim == 2:
                merged[key] = _cat_padded(parts, _pad_value(_COMPLETION_SIDE[key], pad_id), left=False)
            else:
                merged[key] = torch.cat(parts)
        _trim_padding(merged)
        loss_mask = merged["completion_mask"] * merged["tool_mask"] if "tool_mask" in merged else merged["completion_mask"]
        merged["num_items_in_batch"] = loss_mask.sum()
        return merged


def _per_row(value: Any, n_rows: int) -> bool:
    if isinstance(value, torch.Tensor):
        return value.ndim > 0 and value.shape[0] == n_rows
    return isinstance(value, list) and len(value) == n_rows


def _pad_value(value: float | None, pad_id: int) -> float:
    return pad_id if value is None else value


def _cat_padded(parts: list[torch.Tensor], value: float, *, left: bool) -> torch.Tensor:
    width = max(p.shape[1] for p in parts)
    padded = []
    for part in parts:
        missing = width - part.shape[1]
        if missing:
            fill = part.new_full((part.shape[0], missing), value)
            part = torch.cat([fill, part] if left else [part, fill], dim=1)
        padded.append(part)
    return torch.cat(padded)


def _trim_padding(batch: dict[str, Any]) -> None:
    """Drop columns that are padding in every row (groups from a round with longer sequences widen the batch)."""
    used = torch.nonzero(batch["prompt_mask"].any(dim=0))
    start = int(used[0]) if len(used) else 0
    for key in _PROMPT_SIDE:
        batch[key] = batch[key][:, start:]
    width = batch["completion_mask"].shape[1]
    used = torch.nonzero(batch["completion_mask"].any(dim=0))
    end = max(int(used[-1]) + 1 if len(used) else 1, 1)
    for key in _COMPLETION_SIDE:
        value = batch.get(key)
        if isinstance(value, torch.Tensor) and value.ndim == 2 and value.shape[1] == width:
            batch[key] = value[:, :end]
