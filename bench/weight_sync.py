"""Weight sync for served GRPO: loading new weights into a running vLLM vs restarting it on them.

Serves a model with `VllmOptions(weight_reload=True)`, saves a perturbed copy of its weights
(so the reload has to change something), times `ServedModel.reload_weights` onto the copy and
checks that a greedy reply changed, then times a stop plus a fresh start on the copy (the
baseline, measured in the same run, with the compile cache warm). Prints both and the ratio.

    python bench/weight_sync.py [--model DIR] [--work DIR]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import anyio

from agent_sdk import ChatMessage, OpenAIChatModel, SamplingSettings, VllmOptions, embedded_model_dir, serve_model

PROMPT = [ChatMessage(role="user", content="Name three rivers of Europe.")]


def perturbed_copy(source: Path, target: Path) -> None:
    """`source` with every weight of its last decoder layer scaled, saved to `target`."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(str(source), dtype=torch.float32)
    with torch.no_grad():
        for p in model.model.layers[-1].parameters():
            p.mul_(1.5)
    model.save_pretrained(str(target))
    AutoTokenizer.from_pretrained(str(source)).save_pretrained(str(target))


async def reply(base_url: str, name: str) -> str:
    model = OpenAIChatModel(name, base_url=base_url, settings=SamplingSettings(temperature=0.0, max_tokens=24))
    try:
        return (await model.complete(PROMPT, [])).message.content or ""
    finally:
        await model.aclose()


async def main(model_dir: Path, work: Path) -> None:
    copy = work / "perturbed"
    await anyio.to_thread.run_sync(perturbed_copy, model_dir, copy)
    options = VllmOptions(weight_reload=True)
    async with serve_model(model_dir, backend="vllm", options=options, log_path=work / "vllm.log") as served:
        before = await reply(served.base_url, served.model_name)
        started = time.monotonic()
        await served.reload_weights(copy)
        reload_s = time.monotonic() - started
        after = await reply(served.base_url, served.model_name)
        started = time.monotonic()
    async with serve_model(copy, backend="vllm", options=options, log_path=work / "vllm.log") as restarted:
        restart_s = time.monotonic() - started
        fresh = await reply(restarted.base_url, restarted.model_name)
    print(f"reload in place   {reload_s:7.1f} s   reply changed: {before != after}; same as a fresh server: {after == fresh}")
    print(f"stop + restart    {restart_s:7.1f} s   (baseline)")
    print(f"ratio             {restart_s / reload_s:7.1f}x faster in place")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=None, help="a Hugging Face model directory (default: the embedded model)")
    parser.add_argument("--work", type=Path, default=None, help="scratch directory (default: a temporary one)")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="weight-sync-"))
    try:
        anyio.run(main, args.model or embedded_model_dir(), work)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
