"""What `astra loop` runs: the loop's configuration and its two named presets.

A preset sizes every stage at once (how many knowledge rows are synthesized, how long the
cold start and GRPO run, how long an evaluation episode may be), so that `cpu-small` and
`astra` are the same command at two scales. The training hyper-parameters are the `rl` preset
of the same name (`rl.presets`: one name, one set of values, whether `astra loop` or `astra rl
train` runs it); `astra` is the paper's scale, for GPUs and veRL.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from agent_sdk import STUDENT
from astra_loop.exceptions import LoopConfigError
from rl.presets import ASTRA, CPU_SMALL, Preset

EXAMPLE_ENVS = Path(__file__).resolve().parents[1] / "examples" / "envs"
"""The default evaluation set: environments no stage of the loop trains on."""
EXAMPLE_WORLDS = Path(__file__).resolve().parents[1] / "examples" / "worlds"
"""The world files a run given nothing to train on builds its environments from."""


class LoopPreset(BaseModel):
    """The sizes of every stage of the loop: the training recipe (an `rl.Preset`) plus the loop's own stages."""

    name: str
    recipe: Preset = Field(description="SFT and GRPO hyper-parameters: the `rl` preset of the same name (what `astra rl train --preset` runs).")
    synth_rows: int = Field(ge=1, description="Knowledge rows read from each input file by environment synthesis.")
    sft_rollouts_per_server: int | None = Field(ge=1, description="Cap on SFT rollouts per tool-doc server (None: no cap).")
    synth_concurrency: int = Field(ge=1, description="LLM requests in flight during synthesis.")
    grpo: bool = Field(default=True, description="Run GRPO after the cold start (False: the cold-start model is evaluated; veRL always runs).")
    eval_max_turns: int = Field(ge=1, description="Model requests per evaluation episode.")
    eval_concurrency: int = Field(ge=1, description="Evaluation episodes in flight at once.")
    eval_max_tokens: int = Field(ge=16, description="Reply budget of one model request during evaluation.")
    eval_episodes: int = Field(default=4, ge=1, description="Seeded episodes per evaluation environment (k).")
    eval_temperature: float = Field(default=0.6, ge=0.0, description="Evaluation sampling temperature (the paper's agentic evals: 0.6; 0 plays one greedy episode).")
    eval_top_p: float = Field(default=0.95, gt=0.0, le=1.0, description="Evaluation nucleus (the paper's agentic evals: 0.95).")
    eval_with_distractors: bool = Field(
        default=True, description="Also evaluate with `distractors_per_band` banded distractors offered, as in training (`<label>_distractors.json`)."
    )
    distractors_per_band: int = Field(default=2, ge=0, description="Banded distractor tools per band and in-scope tool (ASTRA: 2).")
    world_envs: int = Field(default=48, ge=1, description="Environments the synth stage builds from --world sources, spread over the worlds.")
    val_world_envs: int = Field(
        default=0, ge=0,
        description="World environments GRPO validates on, held apart from every training stage: the training worlds walked "
        "with another seed, no training question among them (0, or a run without worlds: a seeded share of the training environments).",
    )
    min_synth_envs: int = Field(default=10, ge=0, description="Synthesized training environments below which the report warns that training is mostly other data.")

    def with_overrides(self, fields: Mapping[str, Any]) -> LoopPreset:
        """This preset with `fields` merged in, nested mappings field by field (`{"recipe": {"grpo": {"max_steps": 12}}}`).

        Raises:
            ValidationError: a field is unknown or its value invalid.
        """
        return LoopPreset.model_validate(_merge(self.model_dump(), fields))


def _merge(base: dict[str, Any], fields: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in fields.items():
        merged[key] = _merge(merged[key], value) if isinstance(value, Mapping) and isinstance(merged.get(key), dict) else value
    return merged


PRESETS: dict[str, LoopPreset] = {
    "cpu-small": LoopPreset(
        name="cpu-small", recipe=CPU_SMALL, synth_rows=8, sft_rollouts_per_server=4, synth_concurrency=8,
        eval_max_turns=6, eval_concurrency=16, eval_max_tokens=256, eval_episodes=2, distractors_per_band=1, val_world_envs=8,
    ),
    "astra": LoopPreset(
        name="astra", recipe=ASTRA, synth_rows=400, sft_rollouts_per_server=None, synth_concurrency=64,
        eval_max_turns=32, eval_concurrency=64, eval_max_tokens=4096, world_envs=5000, val_world_envs=256,
    ),
}
"""The named presets: `cpu-small` (2 cores, the embedded model: 96 minutes measured with the 32 example
training environments and 20 GRPO steps, docs/runs/loop-authored-20-steps) and `astra` (the paper's scale)."""


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
    worlds: list[Path] = Field(default_factory=list, description="World sources (SQLite, world files, domain lists) the synth stage builds environments from.")
    tool_docs: list[str] = Field(default_factory=list, description="Tool-doc sources for SFT synthesis (`astra sft synth --servers`).")
    extra_train_envs: list[Path] = Field(default_factory=list, description="Verified environments added to the training set.")
    extra_sft: list[Path] = Field(
        default_factory=list, description="Judged SFT rows (a corpus' `sft.jsonl`) added to the cold start beside this run's own SFT export."
    )
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
        self.synth_worlds = out / "synth_worlds"  # synthesize_from_worlds: envs/, worlds/, stats.json, rejected.jsonl
        self.synth_sft = out / "synth_sft"
        """`SftPipeline` output: stores, stats.json, sft.jsonl."""
        self.verify_json = out / "verify.json"
        self.train_envs = out / "train_envs"
        """The verified environments training uses (copies; the eval set is never among them)."""
        self.overlap = out / "overlap.jsonl"
        self.cold_start = out / "cold_start"
        """Cold-start data (data/sft.jsonl) and the SFT model (model/)."""
        self.val_worlds = out / "val_worlds"
        """GRPO's held-out world environments: the training worlds walked with another seed (envs/), and the ones kept (kept/)."""
        self.grpo_envs = out / "grpo_envs"
        """What GRPO's arena serves: the training environments and the held-out validation ones."""
        self.rl_data = out / "rl_data"
        self.grpo = out / "grpo"
        """GRPO run: metrics.jsonl, reward_curve.png, model/."""
        self.eval = out / "eval"
        """`<label>.json` (`EvalResult`: base, cold_start, trained), and `<label>_distractors.json` with distractors offered."""
        self.plots = out / "plots"
        self.report = out / "report.md"
