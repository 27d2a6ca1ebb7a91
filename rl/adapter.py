"""LoRA adapters on the top decoder layers: attach, save, load and merge (peft).

The adapter recipe trains low-rank updates of the attention and MLP projections of the last
`top_layers` decoder layers only. Nothing below the lowest adapted layer needs a gradient, so
backward stops there, and the frozen base weights need neither gradients nor optimizer state:
on a 2-core CPU that is most of what a full fine-tuning step costs (`bench/sft_step.py`).

Beside the adapter, the output-layer rows of a few tokens are trained (peft's trainable
tokens): by default the tool-call tags. The embedded student never learned them: `<tool_call>`
and `</tool_call>` share one untrained row with hundreds of unused tokens, in the input
embedding and in the output layer alike, so a model that only adapts its decoder layers gives
the opening and the closing tag the same logit at every position and cannot learn to frame a
call (full fine-tuning trains those rows with everything else). On an untied output layer only
its rows are trained, so backward still stops at the lowest adapted layer; where input and
output embeddings are tied, the shared rows are.

An adapter directory is what peft saves (`adapter_config.json`, `adapter_model.safetensors`);
`merge_adapter` folds it into the base weights and writes an ordinary model directory, which
vLLM, the local backend and GRPO load like any other.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from rl.exceptions import TrainingSetupError

__all__ = ["ADAPTER_CONFIG", "AdapterSettings", "attach_adapter", "load_adapted", "merge_adapter", "output_token_rows"]

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
    output_tokens: tuple[str, ...] = Field(
        default=("<tool_call>", "</tool_call>"),
        description="Tokens whose output-layer rows are trained too (those the vocabulary has): the student's tool-call tags are untrained.",
    )
    bf16_autocast: bool = Field(
        default=False,
        description="Compute forward and backward under bfloat16 autocast where the hardware has bf16 (a CPU with AVX512-BF16 or AMX, a GPU); the adapter and its optimizer stay float32.",
    )


def _decoder_layers(model: Any) -> int:
    body = getattr(model, "model", None)
    stack = getattr(body, "layers", None)
    if stack is None:
        raise TrainingSetupError(f"{type(model).__name__}: no decoder layer stack (model.layers) to adapt")
    return len(stack)


def output_token_rows(model: Any, tokenizer: Any, tokens: tuple[str, ...]) -> dict[str, list[int]]:
    """peft's `trainable_token_indices` for `tokens`: the output layer's rows, or the input embedding's where the two are tied.

    Tokens the vocabulary lacks are left out: a model without tool-call tags has none to train.
    """
    vocab = tokenizer.get_vocab()
    ids = sorted({vocab[t] for t in tokens if t in vocab})
    if not ids:
        return {}
    tied = bool(getattr(model.config, "tie_word_embeddings", False))
    layer = model.get_input_embeddings() if tied else model.get_output_embeddings()
    name = next(n for n, m in model.named_modules() if m is layer)
    return {name: ids}


def attach_adapter(model: Any, settings: AdapterSettings, tokenizer: Any = None) -> Any:
    """`model` wrapped by peft with a fresh LoRA adapter; only the adapter's weights, and the rows of
    `settings.output_tokens` when a `tokenizer` names them, are trainable.

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
    rows = output_token_rows(model, tokenizer, settings.output_tokens) if tokenizer is not None else {}
    config = LoraConfig(
        r=settings.rank, lora_alpha=settings.alpha, lora_dropout=settings.dropout, target_modules=list(PROJECTIONS),
        layers_to_transform=list(range(n - top, n)), bias="none", task_type="CAUSAL_LM",
        trainable_token_indices=rows or None,
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
