"""Training recipes as named presets: ASTRA's own (`astra`) and one sized for a 2-core CPU (`cpu-small`).

A preset holds the GRPO and SFT hyper-parameters; `VerlRecipe`, `TrlRecipe`, `ServedRecipe` and
`SftRecipe` take their defaults from a preset (`from_preset`), and explicit settings (CLI flags)
override it. `astra loop` runs the very same presets (`astra_loop.LoopPreset` adds only the sizes
of its other stages), so a name means one set of values: `cpu-small` is what the loop measured on
2 cores.
Defaults: `astra` for veRL; for TRL (GRPO and SFT) and served GRPO, `cpu-small` on a CPU and `astra` on a GPU.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rl.adapter import AdapterSettings
from rl.exceptions import TrainingSetupError


class GrpoSettings(BaseModel):
    """GRPO hyper-parameters shared by the veRL and TRL engines."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    prompts_per_step: int = Field(ge=1, description="Prompts (groups) per step; also the PPO mini-batch, so one update per step.")
    group_size: int = Field(ge=2, description="Rollouts per prompt (GRPO group).")
    lr: float = Field(gt=0, description="Actor learning rate.")
    max_turns: int = Field(ge=1, description="Assistant (tool-calling) turns per rollout.")
    max_prompt_length: int = Field(ge=1, description="Prompt tokens (system + tool schemas + question).")
    max_response_length: int = Field(ge=1, description="Tokens of a whole multi-turn response (TRL: completion budget).")
    max_tool_response_length: int = Field(ge=1, description="Tokens kept of one tool result.")
    temperature: float = Field(default=1.0, gt=0)
    kl_coef: float = Field(default=0.0, ge=0, description="KL penalty (0: no KL term and no reference model).")
    clip_ratio: float = Field(default=0.2, gt=0, lt=1, description="ε of GRPO's clipped importance ratio (served: against the sampler's logprobs).")
    entropy_coef: float = Field(default=0.0, ge=0, description="Entropy bonus (0: none).")
    loss_agg_mode: Literal["token-mean"] = Field(default="token-mean", description="Loss aggregation over tokens.")
    batch_filling: bool = Field(default=True, description="Adaptive batch filling (keep groups with reward std > delta).")
    delta: float = Field(default=0.0, ge=0, description="Batch filling keeps a group when its reward std is > delta.")
    max_fill_rounds: int = Field(ge=1, description="Generation rounds per step before batch filling gives up.")
    max_steps: int | None = Field(default=None, ge=1, description="TRL and served optimizer steps (None: TRL one epoch, served 20); veRL runs by epochs.")
    max_reply_tokens: int = Field(default=256, ge=8, description="Served: reply budget of one model request.")
    train_top_layers: int | None = Field(default=None, ge=1, description="TRL and served: train only the last N decoder layers (None: all).")
    val_every: int = Field(
        default=0, ge=0, description="Served: play the validation split before step 1, every N steps and after the last (0: never)."
    )
    val_episodes: int = Field(default=2, ge=1, description="Served: seeded episodes per validation task (the evaluation's protocol at small k).")
    unfinished_reward_scale: float = Field(
        default=1.0, ge=0, le=1,
        description="Served: the trained reward of a rollout that ends without a final answer is its F1 times this "
        "(1: ASTRA's reward, F1 alone; logs, validation and evaluation always report plain F1).",
    )

    def shared_fields(self) -> dict[str, Any]:
        """The settings every engine's recipe takes under the same names: the group, the rollout and batch filling."""
        return self.model_dump(include={"prompts_per_step", "group_size", "lr", "max_turns", "temperature", "batch_filling", "delta", "max_fill_rounds"})


class SftSettings(BaseModel):
    """SFT hyper-parameters."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    epochs: float = Field(gt=0)
    lr: float = Field(gt=0)
    batch_size: int = Field(ge=1, description="Per-device batch size.")
    max_length: int = Field(ge=16, description="Token limit of a conversation (longer ones are skipped).")
    adapter: AdapterSettings | None = Field(
        default=None, description="Train a LoRA adapter on the top layers instead of every weight (None: full fine-tuning)."
    )


class Preset(BaseModel):
    """A named training recipe."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    description: str
    grpo: GrpoSettings
    sft: SftSettings
    torch_threads: int | None = Field(default=None, ge=1, description="CPU threads for torch in SFT and GRPO (None: torch's choice).")


