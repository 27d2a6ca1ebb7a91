"""The policy update of served GRPO: the clipped GRPO objective on the tokens the sampler produced.

Every turn of a rollout carries the token ids vLLM rendered and sampled, with the sampler's
logprobs (`agent_sdk.SampledTokens`). Each turn is a training sequence: its prompt ids then its
completion ids, the loss on the completion only, so the policy is trained on exactly what it
sampled (not on a chat-template re-rendering of parsed, possibly repaired calls); a turn whose
prompt extends the previous turn's sequence token for token joins it, so a multi-turn rollout's
shared prefix is encoded once instead of once per turn, and the prompt a group's rollouts share
is encoded once for the group. The trainer
recomputes the logprob of each sampled token, forms the importance ratio r = π/π_sampler and
minimizes -min(r·A, clip(r, 1-ε, 1+ε)·A), averaged over every completion token of the batch
(ASTRA's token-mean); no KL term, no entropy bonus. The gap between sampler and trainer (vLLM
serves in its own precision and kernels; a group carried over by batch filling is a step
stale) is measured on every token: mean |Δ logprob|, a KL estimate and the clipped fraction —
stale groups are ratio-corrected by the clip, not dropped.

A rollout whose turns lack sampled tokens (a backend that does not return them) is rendered
with the policy's chat template instead (`rl._tokenize.tokenize_conversation`) and trained with
ratio 1; `UpdateStats.rerendered` counts them. Rollouts with advantage 0 carry no gradient.
"""

from __future__ import annotations

import math
import time
from dataclasses import KW_ONLY, InitVar, dataclass, field
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from rl._tokenize import tokenize_conversation
from rl.served._rollouts import Rollout, RolloutGroup


_MIN_SHARED_PREFIX = 16
"""Below this many common tokens a group's sequences are encoded separately: the cache round trip costs more."""


@dataclass
class _Totals:
    """What one step's sequences add up to, accumulated as each is backed."""

    loss: float = 0.0
    recompute_s: float = 0.0
    shared: int = 0
    gap: dict[str, float] = field(default_factory=lambda: {"gap": 0.0, "kl": 0.0, "clipped": 0.0, "tokens": 0.0})


class UpdateStats(BaseModel):
    """What one optimizer step trained on, and how far the sampler was from the trainer."""

    loss: float = Field(description="The token-mean clipped GRPO loss of the batch.")
    samples: int = Field(description="Training sequences (turns sharing a prefix, or re-rendered rollouts) with a non-zero advantage.")
    turns: int = Field(default=0, description="Sampled turns those sequences hold.")
    tokens: int = Field(description="Completion tokens the loss averaged over.")
    too_long: int = Field(default=0, description="Sequences left out: longer than `max_tokens`.")
    rerendered: int = Field(default=0, description="Rollouts without sampled tokens, trained on their re-rendering (ratio 1).")
    logprob_gap: float = Field(default=0.0, description="Mean |trainer - sampler| logprob over sampled tokens, before the update.")
    kl: float = Field(default=0.0, description="Mean k3 estimate of KL(sampler || trainer) over sampled tokens.")
    clip_fraction: float = Field(default=0.0, description="Share of sampled tokens whose ratio fell outside [1-ε, 1+ε].")
    grad_norm: float = 0.0
    shared_prefix_tokens: int = Field(default=0, description="Prompt tokens not re-encoded: a group's common prefix, encoded once for all its sequences.")
    recompute_s: float = Field(default=0.0, description="Forward passes: the trainer's logprobs of the sampled tokens.")
    wall_s: float = Field(default=0.0, description="The whole step: recompute, backward and the optimizer step.")


class Sample(BaseModel):
    """One training sequence."""

    ids: list[int]
    targets: list[bool]
    """Per position t of `ids[1:]`: whether the policy wrote it (what the loss covers)."""
    advantage: float
    old_logprobs: list[float] | None = Field(default=None, description="The sampler's logprob of each target token (None: ratio 1).")
    turns: int = Field(default=1, description="Sampled turns this sequence holds (turns sharing their prefix are one sequence).")


