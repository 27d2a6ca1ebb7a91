"""The policy update of served GRPO: a token-mean policy gradient on re-rendered rollouts.

Each rollout's conversation is rendered with the policy's chat template and the tools it was
offered (`rl._tokenize.tokenize_conversation`, the cold start's own rendering), so the tokens
trained on are the ones SFT taught, and the loss covers the assistant's tokens only. Rollouts
come from the served copy of these very weights and each batch is used for one update, so
GRPO's importance ratio is 1 and its clipped objective is the policy gradient
-A·log π(token), averaged over every assistant token of the batch (ASTRA's token-mean); no KL
term, no entropy bonus. Rollouts with advantage 0 carry no gradient and are not computed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from rl._tokenize import tokenize_conversation
from rl.served._rollouts import RolloutGroup


class UpdateStats(BaseModel):
    """What one optimizer step trained on."""

    loss: float = Field(description="The token-mean policy-gradient loss of the batch.")
    samples: int = Field(description="Rollouts with a non-zero advantage that were trained on.")
    tokens: int = Field(description="Assistant tokens the loss averaged over.")
    too_long: int = Field(default=0, description="Rollouts left out: longer than `max_tokens`.")
    grad_norm: float = 0.0
    wall_s: float = 0.0


class _Sample(BaseModel):
    ids: list[int]
    targets: list[bool]
    """Per position t of `ids[1:]`: whether the assistant wrote it (what the loss covers)."""
    advantage: float


class PolicyUpdate:
    """AdamW over the policy's trainable parameters, one step per GRPO batch.

    Args:
        model: a Hugging Face causal LM (trainable parameters as set by the caller).
        tokenizer: its tokenizer with a tool-calling chat template.
        lr: learning rate.
        max_tokens: rollouts rendered longer than this are left out of the step.
        max_grad_norm: gradient-norm clip.
    """

    def __init__(self, model: Any, tokenizer: Any, *, lr: float, max_tokens: int, max_grad_norm: float = 1.0) -> None:
        import torch

        self.model = model
        self.tokenizer = tokenizer
        self.max_tokens = max_tokens
        self.max_grad_norm = max_grad_norm
        self.parameters = [p for p in model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.AdamW(self.parameters, lr=lr, weight_decay=0.0)

    def _samples(self, groups: Sequence[RolloutGroup]) -> tuple[list[_Sample], int]:
        samples, too_long = [], 0
        for group in groups:
            for rollout, advantage in zip(group.rollouts, group.advantages(), strict=True):
                if advantage == 0.0:
                    continue
                chat = rollout.trajectory.to_openai()
                encoded = tokenize_conversation(self.tokenizer, chat["messages"], chat["tools"])
                ids, mask = encoded["input_ids"], encoded["assistant_masks"]
                if len(ids) > self.max_tokens:
                    too_long += 1
                elif any(mask[1:]):
                    samples.append(_Sample(ids=ids, targets=[bool(m) for m in mask[1:]], advantage=advantage))
        return samples, too_long

    def step(self, groups: Sequence[RolloutGroup]) -> UpdateStats:
        """One optimizer step on `groups` (blocking: run it off the event loop)."""
        import torch

        started = time.monotonic()
        samples, too_long = self._samples(groups)
        tokens = sum(sum(s.targets) for s in samples)
        if not samples:
            return UpdateStats(loss=0.0, samples=0, tokens=0, too_long=too_long, wall_s=time.monotonic() - started)
        self.model.train()
        head = self.model.get_output_embeddings()
        total = 0.0
        for sample in samples:
            ids = torch.tensor([sample.ids])
            hidden = self.model.base_model(input_ids=ids).last_hidden_state[0, :-1]
            where = torch.tensor(sample.targets)
            # The LM head only at the assistant's positions: the vocabulary projection of every
            # prompt token would cost more than the layers that are trained.
            logits = head(hidden[where]).float()
            chosen = ids[0, 1:][where]
            logp = torch.log_softmax(logits, dim=-1).gather(1, chosen[:, None]).squeeze(1)
            loss = -(sample.advantage * logp).sum() / tokens
            loss.backward()
            total += float(loss.detach())
        grad_norm = float(torch.nn.utils.clip_grad_norm_(self.parameters, self.max_grad_norm))
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        self.model.eval()
        return UpdateStats(
            loss=total, samples=len(samples), tokens=tokens, too_long=too_long, grad_norm=grad_norm,
            wall_s=time.monotonic() - started,
        )
