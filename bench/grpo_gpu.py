"""GRPO steps of the embedded student with TRL's engine on the machine at hand (a GPU box), beside the CPU's step.

A GPU machine may have torch and transformers but neither vLLM nor the chunk packages, nor a
network: this script takes the student's GGUF as a file (or as the pieces it was split into to
travel), checks it against the pinned size and sha256, builds the embedded cache from it, and runs
`rl.train_grpo("trl", ...)` with the `cpu-small` recipe (same group sizes, turns and trained layers
as the CPU's served GRPO) over an in-process arena of `--envs`. It prints each step's wall time
(from the trainer's per-step log), reward and tool calls, and, given `--cpu-metrics` (a served GRPO
`metrics.jsonl` from a CPU run), the CPU's mean step and the ratio.

    python bench/grpo_gpu.py --pieces DIR --data DATA --envs examples/train_envs --steps 10 --out OUT \
        [--cpu-metrics runs/loop/grpo/metrics.jsonl]
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import statistics
import time
from pathlib import Path

import anyio

from agent_sdk import embedded_model_dir
from rl import get_preset, train_grpo


def join_pieces(pieces: Path, dest: Path) -> Path:
    """Concatenate `pieces/piece.*` in name order into `dest` (what `split -d` made)."""
    parts = sorted(pieces.glob("piece.*"))
    if not parts:
        raise SystemExit(f"{pieces}: no piece.* files")
    with dest.open("wb") as out:
        for part in parts:
            with part.open("rb") as handle:
                shutil.copyfileobj(handle, out, 1 << 22)
    return dest


def device_name() -> str:
    import torch

    if torch.cuda.is_available():
        return f"{torch.cuda.get_device_name(0)} (torch {torch.__version__})"
    return f"CPU {platform.processor() or platform.machine()} (torch {torch.__version__}, no CUDA)"


def cpu_step_s(metrics: Path) -> float | None:
    """Mean served-GRPO step (serve + rollout + update + save) after the first, from a CPU run's metrics."""
    records = [json.loads(line) for line in metrics.read_text().splitlines() if line.strip()]
    steps = [r["serve_s"] + r["rollout_s"] + r["update_s"] + r["save_s"] for r in records if "rollout_s" in r][1:]
    return statistics.mean(steps) if steps else None


async def main(args: argparse.Namespace) -> None:
    policy = str(args.policy) if args.policy else "embedded"
    if not args.policy:
        gguf = args.gguf or join_pieces(args.pieces, args.out / "student.gguf")
        started = time.monotonic()
        model_dir = embedded_model_dir(model="embedded", gguf=gguf)
        print(f"embedded student built from {gguf} in {time.monotonic() - started:.0f} s: {model_dir}")
        if args.pieces:
            gguf.unlink()
    preset = get_preset("cpu-small")
    started = time.monotonic()
    await train_grpo(
        "trl",
        preset,
        args.data,
        args.envs,
        args.out / "trl",
        policy,
        max_steps=args.steps,
        max_fill_rounds=args.max_fill_rounds,
        plot=False,
    )
    wall = time.monotonic() - started
    records = [json.loads(line) for line in (args.out / "trl" / "metrics.jsonl").read_text().splitlines() if line.strip()]
    steps = [r for r in records if "reward" in r]
    print(f"TRL GRPO of {policy} on {device_name()}, preset {preset.name}: {len(steps)} steps in {wall:.0f} s (model load included)")
    print("step  wall s  reward  tool calls/episode  completion tokens")
    previous = started + (time.time() - time.monotonic())
    times = []
    for r in steps:
        elapsed = r["time"] - previous
        previous = r["time"]
        times.append(elapsed)
        calls = r.get("tools/call_frequency", float("nan"))
        length = r.get("completions/mean_length", float("nan"))
        print(f"{r['step']:>4}  {elapsed:>6.1f}  {r['reward']:>6.3f}  {calls:>18.2f}  {length:>17.1f}")
    later = times[1:] or times
    mean = statistics.mean(later) if later else float("nan")
    print(f"mean step after the first: {mean:.1f} s")
    if args.cpu_metrics:
        cpu = cpu_step_s(args.cpu_metrics)
        if cpu:
            print(f"CPU served GRPO step (2 cores, {args.cpu_metrics}): {cpu:.1f} s; CPU / this machine: {cpu / mean:.1f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--gguf", type=Path, help="The student's assembled GGUF file.")
    source.add_argument("--pieces", type=Path, help="A folder of piece.* files that concatenate to it.")
    source.add_argument(
        "--policy",
        type=Path,
        help="Another policy directory instead of the student (a smoke test of the stack).",
    )
    parser.add_argument("--data", type=Path, required=True, help="`astra rl prepare` output for --envs.")
    parser.add_argument("--envs", type=Path, default=Path("examples/train_envs"))
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument(
        "--max-fill-rounds",
        type=int,
        help="Batch-filling rounds per step (default: the preset's).",
    )
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--cpu-metrics",
        type=Path,
        help="A CPU served-GRPO metrics.jsonl to compare with.",
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    anyio.run(main, args)
