"""The SFT loss where the assistant speaks, with the output layer computed only there.

A causal LM's output layer maps every position to the whole vocabulary (151,936 words for
Qwen2.5): over a conversation of 1,000 tokens that is a 1,000 × 151,936 matrix, its softmax and
its backward pass, when only the ~10% of positions that predict an assistant token carry a
loss. `assistant_loss` asks the model for logits at those positions alone (transformers'
`logits_to_keep` takes a tensor of positions) and sums their cross-entropy: the loss, and so
its gradients, are those of the full loss restricted to the same tokens (a test checks it).
"""

from __future__ import annotations

from typing import Any

__all__ = ["assistant_loss", "target_positions"]


def target_positions(assistant_mask: Any) -> Any:
    """Positions whose next token the assistant wrote (a 1-D tensor of indices into the sequence)."""
    import torch

    mask = torch.as_tensor(assistant_mask, dtype=torch.bool)
    return torch.nonzero(mask[1:], as_tuple=False).flatten()


def assistant_loss(model: Any, input_ids: Any, assistant_mask: Any) -> tuple[Any, int]:
    """Summed cross-entropy of the assistant's tokens of one unpadded conversation, and their count.

    Args:
        model: a causal LM (or a peft model around one) whose forward accepts `logits_to_keep`.
        input_ids: 1-D token ids of the conversation.
        assistant_mask: 1-D, 1 where the assistant wrote the token.

    Returns:
        `(loss_sum, n)`: divide by the batch's total `n` for the token mean TRL's loss takes.
    """
    import torch
    import torch.nn.functional as F

    ids = torch.as_tensor(input_ids, dtype=torch.long)
    positions = target_positions(assistant_mask)
    if positions.numel() == 0:
        return torch.zeros((), requires_grad=False), 0
    logits = model(input_ids=ids.unsqueeze(0), logits_to_keep=positions, use_cache=False).logits[0]
    targets = ids[positions + 1]
    return F.cross_entropy(logits.float(), targets, reduction="sum"), int(positions.numel())
