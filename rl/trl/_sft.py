"""`astra sft train`: SFT on the export (OpenAI `messages` + `tools` JSONL), full or with an adapter.

Two trainers share the recipe and its rows (`rl.sft_recipe`). With `SftRecipe.adapter` set, a
LoRA adapter on the top decoder layers is trained by `rl.adapter_sft` (the cheap cold start);
without it, TRL's SFTTrainer fine-tunes every weight.
"""

from __future__ import annotations

import time

from rl.adapter_sft import train_adapter_sft
from rl.exceptions import TrainingSetupError
from rl.sft_recipe import SftRecipe, SftReport, encode_rows, load_rows

__all__ = ["SftRecipe", "SftReport", "train_sft"]


def train_sft(recipe: SftRecipe) -> SftReport:
    """Fine-tune on the SFT export (assistant tokens only): an adapter (`rl.adapter_sft`) or, without one, TRL's SFTTrainer.

    Raises:
        TrainingSetupError: when TRL (or peft) is missing.
        DatasetError: when the file holds no usable row.
    """
    if recipe.adapter is not None:
        return train_adapter_sft(recipe)
    try:
        from datasets import Dataset
        from trl import SFTConfig, SFTTrainer
    except ImportError as exc:
        raise TrainingSetupError(f"SFT needs the `train` extra: {exc}") from exc
    from rl._models import load_model

    rows, problems = load_rows(recipe)
    started = time.monotonic()
    if recipe.torch_threads is not None:
        import torch

        torch.set_num_threads(recipe.torch_threads)
    model, tokenizer = load_model(recipe.model)
    encoded, problems = encode_rows(recipe, tokenizer, rows, problems)
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
    train_started = time.monotonic()
    result = trainer.train()
    train_s = time.monotonic() - train_started
    losses = [float(r["loss"]) for r in trainer.state.log_history if "loss" in r]
    model_dir = None
    if recipe.save:
        model_dir = str(recipe.output_dir / "model")
        trainer.save_model(model_dir)
        tokenizer.save_pretrained(model_dir)
    return SftReport(
        rows=len(encoded), skipped=len(problems), steps=int(result.global_step), losses=losses,
        model_dir=model_dir, wall_s=time.monotonic() - started,
        tokens=sum(len(e["input_ids"]) for e in encoded),
        conversations_per_minute=60 * min(len(encoded) * recipe.epochs, result.global_step * recipe.batch_size) / max(train_s, 1e-9),
    )
