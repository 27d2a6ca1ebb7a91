"""The cold-start SFT data of the loop: judged SFT rows plus golden replays of verified environments.

`cold_start_data` is the one function the cold-start stage calls. The replays come from
`rl.cold_start`, the one producer of cold-start rows (`astra sft cold-start` runs it too): every
golden call of an environment is made over MCP against the real tools, in
`mcp_servers.golden_order`, one call per assistant turn, under the agent's one system prompt
(`agent_sdk.DEFAULT_SYSTEM_PROMPT`, which GRPO's rows and the evaluation also open with), with
the environment's tools plus its banded distractors as the tool set (the ones GRPO's datasets
draw for the same environments and seed) and the call arguments as JSON objects; the
conversation ends with the task's answer. The judged rows of SFT synthesis and
`LoopConfig.extra_sft` come first, then the replays, mixed (`rl.mix_sft`, repeats dropped)
into one export written by the one SFT writer (`agent_sdk.write_sft_files`).

Output directory: `envs/` (what `rl.cold_start` writes: verify.json, trajectories.jsonl,
rejected.jsonl, stats.json and its export) and the mixed export `sft.jsonl` / `sft.parquet` /
`openai.jsonl` with `mix.json`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from agent_sdk import SFT_FILES
from rl import ColdStartConfig, DistractorConfig, cold_start, mix_sft


class ColdStartData(BaseModel):
    """What the cold-start data holds (`sft.jsonl`: SFT rows, messages with `tool_calls` and `tools`)."""

    path: Path = Field(description="The mixed `sft.jsonl` the SFT trainer reads.")
    sft_rows: int = Field(description="Judged rows taken from the SFT synthesis export and the extra SFT files.")
    env_rows: int = Field(description="Golden replays of verified environments (`rl.cold_start`).")
    duplicates: int = Field(default=0, description="Rows dropped as repeats of an earlier row.")
    distractors_per_env: float = Field(default=0.0, description="Distractor tools offered per replayed environment, on average.")
    skipped_envs: list[str] = Field(default_factory=list, description="`path: reason codes` for environments that failed verify.")
    rejection_reasons: dict[str, int] = Field(default_factory=dict, description="Replays not kept, by reason (`rl.RejectedRecord`).")


async def cold_start_data(
    *, envs_dirs: Sequence[Path], sft_files: Sequence[Path], out_dir: Path, distractors: DistractorConfig | None = None,
    embedder: Any = None,
) -> ColdStartData:  # fmt: skip
    """Write `out_dir/sft.jsonl`: the judged SFT rows of `sft_files` (those that exist), then a golden replay of each environment.

    Args:
        envs_dirs: environment directories or directories of them (the loop's `train_envs/`).
        sft_files: SFT exports (`sft.jsonl`, `openai.jsonl`, `sft.parquet`); absent ones are skipped.
        out_dir: output directory (see the module docstring).
        distractors: how the distractors offered beside each environment's tools are sampled (None: none).
        embedder: an `rl.Embedder` for banded distractors (default: the packaged model, no cache).

    Raises:
        DatasetError: when no environment is found, or an SFT file cannot be read (naming it and the line).
        SandboxUnavailable: when the configured sandbox cannot run here.
    """
    replays = out_dir / "envs"
    stats = await cold_start(list(envs_dirs), replays, config=ColdStartConfig(distractors=distractors), embedder=embedder)
    judged = [f for f in sft_files if f.is_file()]
    env_export = replays / SFT_FILES["sft_jsonl"]
    report = mix_sft([*judged, env_export], out_dir)
    env_rows = report.kept[str(env_export)]
    return ColdStartData(
        path=out_dir / SFT_FILES["sft_jsonl"], sft_rows=report.rows - env_rows, env_rows=env_rows, duplicates=report.duplicates,
        distractors_per_env=stats.distractors_per_env,
        skipped_envs=[f"{s.path}: {s.reason} {' '.join(s.codes)}".rstrip() for s in stats.skipped],
        rejection_reasons=stats.rejection_reasons,
    )  # fmt: skip
