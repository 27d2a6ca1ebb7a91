"""Cost per kept item: seconds, LLM calls and tokens per kept environment and per kept SFT row,
the embedded student (0.5B) against the embedded teacher (1.5B), on the same inputs in one run.

Each model is served in turn (one server at a time) and runs environment synthesis on the yield
slice (`examples/synth_slice/slice.jsonl`) and SFT synthesis on the example tool docs; the
ratio line is teacher / student. Output directories resume: a second invocation with the same
--out reads what the first made (cached replies cost no calls) and prints the same table from the
stores' cumulative stats.

    python bench/synth_cost.py --out runs/bench-synth-cost
    python bench/synth_cost.py --out runs/bench-synth-cost --models teacher --limit 10
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import anyio

from agent_sdk import VllmOptions, model_from_target
from synth.env import SynthConfig, synthesize_envs
from synth.sft import SftConfig, SftPipeline

REPO = Path(__file__).resolve().parents[1]
SLICE = REPO / "examples" / "synth_slice" / "slice.jsonl"
TOOL_DOCS = sorted((REPO / "examples" / "tool_docs").glob("*.json"))
"""The six example servers documented by their tool lists alone (one in Chinese): with three of them a teacher run
kept 3 rows, short of the 10 wanted."""


def _cost(stats: dict, kept: int) -> dict:
    llm = stats["llm_total"]
    tokens = llm["prompt_tokens"] + llm["completion_tokens"]
    wall = stats["wall_time_s_total"]
    per = (lambda x: round(x / kept, 1)) if kept else (lambda x: None)
    return {"kept": kept, "seconds": round(wall, 1), "llm_calls": llm["calls"], "tokens": tokens,
            "s_per_kept": per(wall), "calls_per_kept": per(llm["calls"]), "tokens_per_kept": per(tokens)}  # fmt: skip


async def run_model(target: str, out: Path, limit: int | None, concurrency: int, sft: bool) -> dict:
    """Both pipelines with one model served; their cumulative cost per kept item."""
    options = VllmOptions(max_model_len=8192)
    async with model_from_target(target, vllm_options=options, max_concurrency=concurrency) as llm:
        env = await synthesize_envs(
            llm, out / "env", inputs=[SLICE], limit=limit, config=SynthConfig(max_llm_concurrency=concurrency), show_progress=False
        )
        result = {"env": _cost(env.stats.model_dump(), env.stats.outputs), "env_funnel": {f.stage: f.accepted for f in env.stats.funnel}}
        if sft:
            stats = await SftPipeline(out / "sft", llm, config=SftConfig(concurrency=concurrency), show_progress=False).run(
                [str(p) for p in TOOL_DOCS]
            )
            result["sft"] = _cost(stats, stats["extra"]["funnel"]["trajectories_kept"])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "runs" / "bench-synth-cost")
    parser.add_argument("--models", nargs="+", default=["embedded", "teacher"], help="Model targets, baseline first.")
    parser.add_argument("--limit", type=int, default=None, help="Only the first N slice rows.")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--no-sft", action="store_true", help="Environment synthesis only.")
    args = parser.parse_args()
    results = {}
    for target in args.models:
        started = time.monotonic()
        results[target] = anyio.run(run_model, target, args.out / target, args.limit, args.concurrency, not args.no_sft)
        results[target]["bench_wall_s"] = round(time.monotonic() - started, 1)
    print(json.dumps(results, indent=2))
    base, *others = args.models
    for item in ("env", "sft"):
        for other in others:
            a, b = results[base].get(item), results[other].get(item)
            if not a or not b:
                continue
            kept = f"kept {a['kept']} -> {b['kept']}"
            ratios = ", ".join(
                f"{k} {b[k] / a[k]:.2f}x" if a[k] and b[k] else f"{k} {a[k]} -> {b[k]}" for k in ("s_per_kept", "calls_per_kept", "tokens_per_kept")
            )
            print(f"{item}: {other} / {base}: {kept}; {ratios}")


if __name__ == "__main__":
    main()
