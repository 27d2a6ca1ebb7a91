"""An SFT run's recipe, its report, and the rows it trains on, shared by both SFT trainers.

Rows come from the SFT export (OpenAI `messages` + `tools` JSONL) and are tokenized here, with
the model's chat template and each row's own tools, into `input_ids` plus `assistant_masks` (1 on
tokens the assistant wrote), so the loss covers assistant turns only. Pre-tokenizing also keeps
per-row structures (tool schemas, call arguments whose keys differ between rows) out of Arrow,
which would merge them into one struct and fill missing keys with nulls.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from agent_sdk import STUDENT, read_jsonl
from rl._tokenize import tokenize_conversation
from rl.adapter import AdapterSettings
from rl.exceptions import DatasetError
from rl.presets import CPU_SMALL, Preset

__all__ = ["SftRecipe", "SftReport", "encode_rows", "load_rows", "read_sft_rows"]


class SftRecipe(BaseModel):
    """Settings of an SFT run (defaults: the `cpu-small` preset; `from_preset` for another)."""

    data: Path = Field(description="OpenAI-format JSONL: one {messages, tools} object per line.")
    output_dir: Path
    model: str = Field(default=STUDENT.target, description="The policy: an embedded name (the student by default), a model directory or a .gguf.")
    epochs: float = CPU_SMALL.sft.epochs
    max_steps: int = Field(default=-1, description="Stop after this many steps (-1: by epochs).")
    lr: float = CPU_SMALL.sft.lr
    batch_size: int = CPU_SMALL.sft.batch_size
    max_length: int = CPU_SMALL.sft.max_length
    save: bool = True
    torch_threads: int | None = Field(default=CPU_SMALL.torch_threads, ge=1, description="CPU threads for torch.")
    adapter: AdapterSettings | None = Field(
        default=CPU_SMALL.sft.adapter, description="Train a LoRA adapter on the top layers (None: every weight, with TRL)."
    )
    seed: int = Field(default=0, description="Order of the rows and initial adapter weights.")

    @classmethod
    def from_preset(cls, preset: Preset, **settings: Any) -> SftRecipe:
        """A recipe with `preset`'s SFT hyper-parameters; `settings` (those not None) override them."""
        sft = preset.sft
        fields = {
            "epochs": sft.epochs, "lr": sft.lr, "batch_size": sft.batch_size, "max_length": sft.max_length,
            "torch_threads": preset.torch_threads, "adapter": sft.adapter,
        }  # fmt: skip
        return cls(**{**fields, **{k: v for k, v in settings.items() if v is not None}})


class SftReport(BaseModel):
    """What an SFT run did."""

    rows: int
    skipped: int
    steps: int
    losses: list[float]
    model_dir: str | None
    wall_s: float
    adapter_dir: str | None = Field(default=None, description="The saved adapter (adapter recipe only).")
    tokens: int = Field(default=0, description="Tokens of the conversations trained on (repeats per epoch counted).")
    conversations_per_minute: float = Field(default=0.0, description="Conversations trained per minute of training steps.")
    precision: str = Field(default="float32", description="What the steps computed in: float32, or bfloat16 autocast.")


def read_sft_rows(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Rows with messages (and tools) from an OpenAI-format JSONL, plus a problem per bad line."""
    content = read_jsonl(path, _sft_row, on_problem="collect")
    return content.values, [str(p) for p in content.problems]


def _sft_row(row: dict[str, Any]) -> dict[str, Any]:
    messages = row.get("messages")
    if not isinstance(messages, list) or not messages:
        raise ValueError("messages: expected a non-empty list")
    if not any(isinstance(m, dict) and m.get("role") == "assistant" for m in messages):
        raise ValueError("messages: no assistant turn to learn from")
    return row


def load_rows(recipe: SftRecipe) -> tuple[list[dict[str, Any]], list[str]]:
    """The usable rows of `recipe.data` and a problem per bad line, read before any model is loaded.

    Raises:
        DatasetError: when the file holds no usable row.
    """
    rows, problems = read_sft_rows(recipe.data)
    if not rows:
        raise DatasetError("\n".join(problems) or f"{recipe.data}: no rows")
    return rows, problems


def encode_rows(
    recipe: SftRecipe, tokenizer: Any, rows: list[dict[str, Any]], problems: list[str]
) -> tuple[list[dict[str, list[int]]], list[str]]:
    """`rows` as `input_ids` + `assistant_masks`, and `problems` plus one per row longer than `max_length`.

    Raises:
        DatasetError: when no row fits `max_length`.
    """
    problems = list(problems)
    encoded = []
    for row in rows:
        tools = row.get("tools")
        sample = tokenize_conversation(tokenizer, row["messages"], json.loads(tools) if isinstance(tools, str) else tools)
        if len(sample["input_ids"]) <= recipe.max_length and any(sample["assistant_masks"]):
            encoded.append(sample)
        else:
            problems.append(f"{recipe.data}: a row of {len(sample['input_ids'])} tokens exceeds max_length {recipe.max_length}")
    if not encoded:
        raise DatasetError("\n".join(problems) or f"{recipe.data}: no row fits max_length")
    return encoded, problems
