"""`astra sft train`: TRL's SFTTrainer on the SFT export (OpenAI `messages` + `tools` JSONL).

Rows are tokenized here, with the model's chat template and each row's own tools, into
`input_ids` plus `assistant_masks` (1 on tokens the assistant wrote), so the loss covers
assistant turns only. Pre-tokenizing also keeps per-row structures (tool schemas, call
arguments whose keys differ between rows) out of Arrow, which would merge them into one
struct and fill missing keys with nulls.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from agent_sdk import STUDENT, read_jsonl
from rl._tokenize import tokenize_conversation
from rl.exceptions import DatasetError, TrainingSetupError
from rl.presets import CPU_SMALL, Preset


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

    @classmethod
    def from_preset(cls, preset: Preset, **settings: Any) -> SftRecipe:
        """A recipe with `preset`'s SFT hyper-parameters; `settings` (those not None) override them."""
        sft = preset.sft
        fields = {"epochs": sft.epochs, "lr": sft.lr, "batch_size": sft.batch_size, "max_length": sft.max_length, "torch_threads": preset.torch_threads}
        return cls(**{**fields, **{k: v for k, v in settings.items() if v is not None}})


class SftReport(BaseModel):
    """What an SFT run did."""

    rows: int
    skipped: int
    steps: int
    losses: list[float]
    model_dir: str | None
    wall_s: float


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


def train_sft(recipe: SftRecipe) -> SftReport:
    """Fine-tune on the SFT export with TRL's SFTTrainer (assistant tokens only).

    Raises:
        TrainingSetupError: when TRL is missing.
        DatasetError: when the file holds no usable row.
    """
    try:
        from datasets import Dataset
        from trl import SFTConfig, SFTTrainer
    except ImportError as exc:
        raise TrainingSetupError(f"SFT needs the `train` extra: {exc}") from exc
    from rl._models import load_model

    rows, problems = read_sft_rows(recipe.data)
    if not rows:
        raise DatasetError("\n".join(problems) or f"{recipe.data}: no rows")
    started = time.monotonic()
    if recipe.torch_threads is not None:
        import torch

        torch.set_num_threads(recipe.torch_threads)
    model, tokenizer = load_model(recipe.model)
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
    import torch

    config = SFTConfig(
        output_dir=str(recipe.output_dir),
        learning_rate=recipe.lr,
        num_train_epochs=recipe.epochs,
        max_steps=recipe.max_steps,
        per_device_train_batch_size=recipe.batch_size,
        max_length=recipe.max_length,
        logging_steps=1,
        save_strategy="no",
        report_to=[],
        use_cpu=not torch.cuda.is_available(),
        bf16=False,
        disable_tqdm=True,
    )
    trainer = SFTTrainer(model=model, args=config, train_dataset=Dataset.from_list(encoded), processing_class=tokenizer)
    result = trainer.train()
    losses = [float(r["loss"]) for r in trainer.state.log_history if "loss" in r]
    model_dir = None
    if recipe.save:
        model_dir = str(recipe.output_dir / "model")
        trainer.save_model(model_dir)
        tokenizer.save_pretrained(model_dir)
    return SftReport(
        rows=len(encoded), skipped=len(problems), steps=int(result.global_step), losses=losses,
        model_dir=model_dir, wall_s=time.monotonic() - started,
    )
