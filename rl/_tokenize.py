"""A conversation as the policy trains on it: token ids and the mask of what the assistant wrote.

One rendering for every engine: the cold start's SFT (`rl.trl`) and served GRPO's update
(`rl.served`) both tokenize with the policy's chat template and each row's own tools, so the
tokens RL trains on are the ones SFT taught.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["tokenize_conversation"]


def _normalize(message: dict[str, Any]) -> dict[str, Any]:
    """A message the chat template renders as trained: call arguments as objects, not JSON strings."""
    out = {k: v for k, v in message.items() if v is not None}
    calls = []
    for call in message.get("tool_calls") or []:
        function = dict(call.get("function", {}))
        if isinstance(function.get("arguments"), str):
            try:
                function["arguments"] = json.loads(function["arguments"] or "{}")
            except json.JSONDecodeError:
                pass
        calls.append({**call, "function": function})
    if calls:
        out["tool_calls"] = calls
    return out


def tokenize_conversation(tokenizer: Any, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> dict[str, list[int]]:
    """`input_ids` and `assistant_masks` of a conversation, rendered turn by turn."""
    messages = [_normalize(m) for m in messages]
    tools = tools or None
    ids: list[int] = []
    mask: list[int] = []
    for i, message in enumerate(messages):
        if message["role"] == "assistant":
            before = tokenizer.apply_chat_template(messages[:i], tools=tools, add_generation_prompt=True, tokenize=True, return_dict=False)
            after = tokenizer.apply_chat_template(messages[: i + 1], tools=tools, tokenize=True, return_dict=False)
            if before[: len(ids)] != ids:
                before = ids + before[len(ids) :]
            mask += [0] * (len(before) - len(ids))
            ids = list(before)
            mask += [1] * (len(after) - len(ids))
            ids = list(after)
    full = tokenizer.apply_chat_template(messages, tools=tools, tokenize=True, return_dict=False)
    if len(full) > len(ids):
        mask += [0] * (len(full) - len(ids))
        ids = list(full)
    return {"input_ids": ids, "assistant_masks": mask[: len(ids)]}