def rollout_samples(rollout: Rollout, advantage: float, tokenizer: Any, max_tokens: int | None = None) -> tuple[list[Sample], bool]:
    """The training sequences of one rollout, and whether they are its sampled tokens (else a re-rendering).

    A turn whose prompt begins with the previous sequence (the template re-rendered the earlier
    turns exactly as they were sampled) extends that sequence instead of starting its own, so the
    shared prefix is encoded once; a turn the template rendered differently, or one that would make
    the sequence longer than `max_tokens`, starts a new one.
    """
    steps = rollout.trajectory.steps
    if steps and all(s.tokens is not None for s in steps):
        samples: list[Sample] = []
        for step in steps:
            t = step.tokens
            assert t is not None
            if not t.completion_ids:
                continue
            last = samples[-1] if samples else None
            prefix = len(last.ids) if last else 0
            extends = last is not None and t.prompt_ids[:prefix] == last.ids and (
                max_tokens is None or len(t.prompt_ids) + len(t.completion_ids) <= max_tokens
            )
            if last is not None and extends and last.old_logprobs is not None:
                between = t.prompt_ids[prefix:]
                last.ids += [*between, *t.completion_ids]
                last.targets += [False] * len(between) + [True] * len(t.completion_ids)
                last.old_logprobs += t.logprobs
                last.turns += 1
                continue
            ids = [*t.prompt_ids, *t.completion_ids]
            targets = [False] * (len(t.prompt_ids) - 1) + [True] * len(t.completion_ids)
            samples.append(Sample(ids=ids, targets=targets, advantage=advantage, old_logprobs=list(t.logprobs)))
        return samples, True
    chat = rollout.trajectory.to_openai()
    encoded = tokenize_conversation(tokenizer, chat["messages"], chat["tools"])
    ids, mask = encoded["input_ids"], encoded["assistant_masks"]
    return ([Sample(ids=ids, targets=[bool(m) for m in mask[1:]], advantage=advantage)] if any(mask[1:]) else []), False


def clipped_objective(logp: Any, old: Any | None, advantage: float, clip: float) -> tuple[Any, dict[str, float]]:
    """Per-token GRPO objective min(r·A, clip(r, 1-ε, 1+ε)·A) (to be maximized), and its gap statistics.

    `logp` and `old` are 1-D tensors of the trainer's and the sampler's logprobs of the same tokens;
    without `old` the ratio is 1 and the objective is A·logp's gradient carrier.
    """
    import torch

    if old is None:
        return advantage * logp, {}
    log_ratio = logp - old
    ratio = torch.exp(log_ratio)
    objective = torch.minimum(ratio * advantage, ratio.clamp(1 - clip, 1 + clip) * advantage)
    detached = log_ratio.detach()
    gap = {
        "gap": float(detached.abs().sum()),
        "kl": float((torch.exp(-detached) - 1 + detached).sum()),
        "clipped": float(((ratio.detach() < 1 - clip) | (ratio.detach() > 1 + clip)).sum()),
        "tokens": float(detached.numel()),
    }
    return objective, gap


