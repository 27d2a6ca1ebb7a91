"""`GrpoRecipe`: the settings every GRPO engine run shares (TRL in-process, served).

Defaults come from the `cpu-small` preset; `from_preset` takes another preset's GRPO
hyper-parameters, and explicit settings (CLI flags) override them. Each engine's recipe adds
its own fields and the preset fields it reads (`preset_fields`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Self

from pydantic import BaseModel, Field

from agent_sdk import STUDENT
from rl.presets import CPU_SMALL, Preset

_CPU = CPU_SMALL.grpo


class GrpoRecipe(BaseModel):
    """Settings shared by the GRPO engines."""

    data_dir: Path = Field(description="Output of `astra rl prepare` (train.jsonl).")
    envs_dir: Path = Field(description="The environments the data was prepared from.")
    output_dir: Path
    model: str = Field(default=STUDENT.target, description="The policy: an embedded name (the student by default), a model directory or a .gguf.")
    prompts_per_step: int = Field(default=_CPU.prompts_per_step, ge=1, description="Prompts (GRPO groups) per step.")
    group_size: int = Field(default=_CPU.group_size, ge=2, description="Rollouts per prompt (GRPO group).")
    lr: float = _CPU.lr
    max_turns: int = Field(default=_CPU.max_turns, ge=1, description="Tool-calling turns per rollout.")
    temperature: float = _CPU.temperature
    batch_filling: bool = Field(default=_CPU.batch_filling, description="Adaptive batch filling (keep groups with reward std > delta).")
    delta: float = Field(default=_CPU.delta, ge=0, description="Batch filling keeps groups whose reward std is > delta.")
    max_fill_rounds: int = Field(default=_CPU.max_fill_rounds, ge=1, description="Generation rounds per step before giving up.")
    call_timeout_s: float = 30.0
    seed: int = 0
    plot: bool = True
    torch_threads: int | None = Field(
        default=CPU_SMALL.torch_threads, ge=1, description="CPU threads for torch (1 avoids OpenMP spin-waits on a busy machine)."
    )
    train_top_layers: int | None = Field(
        default=_CPU.train_top_layers, ge=1, description="Train only the last N decoder layers (a CPU sizing; None: the whole model)."
    )

    @classmethod
    def preset_fields(cls, preset: Preset) -> dict[str, Any]:
        """The recipe fields a preset gives."""
        return {"torch_threads": preset.torch_threads, "train_top_layers": preset.grpo.train_top_layers, **preset.grpo.shared_fields()}

    @classmethod
    def from_preset(cls, preset: Preset, **settings: Any) -> Self:
        """A recipe with `preset`'s GRPO hyper-parameters; `settings` (those not None) override them."""
        return cls(**{**cls.preset_fields(preset), **{k: v for k, v in settings.items() if v is not None}})
