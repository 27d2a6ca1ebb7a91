"""What a GRPO run reports, whichever engine ran it: `TrainReport` and the reward-curve plot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from rl.batch_filling import StepStats

__all__ = ["TrainReport", "plot_rewards"]


class TrainReport(BaseModel):
    """What a GRPO run did (TRL or served)."""

    steps: int
    episodes: int = Field(description="Rollouts, each one MCP session to the arena.")
    tool_calls: int = Field(description="Calls parsed from the policy's text that reached an episode.")
    argument_repairs: int = Field(default=0, description="Calls whose arguments were not strict JSON (repaired or not).")
    unparsable_arguments: int = Field(default=0, description="Calls whose arguments could not be parsed even after repair.")
    rewards: list[float] = Field(description="Mean reward per logged step.")
    losses: list[float]
    batch_filling: list[StepStats] = Field(default_factory=list, description="Kept / discarded / carried groups per step.")
    metrics_path: str
    validation: list[dict[str, Any]] = Field(default_factory=list, description="The validation curve (served: `ValidationRecord`s), when played.")
    plot_path: str | None = None
    model_dir: str | None = Field(
        default=None, description="The saved policy (Hugging Face format), when `save`; served GRPO with validation: the best validated weights."
    )
    best_step: int | None = Field(default=None, description="Served GRPO with validation: the step whose weights `model_dir` holds (0: the starting policy).")
    wall_s: float


def plot_rewards(
    records: list[dict[str, Any]], path: Path, title: str, validation: list[dict[str, Any]] | None = None
) -> Path | None:
    """A reward-curve PNG from logged records, with the validation curve beside it when given (None when nothing was logged).

    `validation`: `ValidationRecord`s as dicts; their F1 (what the kept checkpoint is chosen by),
    recall and answer correctness are drawn against the same step axis (step 0: the starting policy).
    """
    points = [(r["step"], r["reward"]) for r in records if "reward" in r]
    if not points:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label="training reward (F1)")
    val = sorted(validation or [], key=lambda r: r["step"])
    for key, label in (("reward", "validation F1"), ("recall", "validation recall"), ("answer_correct", "validation answer correctness")):
        if val:
            ax.plot([r["step"] for r in val], [r[key] for r in val], marker="s", linestyle="--", label=label)
    ax.set_xlabel("GRPO step")
    ax.set_ylabel("mean over episodes")
    ax.set_ylim(0, 1.15)  # every curve is a mean of per-episode scores in [0, 1]; the top leaves room for the legend
    ax.set_title(title)
    ax.grid(alpha=0.3)
    if val:
        ax.legend(fontsize="small", loc="upper center", ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