ASTRA = Preset(
    name="astra",
    description=(
        "ASTRA's recipe: GRPO batch = mini-batch 256, lr 2e-6, 32 turns, prompt 25,600 / response 49,152, "
        "no KL, no entropy bonus, token-mean loss, adaptive batch filling; SFT 2 epochs at 5e-6 "
        "(ASTRA's other SFT runs used 2e-6: pass --lr 2e-6)."
    ),
    grpo=GrpoSettings(
        prompts_per_step=256, group_size=8, lr=2e-6, max_turns=32, max_prompt_length=25_600, max_response_length=49_152,
        max_tool_response_length=4096, delta=0.0, max_fill_rounds=16, max_steps=200, max_reply_tokens=4096,
    ),
    sft=SftSettings(epochs=2, lr=5e-6, batch_size=8, max_length=32_768),
)

# Sized for the embedded 0.5B model on 2 CPU cores and measured there end to end by `astra loop`
# with the 32 example training environments: one SFT epoch (a LoRA adapter on the top layers, at
# the ~10x rate LoRA takes over full fine-tuning; bench/sft_step.py; 4,096 tokens, as GRPO's prompts:
# a world environment with its banded distractors offers ~17 tools, and half of 268 such
# conversations exceeded 2,048), then 20 GRPO steps of 2 prompts x 4
# rollouts with only the top 4 decoder layers trained (backward then stops there), at ASTRA's rate:
# at 1e-5, 20 such steps undid what the cold start had taught (docs/runs/loop-authored-20-steps).
# An unanswered rollout keeps half its F1: under F1 alone, 20 steps learned to call on to the turn
# limit (docs/results.md). SFT computes under bf16 autocast where the CPU has bf16: 1.8x the float32
# steps on 268 world conversations, with the loss within 2% of float32's at every step (docs/runs/cold-start-world-bf16).
CPU_SMALL = Preset(
    name="cpu-small",
    description=(
        "A 2-core CPU with the embedded 0.5B model: GRPO 2 prompts x 4 rollouts per step, 20 steps, lr 2e-6 (ASTRA's), "
        "6 turns, response 384 tokens, top 4 layers trained, batch filling with at most 4 rounds per step, "
        "an unanswered rollout's reward halved; the validation split played every 5 steps (2 seeded episodes per task); "
        "SFT 1 epoch of a LoRA adapter (r 16) on the top 8 layers and the tool-call tags' output rows at 2e-4, batches of 4, under bf16 autocast where the CPU has bf16; "
        "2 torch threads."
    ),
    grpo=GrpoSettings(
        prompts_per_step=2, group_size=4, lr=2e-6, max_turns=6, max_prompt_length=4096, max_response_length=384,
        max_tool_response_length=512, delta=0.0, max_fill_rounds=4, max_steps=20, max_reply_tokens=256, train_top_layers=4,
        val_every=5, val_episodes=2, unfinished_reward_scale=0.5,
    ),
    sft=SftSettings(epochs=1, lr=2e-4, batch_size=4, max_length=4096, adapter=AdapterSettings(rank=16, alpha=32, top_layers=8, bf16_autocast=True)),
    torch_threads=2,
)

PRESETS: dict[str, Preset] = {p.name: p for p in (ASTRA, CPU_SMALL)}
"""The named presets."""


def get_preset(name: str) -> Preset:
    """The preset called `name`.

    Raises:
        TrainingSetupError: for an unknown name (the message lists the known ones).
    """
    try:
        return PRESETS[name]
    except KeyError:
        raise TrainingSetupError(f"unknown preset {name!r}; choose from {sorted(PRESETS)}") from None


def default_preset(engine: Literal["verl", "trl", "served"]) -> Preset:
    """`astra` for veRL; for TRL and served GRPO, `cpu-small` without a CUDA device and `astra` with one."""
    if engine == "verl":
        return ASTRA
    try:
        import torch
    except ImportError:
        return CPU_SMALL
    return ASTRA if torch.cuda.is_available() else CPU_SMALL
