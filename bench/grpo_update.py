"""The served GRPO update with a group's shared prompt encoded once, against encoding it per sequence.

Builds GRPO groups the way a `cpu-small` step sees them: the prompts of the prepared training
rows of `--envs` (system, task, the environment's tools and its banded distractors, rendered by the
student's chat template), `--group-size` rollouts each, every rollout two turns (a tool call, a
tool result, an answer) of sampled-length token runs; the rewards differ so every rollout carries
an advantage. Then times `PolicyUpdate.step` on the embedded student with its top 4 layers trained,
`share_prefix=True` and `False` alternately on the same groups, and prints each mode's median
step and the ratio. The gradient of both modes is the same (tests/rl/test_served_grpo.py).

    python bench/grpo_update.py [--envs examples/train_envs] [--groups 2] [--group-size 4] [--repeats 3]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from agent_sdk import SampledTokens, Step, Trajectory
from rl import get_preset, load_policy, prepare
from rl.datasets import load_envs, read_trl_tasks, task_tools
from rl.reward import RewardParts
from rl.served import PolicyUpdate, Rollout, RolloutGroup


def rollout(prompt: list[int], rng: random.Random, vocab: int, reward: float) -> Rollout:
    """Two sampled turns after `prompt`: a call of 30-60 tokens, a tool result of 80-160, an answer of 20-50."""
    call = [rng.randrange(vocab) for _ in range(rng.randint(30, 60))]
    result = [rng.randrange(vocab) for _ in range(rng.randint(80, 160))]
    answer = [rng.randrange(vocab) for _ in range(rng.randint(20, 50))]
    second = [*prompt, *call, *result]
    steps = [
        Step(turn=1, message_index=1, tokens=SampledTokens(prompt_ids=prompt, completion_ids=call, logprobs=[-1.0] * len(call))),
        Step(turn=2, message_index=3, tokens=SampledTokens(prompt_ids=second, completion_ids=answer, logprobs=[-1.0] * len(answer))),
    ]
    parts = RewardParts(reward=reward, n=1, n_hat=0, c=1, recall=reward, precision=reward)
    return Rollout.model_construct(trajectory=Trajectory.model_construct(steps=steps), reward=parts)


def main(envs_dir: Path, groups: int, group_size: int, repeats: int) -> None:
    preset = get_preset("cpu-small")
    model, tokenizer = load_policy("embedded", torch_threads=preset.torch_threads, top_layers=preset.grpo.train_top_layers)
    with tempfile.TemporaryDirectory(prefix="grpo-update-") as tmp:
        prepare(envs_dir, Path(tmp))
        tasks = read_trl_tasks(Path(tmp) / "train.jsonl")[:groups]
    envs = {e.spec.id: e for e in load_envs(envs_dir)}
    rng = random.Random(0)
    batch = []
    for task in tasks:
        prompt = tokenizer.apply_chat_template(task.prompt, tools=task_tools(task, envs), add_generation_prompt=True, tokenize=True, return_dict=False)
        rewards = [i / max(group_size - 1, 1) for i in range(group_size)]
        batch.append(RolloutGroup.model_construct(task=None, rollouts=[rollout(prompt, rng, len(tokenizer), r) for r in rewards]))
    prompts = [len(g.rollouts[0].trajectory.steps[0].tokens.prompt_ids) for g in batch]
    print(f"{len(batch)} groups x {group_size} rollouts, prompts of {prompts} tokens; student, top {preset.grpo.train_top_layers} layers trained")
    timings: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(repeats):
        for share in (False, True):
            update = PolicyUpdate(model, tokenizer, lr=0.0, max_tokens=preset.grpo.max_prompt_length + preset.grpo.max_response_length, share_prefix=share)
            started = time.monotonic()
            stats = update.step(batch)
            timings[share].append(time.monotonic() - started)
            print(f"share_prefix={share!s:5}  {timings[share][-1]:6.1f} s  ({stats.samples} sequences, {stats.tokens} trained tokens, {stats.shared_prefix_tokens} prompt tokens not re-encoded)")
    separate, shared = statistics.median(timings[False]), statistics.median(timings[True])
    print(f"median update: per sequence {separate:.1f} s, shared prompt {shared:.1f} s; ratio {separate / shared:.2f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=Path, default=Path(__file__).resolve().parents[1] / "examples" / "train_envs")
    parser.add_argument("--groups", type=int, default=2)
    parser.add_argument("--group-size", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    main(args.envs, args.groups, args.group_size, args.repeats)
