"""Cost of schema-constrained decoding in `LocalChatModel` (llguidance) against free decoding.

Runs the same prompts twice with the embedded model, greedy, in one batch: once free and
once under a JSON Schema (a verdict object with a long free-text field, so both runs write
about as many tokens). Prints tokens/s of each and their ratio, measured in the same run, and
whether every constrained reply parsed and validated. The grammar's one-off setup (tokenizer
conversion, schema compilation) happens in a warm-up request that is not timed.

    python bench/structured_generation.py [--max-tokens 64] [--batch 4]
"""

from __future__ import annotations

import argparse
import time

import anyio
from pydantic import BaseModel, ValidationError

from agent_sdk import ChatMessage, LocalChatModel, SamplingSettings

CLAIMS = [
    "The Eiffel Tower is in Berlin.", "Water boils at 100 degrees Celsius at sea level.",
    "Python lists are immutable.", "The moon orbits the Earth.", "Spiders are insects.",
    "HTTP 404 means the server crashed.", "Paris is the capital of France.", "A byte has 8 bits.",
]  # fmt: skip


class Review(BaseModel):
    """What the constrained run must write."""

    verdict: bool
    confidence: int
    explanation: str


def prompts(n: int) -> list[list[ChatMessage]]:
    """`n` requests to judge a claim and explain at length."""
    ask = "Is this claim true? Give a verdict, a confidence from 1 to 5 and a detailed explanation of several sentences: "
    return [[ChatMessage(role="user", content=ask + CLAIMS[i % len(CLAIMS)])] for i in range(n)]


async def run(model: LocalChatModel, n: int, settings: SamplingSettings) -> tuple[float, list[str]]:
    """Run `n` requests concurrently (one batch); return tokens/s and the replies."""
    replies: list[str] = [""] * n
    tokens = 0

    async def one(i: int, messages: list[ChatMessage]) -> None:
        nonlocal tokens
        response = await model.complete(messages, settings=settings)
        replies[i] = response.message.content or ""
        tokens += response.usage.completion_tokens

    started = time.perf_counter()
    async with anyio.create_task_group() as tg:
        for i, messages in enumerate(prompts(n)):
            tg.start_soon(one, i, messages)
    return tokens / (time.perf_counter() - started), replies


def valid(reply: str) -> bool:
    """Whether a reply is a complete, valid `Review`."""
    try:
        Review.model_validate_json(reply)
    except ValidationError:
        return False
    return True


async def main(max_tokens: int, batch: int) -> None:
    model = LocalChatModel("embedded", max_batch_size=batch)
    free = SamplingSettings(max_tokens=max_tokens, temperature=0)
    constrained = free.model_copy(update={"output_schema": Review.model_json_schema()})
    await model.complete(prompts(1)[0], settings=constrained.model_copy(update={"max_tokens": 4}))
    free_rate, _ = await run(model, batch, free)
    constrained_rate, replies = await run(model, batch, constrained)
    print(f"free         {free_rate:7.2f} tok/s")
    print(f"constrained  {constrained_rate:7.2f} tok/s  ratio {constrained_rate / free_rate:.2f}")
    finished = sum(valid(r) for r in replies)
    print(f"constrained replies valid: {finished}/{batch} (the others ran out of max_tokens={max_tokens} mid-object)")
    print("example:", replies[0][:200])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--batch", type=int, default=4)
    args = parser.parse_args()
    anyio.run(main, args.max_tokens, args.batch)