@dataclass(eq=False)  # equal only to itself: field equality would compare parameter tensors
class PolicyUpdate:
    """AdamW over the policy's trainable parameters, one step per GRPO batch.

    Args:
        model: a Hugging Face causal LM (trainable parameters as set by the caller).
        tokenizer: its tokenizer with a tool-calling chat template.
        lr: learning rate.
        max_tokens: sequences longer than this are left out of the step.
        max_grad_norm: gradient-norm clip.
        clip_ratio: ε of the clipped objective.
        share_prefix: encode a group's common prompt once for all its sequences (False: once per
            sequence; the same gradient from more forward passes, the baseline `bench/grpo_update.py` measures).
    """

    model: Any = field(repr=False)
    tokenizer: Any = field(repr=False)
    _: KW_ONLY
    lr: InitVar[float]
    max_tokens: int
    max_grad_norm: float = 1.0
    clip_ratio: float = 0.2
    share_prefix: bool = True
    parameters: list[Any] = field(init=False, repr=False)
    optimizer: Any = field(init=False, repr=False)

    def __post_init__(self, lr: float) -> None:
        import torch

        self.parameters = [p for p in self.model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.AdamW(self.parameters, lr=lr, weight_decay=0.0)

    def samples(self, groups: Sequence[RolloutGroup]) -> tuple[list[Sample], int, int]:
        """(training sequences, sequences too long, rollouts re-rendered) of `groups`."""
        per_group, too_long, rerendered = self._group_samples(groups)
        return [sample for group in per_group for sample in group], too_long, rerendered

    def _group_samples(self, groups: Sequence[RolloutGroup]) -> tuple[list[list[Sample]], int, int]:
        per_group, too_long, rerendered = [], 0, 0
        for group in groups:
            kept: list[Sample] = []
            for rollout, advantage in zip(group.rollouts, group.advantages(), strict=True):
                if advantage == 0.0:
                    continue
                made, sampled = rollout_samples(rollout, advantage, self.tokenizer, self.max_tokens)
                rerendered += not sampled
                for sample in made:
                    if len(sample.ids) > self.max_tokens:
                        too_long += 1
                    else:
                        kept.append(sample)
            if kept:
                per_group.append(kept)
        return per_group, too_long, rerendered

    def step(self, groups: Sequence[RolloutGroup]) -> UpdateStats:
        """One optimizer step on `groups` (blocking: run it off the event loop)."""
        import torch

        started = time.monotonic()
        per_group, too_long, rerendered = self._group_samples(groups)
        samples = [sample for group in per_group for sample in group]
        tokens = sum(sum(s.targets) for s in samples)
        if not samples:
            return UpdateStats(loss=0.0, samples=0, tokens=0, too_long=too_long, rerendered=rerendered, wall_s=time.monotonic() - started)
        self.model.train()
        totals = _Totals()
        for group in per_group:
            self._group_backward(group, tokens, totals)
        grad_norm = float(torch.nn.utils.clip_grad_norm_(self.parameters, self.max_grad_norm))
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        self.model.eval()
        gap = totals.gap
        n = gap["tokens"] or math.inf
        return UpdateStats(
            loss=totals.loss, samples=len(samples), turns=sum(x.turns for x in samples), tokens=tokens, too_long=too_long, rerendered=rerendered,
            logprob_gap=gap["gap"] / n, kl=gap["kl"] / n, clip_fraction=gap["clipped"] / n, grad_norm=grad_norm,
            shared_prefix_tokens=totals.shared, recompute_s=totals.recompute_s, wall_s=time.monotonic() - started,
        )  # fmt: skip

    def _group_backward(self, group: list[Sample], tokens: int, totals: _Totals) -> None:
        """Accumulate the gradient of one group's sequences, and their loss and gap into `totals`.

        A group's rollouts start from one prompt (system, tools, task), often most of each
        sequence. With `share_prefix` that common prefix is encoded once: its key/value cache is
        cut from the graph into leaf tensors that every sequence's forward reads, each sequence's
        backward accumulates its gradient in those leaves, and one backward through the prefix
        then carries the sum into the weights: the gradient of encoding the prefix per sequence.
        """
        import torch
        from transformers.cache_utils import DynamicLayer

        length = shared_prefix(group) if self.share_prefix and len(group) > 1 else 0
        if length >= _MIN_SHARED_PREFIX:
            forward_started = time.monotonic()
            prefix = self.model.base_model(input_ids=torch.tensor([group[0].ids[:length]]), use_cache=True).past_key_values
            totals.recompute_s += time.monotonic() - forward_started
            # sliding-window or other layers would need their own cache type to be rebuilt
            if all(type(layer) is DynamicLayer for layer in getattr(prefix, "layers", [None])):
                self._shared_backward(group, tokens, totals, prefix, length)
                return
        for sample in group:
            self._sequence_backward(sample, tokens, totals)

    def _shared_backward(self, group: list[Sample], tokens: int, totals: _Totals, prefix: Any, length: int) -> None:
        import torch
        from transformers import DynamicCache

        originals = [tensor for layer in prefix.layers for tensor in (layer.keys, layer.values)]
        leaves = [t.detach().requires_grad_(t.requires_grad) for t in originals]
        for sample in group:
            cache = DynamicCache(ddp_cache_data=list(zip(leaves[0::2], leaves[1::2], strict=True)))
            self._sequence_backward(sample, tokens, totals, start=length, cache=cache)
        totals.shared += length * (len(group) - 1)
        pairs = [(t, leaf.grad) for t, leaf in zip(originals, leaves, strict=True) if leaf.grad is not None]
        if pairs:
            torch.autograd.backward([t for t, _ in pairs], [g for _, g in pairs])

    def _sequence_backward(self, sample: Sample, tokens: int, totals: _Totals, *, start: int = 0, cache: Any = None) -> None:
        """Forward `sample.ids[start:]` (after `cache`, the encoded `ids[:start]`) and backward its share of the loss."""
        import torch

        forward_started = time.monotonic()
        ids = torch.tensor([sample.ids])
        hidden = self.model.base_model(input_ids=ids[:, start:], past_key_values=cache, use_cache=cache is not None).last_hidden_state[0, :-1]
        where = torch.tensor(sample.targets[start:])
        # The LM head only at the policy's positions: the vocabulary projection of every
        # prompt token would cost more than the layers that are trained.
        logits = self.model.get_output_embeddings()(hidden[where]).float()
        chosen = ids[0, start + 1 :][where]
        logp = torch.log_softmax(logits, dim=-1).gather(1, chosen[:, None]).squeeze(1)
        old = torch.tensor(sample.old_logprobs, dtype=logp.dtype) if sample.old_logprobs is not None else None
        objective, measured = clipped_objective(logp, old, sample.advantage, self.clip_ratio)
        totals.recompute_s += time.monotonic() - forward_started
        loss = -objective.sum() / tokens
        loss.backward()
        totals.loss += float(loss.detach())
        for key, value in measured.items():
            totals.gap[key] += value


def shared_prefix(samples: Sequence[Sample]) -> int:
    """Tokens every sample begins with, up to the first position any of them is trained on."""
    limit = min(min((i for i, t in enumerate(s.targets) if t), default=len(s.targets)) for s in samples)
    first = samples[0].ids
    length = 0
    while length < limit and all(s.ids[length] == first[length] for s in samples):
        length += 1
    return length
