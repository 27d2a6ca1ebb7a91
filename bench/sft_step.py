"""Conversations per minute of the cheap cold start against full fine-tuning, same rows, same run.

Rows: golden replays (`rl.cold_start`) of environments built from the example worlds
(`examples/worlds/car_rental.yaml` and `clinic_zh.yaml`, English and Chinese), the conversations
a world-only cold start trains on. Both recipes train the embedded student on the same rows for
the same number of steps, nothing saved:

- **full**: TRL's SFTTrainer, every weight, logits at every position, rows padded per batch;
- **adapter**: `rl.adapter_sft`, a LoRA adapter on the top layers (and the output rows of the
  tool-call tags), logits only where the assistant speaks, one unpadded conversation per forward pass;
- **adapter, bf16 autocast**: the same under bfloat16 autocast, where the CPU computes bf16 natively.

Only the training steps are timed (model loading and tokenizing are not). Target: adapter >= 4x full.

    python bench/sft_step.py [--rows 8] [--steps 4] [--batch-size 2] [--top-layers 8] [--rank 16]
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

import anyio

from rl import cold_start
from rl.adapter import AdapterSettings
from rl.trl import SftRecipe, train_sft
from synth.world import WorldSynthConfig, build_world_envs, load_world_file

ROOT = Path(__file__).resolve().parents[1]
WORLDS = ("car_rental.yaml", "clinic_zh.yaml")


def _rows(tmp: Path, n: int) -> Path:
    """`sft.jsonl` of golden replays of `n` world environments, half from each example world."""
    envs = []
    for name in WORLDS:
        world = load_world_file(ROOT / "examples/worlds" / name)
        envs += build_world_envs(world, WorldSynthConfig(per_world=(n + 1) // 2))[0][: (n + 1) // 2]
    paths = [env.write(tmp / "envs" / f"env-{i:03d}") for i, env in enumerate(envs[:n])]
    anyio.run(lambda: cold_start(paths, tmp / "replays"))
    return tmp / "replays" / "sft.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=8)
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=2)
    parser.add_argument("--top-layers", type=int, default=8)
    parser.add_argument("--rank", type=int, default=16)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = _rows(Path(tmp), args.rows)
        common = dict(data=data, max_steps=args.steps, batch_size=args.batch_size, save=False, torch_threads=args.threads)
        adapter = AdapterSettings(rank=args.rank, alpha=2 * args.rank, top_layers=args.top_layers)
        full = train_sft(SftRecipe(output_dir=Path(tmp) / "full", adapter=None, lr=5e-6, **common))
        cheap = train_sft(SftRecipe(output_dir=Path(tmp) / "adapter", adapter=adapter, lr=1e-4, **common))
        bf16 = adapter.model_copy(update={"bf16_autocast": True})
        mixed = train_sft(SftRecipe(output_dir=Path(tmp) / "adapter-bf16", adapter=bf16, lr=1e-4, **common))
    tokens = full.tokens / max(1, full.rows)
    print(f"rows {full.rows} (mean {tokens:.0f} tokens), {args.steps} steps of {args.batch_size}, {args.threads} threads")
    print(f"full fine-tuning (TRL, all weights):        {full.conversations_per_minute:7.2f} conversations/min")
    print(f"adapter (LoRA r={args.rank}, top {args.top_layers} layers):        {cheap.conversations_per_minute:7.2f} conversations/min")
    print(f"adapter, {mixed.precision}:{' ' * max(1, 28 - len(mixed.precision))}{mixed.conversations_per_minute:7.2f} conversations/min")
    for name, run in (("adapter", cheap), (f"adapter {mixed.precision}", mixed)):
        ratio = run.conversations_per_minute / max(full.conversations_per_minute, 1e-9)
        print(f"ratio {name} / full: {ratio:.2f}x (target >= 4x); 256 conversations: {256 / run.conversations_per_minute:.1f} min")


if __name__ == "__main__":
    main()
