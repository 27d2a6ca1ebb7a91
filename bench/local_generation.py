"""Generation throughput of the embedded model: one stream vs concurrent episodes.

Transformers (`LocalChatModel`): one request alone, then N concurrent requests that the
backend batches into one `generate`. vLLM (when installed, or at `--vllm-url`): one stream,
then 8 and 16 concurrent requests. Prints tokens/s and the ratios against one stream of
plain transformers, the baseline measured in the same run.

    python bench/local_generation.py [--max-tokens 48] [--batch 8] [--vllm-url URL] [--skip-vllm]
"""

from __future__ import annotations

import argparse
import time
from contextlib import AsyncExitStack

import anyio

from agent_sdk import ChatMessage, ChatModel, OpenAIChatModel, SamplingSettings
from agent_sdk import VllmOptions, find_vllm_python, serve_model

TOPICS = [
    "a lighthouse", "a lost key", "a train station", "an old map", "a bakery", "a storm", "a violin", "a garden",
    "a mountain hut", "a city library", "a fishing boat", "a night market", "a desert road", "a clock tower",
    "a snowy forest", "a bicycle repair shop",
]  # fmt: skip


def prompts(n: int) -> list[list[ChatMessage]]:
    """`n` short prompts that make the model write at length (distinct up to 16)."""
    return [
        [ChatMessage(role="user", content=f"Describe {TOPICS[i % len(TOPICS)]} in one long paragraph.")]
        for i in range(n)
    ]


async def throughput(model: ChatModel, n: int, max_tokens: int) -> tuple[float, int, float]:
    """Run `n` requests concurrently; return (tokens/s, tokens, seconds)."""
    settings = SamplingSettings(max_tokens=max_tokens, temperature=0)
    tokens = 0

    async def one(messages: list[ChatMessage]) -> None:
        nonlocal tokens
        response = await model.complete(messages, None, settings=settings)
        tokens += response.usage.completion_tokens

    started = time.perf_counter()
    async with anyio.create_task_group() as tg:
        for messages in prompts(n):
            tg.start_soon(one, messages)
    elapsed = time.perf_counter() - started
    return tokens / elapsed, tokens, elapsed


def report(label: str, result: tuple[float, int, float], baseline: float | None) -> None:
    rate, tokens, elapsed = result
    ratio = f"{rate / baseline:6.1f}x" if baseline else "   base"
    print(f"{label:<34} {rate:8.1f} tok/s  {tokens:5d} tokens in {elapsed:6.1f}s  {ratio}", flush=True)


async def main(args: argparse.Namespace) -> None:
    baseline = None
    if not args.skip_transformers:
        from agent_sdk import LocalChatModel

        started = time.perf_counter()
        local = LocalChatModel("embedded", max_batch_size=args.batch, dtype=args.dtype, threads=args.threads)
        print(f"transformers: cached embedded model loaded in {time.perf_counter() - started:.1f}s", flush=True)
        await throughput(local, 1, 4)  # warm-up
        single = await throughput(local, 1, args.max_tokens)
        baseline = single[0]
        report("transformers, 1 stream", single, baseline)
        report(f"transformers, {args.batch} concurrent (batched)", await throughput(local, args.batch, args.max_tokens), baseline)
    if args.skip_vllm:
        return
    async with AsyncExitStack() as stack:
        url, name = args.vllm_url, args.vllm_model
        if url is None:
            if find_vllm_python() is None:
                print("vLLM: not installed (scripts/install_vllm.sh), skipped")
                return
            started = time.perf_counter()
            served = await stack.enter_async_context(serve_model("embedded", backend="vllm", options=VllmOptions()))
            print(f"vLLM: started in {time.perf_counter() - started:.0f}s", flush=True)
            url, name = served.base_url, served.model_name
        client = OpenAIChatModel(name, base_url=url, timeout_s=600, max_concurrency=64)
        await throughput(client, 1, 4)  # warm-up
        for n in (1, *args.concurrency):
            report(f"vLLM, {n} concurrent", await throughput(client, n, args.max_tokens), baseline)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--max-tokens", type=int, default=48)
    parser.add_argument("--batch", type=int, default=8, help="Concurrent requests for transformers.")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[8, 16], help="Concurrent requests for vLLM.")
    parser.add_argument("--vllm-url", help="Use a running server instead of starting one, e.g. http://127.0.0.1:8011/v1.")
    parser.add_argument("--vllm-model", default=None, help="Model name at --vllm-url (default: its first).")
    parser.add_argument("--dtype", default=None, help="Transformers dtype (default: bfloat16 where the CPU supports it).")
    parser.add_argument("--threads", type=int, default=None, help="Torch threads (default: torch's choice).")
    parser.add_argument("--skip-transformers", action="store_true")
    parser.add_argument("--skip-vllm", action="store_true")
    anyio.run(main, parser.parse_args())
