"""The cost of one GRPO step on this machine: served GRPO's parts against TRL's HF-generation step.

Prepares the RL data of an environments directory (default: the 32 authored training
environments), then runs served GRPO (`rl.train_grpo("served", ...)`, the `cpu-small` preset, no
validation) for `--steps` steps and prints each step's time split into serving (the first step:
starting vLLM; later steps: loading the new weights), rollout, the trainer's logprob recompute,
backward + optimizer step, and saving. The baseline, in the same run: one step of TRL's GRPOTrainer
(generation with Hugging Face `generate`, same preset) in a subprocess, stopped after
`--trl-timeout` seconds; the ratio is TRL's step over the mean served step after the first (a
lower bound when TRL did not finish).

    python bench/grpo_step.py [--envs DIR] [--policy TARGET] [--steps 3] [--trl-timeout 1200] [--serve-dtype float32]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio

from rl import get_preset, prepare, train_grpo

ROOT = Path(__file__).resolve().parents[1]


def trl_step(data: Path, envs: Path, out: Path, policy: str, timeout_s: float) -> tuple[float, bool]:
    """Seconds one TRL GRPO step took (or the timeout), and whether it finished."""
    command = [sys.executable, "-m", "astra_cli", "rl", "train", "--engine", "trl", "--preset", "cpu-small", "--data", str(data),
               "--envs", str(envs), "--out", str(out), "--policy", policy, "--max-steps", "1"]  # fmt: skip
    started = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return timeout_s, False
    if done.returncode != 0:
        raise SystemExit(f"TRL step failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    return time.monotonic() - started, True


async def main(envs: Path, policy: str, steps: int, trl_timeout: float, skip_trl: bool, serve_dtype: str) -> None:
    preset = get_preset("cpu-small")
    with tempfile.TemporaryDirectory(prefix="grpo-step-") as tmp:
        work = Path(tmp)
        prepare(envs, work / "data")
        started = time.monotonic()
        await train_grpo("served", preset, work / "data", envs, work / "served", policy, max_steps=steps, val_every=0, plot=False,
                         serve_dtype=serve_dtype)
        served_wall = time.monotonic() - started
        records = [json.loads(line) for line in (work / "served" / "metrics.jsonl").read_text().splitlines()]
        print(f"served GRPO, {preset.name}: {steps} steps in {served_wall:.0f} s (policy {policy}, envs {envs})")
        print("step  serve s  rollout s  recompute s  backward+opt s  save s  episodes  tool calls  gap |dlogp|")
        for r in records:
            backward = r["update_s"] - r["recompute_s"]
            print(f"{r['step']:>4}  {r['serve_s']:>7.1f}  {r['rollout_s']:>9.1f}  {r['recompute_s']:>11.1f}  {backward:>14.1f}  "
                  f"{r['save_s']:>6.1f}  {r['episodes']:>8}  {r['tool_calls']:>10}  {r['logprob_gap']:>11.3f}")  # fmt: skip
        later = records[1:] or records
        step_s = sum(r["serve_s"] + r["rollout_s"] + r["update_s"] + r["save_s"] for r in later) / len(later)
        print(f"served step (mean of steps {later[0]['step']}..{later[-1]['step']}): {step_s:.1f} s")
        if skip_trl:
            return
        trl_s, finished = trl_step(work / "data", envs, work / "trl", policy, trl_timeout)
        bound = "" if finished else " (did not finish: a lower bound)"
        print(f"TRL GRPO (HF generate), one step: {trl_s:.0f} s{bound}")
        print(f"ratio TRL step / served step: {'>= ' if not finished else ''}{trl_s / step_s:.1f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=Path, default=ROOT / "examples" / "train_envs")
    parser.add_argument("--policy", default="embedded", help="The policy: an embedded name or a model directory.")
    parser.add_argument("--steps", type=int, default=3, help="Served steps (the first includes starting the server).")
    parser.add_argument("--trl-timeout", type=float, default=1200.0, help="Seconds before the TRL step is stopped.")
    parser.add_argument("--skip-trl", action="store_true", help="Only the served steps.")
    parser.add_argument("--serve-dtype", default="auto", choices=["auto", "bfloat16", "float32"],
                        help="vLLM's precision (float32: the trainer's; the gap column then shows what bf16 cost).")
    args = parser.parse_args()
    anyio.run(main, args.envs, args.policy, args.steps, args.trl_timeout, args.skip_trl, args.serve_dtype)
