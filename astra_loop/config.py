"""What `astra loop` runs: the loop's configuration and its two named presets.

A preset sizes every stage at once (how many knowledge rows are synthesized, how long the
cold start and GRPO run, how long an evaluation episode may be), so that `cpu-small` and
`astra` are the same command at two scales. The training hyper-parameters inside a preset
follow ASTRA's recipe (DESIGN §9); `astra` is the paper's scale, for GPUs and veRL.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from agent_sdk import STUDENT
from astra_loop.exceptions import LoopConfigError

EXAMPLE_ENVS = Path(__file__).resolve().parents[1] / "examples" / "envs"
"""The default evaluation set: environments no stage of the loop trains on."""


class LoopPreset(BaseModel):
    """The sizes of every stage of the loop."""

    name: str
    synth_rows: int = Field(ge=1, description="Knowledge rows read from each input file by environment synthesis.")
    sft_rollouts_per_server: int | None = Field(ge=1, description="Cap on SFT rollouts per tool-doc server (None: no cap).")
    synth_concurrency: int = Field(ge=1, description="LLM requests in flight during synthesis.")
    sft_epochs: float = Field(gt=0, description="Cold-start SFT epochs (ASTRA: 2).")
    sft_lr: float = Field(gt=0, description="Cold-start SFT learning rate (ASTRA: 5e-6).")
    sft_batch_size: int = Field(ge=1)
    sft_max_length: int = Field(ge=128, description="Conversations longer than this many tokens are skipped.")
    grpo_steps: int = Field(ge=0, description="TRL: GRPO optimizer steps (0: no GRPO; the cold-start model is evaluated).")
    prompts_per_step: int = Field(ge=1, description="Prompts per GRPO step (veRL: the batch = mini-batch size).")
    group_size: int = Field(ge=2, description="Rollouts per prompt (GRPO group).")
    grpo_lr: float = Field(gt=0, description="GRPO learning rate (ASTRA: 2e-6).")
    max_completion_length: int = Field(ge=8, description="TRL: token budget of one multi-turn completion.")
    max_turns: int = Field(ge=1, description="Tool-calling turns per rollout in training.")
    eval_max_turns: int = Field(ge=1, description="Model requests per evaluation episode.")
    eval_concurrency: int = Field(ge=1, description="Evaluation episodes in flight at once.")
    eval_max_tokens: int = Field(ge=16, description="Reply budget of one model request during evaluation.")
    torch_threads: int | None = Field(default=None, ge=1, description="CPU threads for torch (None: torch's choice).")
    grpo_top_layers: int | None = Field(default=None, ge=1, description="GRPO trains only the last N decoder layers (None: all).")
    distractors_per_band: int = Field(default=2, ge=0, description="Banded distractor tools per band and in-scope tool (ASTRA: 2).")


PRESETS: dict[str, LoopPreset] = {
    "cpu-small": LoopPreset(
        name="cpu-small", synth_rows=8, sft_rollouts_per_server=4, synth_concurrency=8,
        sft_epochs=1.0, sft_lr=5e-6, sft_batch_size=2, sft_max_length=2048,
        grpo_steps=6, prompts_per_step=2, group_size=4, grpo_lr=1e-5, max_completion_length=384, max_turns=6,
        eval_max_turns=6, eval_concurrency=16, eval_max_tokens=256, torch_threads=2, grpo_top_layers=4, distractors_per_band=1,
    ),
    "astra": LoopPreset(
        name="astra", synth_rows=400, sft_rollouts_per_server=None, synth_concurrency=64,
        sft_epochs=2.0, sft_lr=5e-6, sft_batch_size=8, sft_max_length=25_600,
        grpo_steps=200, prompts_per_step=256, group_size=8, grpo_lr=2e-6, max_completion_length=49_152, max_turns=32,
        eval_max_turns=32, eval_concurrency=64, eval_max_tokens=4096,
    ),
}
"""The named presets: `cpu-small` (2 cores, the embedded model: 59 minutes measured with the 32 example
training environments, 8 knowledge rows and one tool-doc file) and `astra` (the paper's scale)."""


def preset(name: str) -> LoopPreset:
    """The preset called `name`.

    Raises:
        LoopConfigError: naming the known presets.
    """
    try:
        return PRESETS[name]
    except KeyError:
        raise LoopConfigError(f"unknown preset {name!r}; choose from {sorted(PRESETS)}") from None


class LoopConfig(BaseModel):
    """One run of the loop: its inputs, its models and its output directory."""

    out: Path = Field(description="The one output directory every stage writes under (and resumes from).")
    knowledge: list[Path] = Field(default_factory=list, description="Knowledge-row JSONL files for environment synthesis.")
    tool_docs: list[str] = Field(default_factory=list, description="Tool-doc sources for SFT synthesis (`astra sft synth --servers`).")
    extra_train_envs: list[Path] = Field(default_factory=list, description="Verified environments added to the training set.")
    eval_envs: Path = Field(default=EXAMPLE_ENVS, description="Environments training never sees; evaluated before and after.")
    preset: LoopPreset = Field(default_factory=lambda: PRESETS["cpu-small"])
    engine: Literal["served", "trl", "verl"] = Field(
        default="served", description="GRPO engine: served (rollouts from vLLM, updates here), trl (in-process generation) or verl (GPUs)."
    )
    policy: str = Field(default=STUDENT.target, description="The model trained: an embedded name ('embedded', the student), a model directory or a .gguf.")
    generator: str | None = Field(default=None, description="Synthesis model: any model target (None: $ASTRA_LLM_BASE_URL, else the embedded teacher).")
    generator_model: str | None = Field(default=None, description="Model name at the generator endpoint (None: the server's first).")
    base_endpoint: str | None = Field(default=None, description="Evaluate the base policy at this http(s) endpoint instead of serving `policy` here.")
    synth_config: dict[str, Any] = Field(default_factory=dict, description="`synth.env.SynthConfig` field overrides (e.g. thresholds, leak_audit).")
    sft_config: dict[str, Any] = Field(default_factory=dict, description="`synth.sft.SftConfig` field overrides.")
    trained_model: str | None = Field(default=None, description="Evaluate this instead of the GRPO output (needed after veRL, which writes sharded checkpoints).")
    overlap_threshold: float = Field(default=0.9, gt=0, le=1, description="Cosine at or above which a training question near-duplicates an eval question.")
    seed: int = 0

    def path(self, *parts: str) -> Path:
        """A path inside the output directory."""
        return self.out.joinpath(*parts)


class Layout:
    """Where each stage writes inside the loop's output directory (the report reads the same paths)."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.synth_env = out / "synth_env"
        """`synthesize_envs` output: stage stores, stats.json, envs/."""
        self.synth_sft = out / "synth_sft"
        """`SftPipeline` output: stores, stats.json, sft.jsonl."""
        self.verify_json = out / "verify.json"
        self.train_envs = out / "train_envs"
        """The verified environments training uses (copies; the eval set is never among them)."""
        self.overlap = out / "overlap.jsonl"
        self.cold_start = out / "cold_start"
        """Cold-start data (data/sft.jsonl) and the SFT model (model/)."""
        self.rl_data = out / "rl_data"
        self.grpo = out / "grpo"
        """GRPO run: metrics.jsonl, reward_curve.png, model/."""
        self.eval = out / "eval"
        """`base.json` and `trained.json` (`EvalResult`)."""
        self.plots = out / "plots"
        self.report = out / "report.md"
