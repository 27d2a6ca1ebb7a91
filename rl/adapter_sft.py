"""The cheap cold start: a LoRA adapter on the top layers, the loss only where the assistant speaks, no padding.

Three changes make an SFT step cheaper without changing what is learned from a row:

- **an adapter on the top layers** (`rl.adapter`): backward stops at the lowest adapted layer,
  and the optimizer holds a few million weights, not half a billion;
- **the output layer only where there is a loss** (`rl.assistant_loss`): the logits of the
  ~10% of positions that predict an assistant token, not of every position;
- **one conversation per forward pass**: no padding to the longest row of a batch; a batch
  accumulates its rows' gradients and takes the token mean over them, as TRL's loss does.

With `AdapterSettings.bf16_autocast`, forward and backward run under bfloat16 autocast where the
hardware computes bf16 natively (the report's `precision` says which ran); elsewhere, float32.

The rows, their rendering and their assistant masks are the full recipe's (`rl.sft_recipe.encode_rows`),
and so is the schedule: AdamW, linear decay to zero, gradients clipped at norm 1. Every step
appends a line to `output_dir/steps.jsonl`. The output directory gets `adapter/` (what peft
saves, plus the tokenizer and chat template it was trained with) and, unless `save` is off, `model/`: the adapter merged into the base weights, which
serving, GRPO and evaluation load like any model directory.
"""

from __future__ import annotations

import json
import math
import random
import time
from pathlib import Path
from typing import Any

from agent_sdk import EMBEDDED_MODELS, cpu_has_bf16
from rl.adapter import ADAPTER_CONFIG, attach_adapter, merge_adapter
from rl.assistant_loss import assistant_loss
from rl.sft_recipe import SftRecipe, SftReport, encode_rows, load_rows

__all__ = ["batches", "train_adapter_sft"]


def batches(n_rows: int, *, batch_size: int, epochs: float, max_steps: int, seed: int) -> list[list[int]]:
    """Row indices per optimizer step: each epoch a fresh seeded shuffle, cut into batches; `max_steps` > 0 caps them."""
    steps = max_steps if max_steps > 0 else math.ceil(epochs * n_rows / batch_size)
    order: list[int] = []
    epoch = 0
    while len(order) < steps * batch_size:
        shuffled = list(range(n_rows))
        random.Random(seed + epoch).shuffle(shuffled)
        order += shuffled
        epoch += 1
    if max_steps <= 0:
        order = order[: math.ceil(epochs * n_rows)]
    return [order[i : i + batch_size] for i in range(0, len(order), batch_size)][:steps]


def step_precision(device: str, bf16_autocast: bool) -> str:
    """What a step computes in on `device`: bfloat16 autocast only where asked for and native there."""
    return "bfloat16 autocast" if bf16_autocast and (device != "cpu" or cpu_has_bf16()) else "float32"


def _name_base(adapter_dir: Path, model: str) -> None:
    """Record the base as the recipe named it: an embedded name stays a name, not this machine's cache path."""
    config_file = adapter_dir / ADAPTER_CONFIG
    config = json.loads(config_file.read_text(encoding="utf-8"))
    config["base_model_name_or_path"] = model if model in EMBEDDED_MODELS else str(Path(model).expanduser().resolve())
    config_file.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def train_adapter_sft(recipe: SftRecipe) -> SftReport:
    """Train `recipe.adapter` on `recipe.data` (see the module docstring); returns the run's report.

    Raises:
        TrainingSetupError: when peft is missing or the adapter does not fit the model.
        DatasetError: when the file holds no usable row.
    """
    import torch

    from rl._models import load_model

    assert recipe.adapter is not None
    rows, problems = load_rows(recipe)
    started = time.monotonic()
    if recipe.torch_threads is not None:
        torch.set_num_threads(recipe.torch_threads)
    torch.manual_seed(recipe.seed)
    model, tokenizer = load_model(recipe.model)
    encoded, problems = encode_rows(recipe, tokenizer, rows, problems)
    adapted = attach_adapter(model, recipe.adapter, tokenizer)
    adapted.train()
    device = next(adapted.parameters()).device.type
    precision = step_precision(device, recipe.adapter.bf16_autocast)
    trainable = [p for p in adapted.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=recipe.lr, weight_decay=0.0)
    plan = batches(len(encoded), batch_size=recipe.batch_size, epochs=recipe.epochs, max_steps=recipe.max_steps, seed=recipe.seed)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0 - step / len(plan))
    recipe.output_dir.mkdir(parents=True, exist_ok=True)
    log = recipe.output_dir / "steps.jsonl"
    log.write_text("", encoding="utf-8")
    losses: list[float] = []
    tokens = 0
    train_started = time.monotonic()
    for step, batch in enumerate(plan, start=1):
        step_started = time.monotonic()
        total = sum(int(sum(encoded[i]["assistant_masks"][1:])) for i in batch)
        loss_sum = 0.0
        for i in batch:
            with torch.autocast(device, dtype=torch.bfloat16, enabled=precision != "float32"):
                loss, n = assistant_loss(adapted, encoded[i]["input_ids"], encoded[i]["assistant_masks"])
            if n:
                (loss / total).backward()
                loss_sum += float(loss.detach())
            tokens += len(encoded[i]["input_ids"])
        torch.nn.utils.clip_grad_norm_(trainable, 1.0)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(loss_sum / max(total, 1))
        entry: dict[str, Any] = {"step": step, "loss": round(losses[-1], 5), "rows": len(batch), "seconds": round(time.monotonic() - step_started, 2)}
        with log.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")
    train_s = time.monotonic() - train_started
    adapted.eval()
    adapter_dir = recipe.output_dir / "adapter"
    adapted.save_pretrained(str(adapter_dir))
    tokenizer.save_pretrained(str(adapter_dir))  # the chat template it was trained with travels with it
    _name_base(adapter_dir, recipe.model)
    model_dir = str(merge_adapter(adapted, tokenizer, recipe.output_dir / "model")) if recipe.save else None
    return SftReport(
        rows=len(encoded), skipped=len(problems), steps=len(plan), losses=losses, model_dir=model_dir,
        wall_s=time.monotonic() - started, adapter_dir=str(adapter_dir), tokens=tokens,
        conversations_per_minute=60 * sum(map(len, plan)) / max(train_s, 1e-9), precision=precision,
    )  # fmt: skip
