"""LoRA adapters on the top decoder layers: attach, save, load and merge (peft).

The adapter recipe trains low-rank updates of the attention and MLP projections of the last
`top_layers` decoder layers only. Nothing below the lowest adapted layer needs a gradient, so
backward stops there, and the frozen base weights need neither gradients nor optimizer state:
on a 2-core CPU that is most of what a full fine-tuning step costs (`bench/sft_step.py`).

An adapter directory is what peft saves (`adapter_config.json`, `adapter_model.safetensors`);
`merge_adapter` folds it into the base weights and writes an ordinary model directory, which
vLLM, the local backend and GRPO load like any other.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from rl.exceptions import TrainingSetupError

__all__ = ["ADAPTER_CONFIG", "AdapterSettings", "attach_adapter", "load_adapted", "merge_adapter"]

ADAPTER_CONFIG = "adapter_config.json"
"""The file that marks a directory as a peft adapter."""

PROJECTIONS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
"""The linear layers adapted in each decoder layer (Qwen2 and Llama names)."""


class AdapterSettings(BaseModel):
    """A LoRA adapter on the top decoder layers."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rank: int = Field(default=16, ge=1, description="LoRA rank r.")
    alpha: int = Field(default=32, ge=1, description="LoRA alpha (the update is scaled by alpha / r).")
    top_layers: int | None = Field(default=8, ge=1, description="Adapt only the last N decoder layers (None: all).")
    dropout: float = Field(default=0.0, ge=0.0, lt=1.0, description="LoRA dropout.")


def _decoder_layers(model: Any) -> int:
    body = getattr(model, "model", None)
    stack = getattr(body, "layers", None)
    if stack is None:
        raise TrainingSetupError(f"{type(model).__name__}: no decoder layer stack (model.layers) to adapt")
    return len(stack)


def attach_adapter(model: Any, settings: AdapterSettings) -> Any:
    """`model` wrapped by peft with a fresh LoRA adapter; only the adapter's weights are trainable.

    Raises:
        TrainingSetupError: when peft is missing, or `top_layers` exceeds the model's layers.
    """
    try:
        from peft import LoraConfig, get_peft_model
    except ImportError as exc:
        raise TrainingSetupError(f"the adapter recipe needs peft (extra `train`): {exc}") from exc
    n = _decoder_layers(model)
    top = settings.top_layers or n
    if top > n:
        raise TrainingSetupError(f"adapter top_layers={top}: the model has {n} decoder layers")
    config = LoraConfig(
        r=settings.rank, lora_alpha=settings.alpha, lora_dropout=settings.dropout, target_modules=list(PROJECTIONS),
        layers_to_transform=list(range(n - top, n)), bias="none", task_type="CAUSAL_LM",
    )  # fmt: skip
    return get_peft_model(model, config)


def load_adapted(base: Any, adapter_dir: str | Path) -> Any:
    """`base` with the adapter saved in `adapter_dir` loaded (not merged), for inference.

    Raises:
        TrainingSetupError: when `adapter_dir` holds no adapter.
    """
    from peft import PeftModel

    adapter_dir = Path(adapter_dir)
    if not (adapter_dir / ADAPTER_CONFIG).is_file():
        raise TrainingSetupError(f"{adapter_dir}: no {ADAPTER_CONFIG}; not an adapter directory")
    return PeftModel.from_pretrained(base, str(adapter_dir)).eval()


def merge_adapter(adapted: Any, tokenizer: Any, out: str | Path) -> Path:
    """Fold the adapter of a peft model into its base weights and save model and tokenizer to `out`."""
    out = Path(out)
    merged = adapted.merge_and_unload()
    merged.save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))
    return out
