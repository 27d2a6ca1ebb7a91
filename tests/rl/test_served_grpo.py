"""Served GRPO on CPU: the policy update on SmolLM2-135M, and whole steps against a real arena
with the policy served by agent_sdk's transformers backend (vLLM where the test installs none)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from agent_sdk import ChatMessage, ToolCall, Trajectory
from rl.reward import RewardParts
from rl.served import PolicyUpdate, Rollout, RolloutGroup, ServedRecipe, train_served_grpo

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]

TOOLS = [{"type": "function", "function": {"name": "get_forecast", "description": "Forecast for a city.",
          "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]


def _rollout(city: str, reward: float) -> Rollout:
    call = ToolCall(id="c1", name="get_forecast", arguments={"city": city})
    messages = [
        ChatMessage(role="user", content="What is the forecast for Porto?"),
        ChatMessage(role="assistant", content="", tool_calls=[call]),
        ChatMessage(role="tool", content="sunny", tool_call_id="c1", name="get_forecast"),
        ChatMessage(role="assistant", content="Sunny."),
    ]
    parts = RewardParts(reward=reward, n=1, n_hat=int(reward > 0), c=1, recall=reward, precision=reward)
    return Rollout(trajectory=Trajectory(task="What is the forecast for Porto?", messages=messages, tools=TOOLS), reward=parts)


def test_advantages_are_group_normalized():
    group = RolloutGroup.model_construct(task=None, rollouts=[_rollout("Porto", 1.0), _rollout("Lisbon", 0.0)])
    assert group.advantages() == pytest.approx([1.0, -1.0], abs=1e-5)
    flat = RolloutGroup.model_construct(task=None, rollouts=[_rollout("Porto", 0.5), _rollout("Lisbon", 0.5)])
    assert flat.advantages() == [0.0, 0.0]


def test_an_unanswered_rollout_trains_on_its_scaled_reward():
    answered, unanswered = _rollout("Porto", 0.5), _rollout("Porto", 0.6)
    answered.trajectory.stop_reason, unanswered.trajectory.stop_reason = "final_answer", "max_turns"
    astra = RolloutGroup.model_construct(task=None, rollouts=[answered, unanswered])
    assert astra.rewards == [0.5, 0.6] and astra.advantages()[1] > 0, "F1 alone: calling on to the turn limit wins"
    shaped = RolloutGroup.model_construct(task=None, rollouts=[answered, unanswered], unfinished_scale=0.0)
    assert shaped.rewards == [0.5, 0.0] and shaped.advantages() == pytest.approx([1.0, -1.0], abs=1e-5)
    assert unanswered.reward.reward == 0.6, "the logged F1 is not changed"


def test_update_raises_the_better_rollouts_likelihood(policy_dir):
    import torch

    from rl._models import load_model
    from rl._tokenize import tokenize_conversation

    model, tokenizer = load_model(str(policy_dir))
    good, bad = _rollout("Porto", 1.0), _rollout("Lisbon", 0.0)
    group = RolloutGroup.model_construct(task=None, rollouts=[good, bad])

    def logp(rollout: Rollout) -> float:
        chat = rollout.trajectory.to_openai()
        enc = tokenize_conversation(tokenizer, chat["messages"], chat["tools"])
        ids, mask = torch.tensor([enc["input_ids"]]), torch.tensor(enc["assistant_masks"][1:], dtype=torch.bool)
        with torch.no_grad():
            logits = model(ids).logits[0, :-1]
        return float(torch.log_softmax(logits, -1).gather(1, ids[0, 1:, None]).squeeze(1)[mask].sum())

    margin = logp(good) - logp(bad)
    update = PolicyUpdate(model, tokenizer, lr=1e-4, max_tokens=4096)
    for _ in range(3):
        stats = update.step([group])
        assert stats.samples == 2 and stats.tokens > 0 and math.isfinite(stats.loss) and stats.grad_norm > 0
    assert logp(good) - logp(bad) > margin + 1.0
    # a group without a learning signal changes nothing and costs no forward pass
    assert update.step([RolloutGroup.model_construct(task=None, rollouts=[good, good])]).samples == 0
    # a rollout over the length limit is left out and counted
    assert PolicyUpdate(model, tokenizer, lr=1e-4, max_tokens=16).step([group]).too_long == 2


@pytest.mark.anyio
async def test_steps_serve_roll_out_update_and_resume(envs_dir, policy_dir, tmp_path):
    from rl.datasets import prepare
    from rl.distractors import DistractorConfig

    data = tmp_path / "data"
    prepare(envs_dir, data, val_fraction=0.25, distractors=DistractorConfig(mode="random", random_min=1, random_max=1))
    recipe = ServedRecipe(
        data_dir=data, envs_dir=envs_dir, output_dir=tmp_path / "run", model=str(policy_dir), max_steps=1,
        prompts_per_step=1, group_size=2, max_turns=2, max_reply_tokens=24, batch_filling=False, backend="local",
        train_top_layers=2, torch_threads=1, val_every=1, val_episodes=1,
    )
    report = await train_served_grpo(recipe)
    assert report.steps == 1 and report.episodes == 2
    assert len(report.rewards) == 1 and 0.0 <= report.rewards[0] <= 1.0
    assert (tmp_path / "run" / "model" / "config.json").is_file()
    first = json.loads((tmp_path / "run" / "metrics.jsonl").read_text().splitlines()[0])
    assert first["step"] == 1 and first["episodes"] == 2 and first["serve_s"] >= 0
    # a second run with more steps resumes after the saved step, serving the saved weights
    report = await train_served_grpo(recipe.model_copy(update={"max_steps": 2}))
    steps = [json.loads(line)["step"] for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert steps == [1, 2] and report.steps == 2 and report.episodes == 4
    # the validation split was played by the starting weights and after each step, once each (not again on resume)
    val_envs = {json.loads(line)["env_id"] for line in (data / "val.jsonl").read_text().splitlines()}
    points = [json.loads(line) for line in (tmp_path / "run" / "validation.jsonl").read_text().splitlines()]
    assert [p["step"] for p in points] == [0, 1, 2] and report.validation == points
    assert all(p["tasks"] == len(val_envs) and p["episodes"] == len(val_envs) for p in points)
    assert all(0.0 <= p[k] <= 1.0 for p in points for k in ("reward", "recall", "answer_correct"))
    # the result is the best validated weights: the earliest step with the highest validation F1
    best = json.loads((tmp_path / "run" / "best.json").read_text())
    want = next(p for p in points if p["reward"] == max(q["reward"] for q in points))
    assert (best["step"], best["reward"]) == (want["step"], want["reward"]) and report.best_step == want["step"]
    assert report.model_dir == best["model_dir"] == (str(policy_dir) if want["step"] == 0 else str(tmp_path / "run" / "best"))
    assert Path(report.model_dir, "config.json").is_file()


@pytest.mark.anyio
async def test_a_policy_that_is_not_a_model_directory_is_named(envs_dir, tmp_path):
    from rl.datasets import prepare
    from rl.exceptions import TrainingSetupError

    data = tmp_path / "data"
    prepare(envs_dir, data, val_fraction=0.25)
    with pytest.raises(TrainingSetupError, match="not a Hugging Face model directory"):
        await train_served_grpo(ServedRecipe(data_dir=data, envs_dir=envs_dir, output_dir=tmp_path / "run", model=str(tmp_path)))


def test_the_clipped_objective_on_a_hand_computed_case():
    import torch

    from rl.served._update import clipped_objective

    logp, old = torch.log(torch.tensor([0.5, 0.9])), torch.log(torch.tensor([0.25, 0.9]))
    objective, gap = clipped_objective(logp, old, 1.0, 0.2)
    assert objective.tolist() == pytest.approx([1.2, 1.0]), "ratio 2 is clipped to 1.2 for a positive advantage"
    objective, _ = clipped_objective(logp, old, -1.0, 0.2)
    assert objective.tolist() == pytest.approx([-2.0, -1.0]), "and not for a negative one (the pessimistic bound)"
    assert gap["gap"] == pytest.approx(math.log(2)) and gap["clipped"] == 1 and gap["tokens"] == 2
    assert gap["kl"] == pytest.approx(0.5 - 1 + math.log(2), rel=1e-5), "k3 estimate exp(-d) - 1 + d"
    assert clipped_objective(logp, None, 0.5, 0.2)[0].tolist() == pytest.approx((0.5 * logp).tolist())


@pytest.mark.anyio
async def test_a_step_trains_on_exactly_the_ids_the_sampler_produced(envs, policy_dir):
    from agent_sdk import LocalChatModel
    from mcp_servers import serve_arena
    from rl._models import load_model
    from rl.datasets import build_tasks
    from rl.served._rollouts import RolloutSettings, play_group

    task = build_tasks(envs[:1])[0]
    sampler = LocalChatModel(str(policy_dir))
    async with serve_arena(envs[:1]) as arena:
        group = await play_group(sampler, arena.base_url, task, 2, RolloutSettings(max_turns=2, max_tokens=24, unfinished_scale=0.5))
    assert group.unfinished_scale == 0.5
    steps = [s for r in group.rollouts for s in r.trajectory.steps]
    assert steps and all(s.tokens is not None and len(s.tokens.logprobs) == len(s.tokens.completion_ids) > 0 for s in steps)
    # give the two rollouts different rewards, so both carry an advantage
    for rollout, reward in zip(group.rollouts, (1.0, 0.0), strict=True):
        rollout.reward = rollout.reward.model_copy(update={"reward": reward})
    model, tokenizer = load_model(str(policy_dir))
    update = PolicyUpdate(model, tokenizer, lr=1e-3, max_tokens=8192)
    samples, _, rerendered = update.samples([group])
    assert rerendered == 0
    # trained ids = sampled ids: every turn's prompt + completion is a sequence, or the head of one it shares
    sequences = [s.ids for s in samples]
    for step in steps:
        turn = [*step.tokens.prompt_ids, *step.tokens.completion_ids]
        assert any(ids[: len(turn)] == turn for ids in sequences)
    trained = [i for s in samples for i, target in zip(s.ids[1:], s.targets, strict=True) if target]
    assert trained == [i for step in steps for i in step.tokens.completion_ids]
    assert [lp for s in samples for lp in s.old_logprobs] == [lp for step in steps for lp in step.tokens.logprobs]
    before = [p.detach().clone() for p in update.parameters]
    stats = update.step([group])
    assert stats.turns == len(steps) and stats.samples <= len(steps) and stats.rerendered == 0
    assert stats.logprob_gap < 0.05, "the sampler is these weights, in the same precision: ratio ~1"
    assert any(not torch_equal(a, b) for a, b in zip(before, update.parameters, strict=True)), "the weights changed"


def _turns(*turns: tuple[list[int], list[int]]) -> Rollout:
    from agent_sdk import SampledTokens, Step

    steps = [Step(turn=i + 1, message_index=2 * i + 1, tokens=SampledTokens(prompt_ids=p, completion_ids=c, logprobs=[-0.5] * len(c)))
             for i, (p, c) in enumerate(turns)]
    return Rollout.model_construct(trajectory=Trajectory.model_construct(steps=steps), reward=None)


def test_turns_that_extend_the_previous_sequence_share_it():
    from rl.served._update import rollout_samples

    # turn 2's prompt is turn 1's prompt + completion + a tool result: one sequence
    rollout = _turns(([1, 2, 3], [4, 5]), ([1, 2, 3, 4, 5, 6, 7], [8]))
    (sample,), sampled = rollout_samples(rollout, 1.0, None)
    assert sampled and sample.turns == 2 and sample.ids == [1, 2, 3, 4, 5, 6, 7, 8]
    assert sample.targets == [False, False, True, True, False, False, True] and sample.old_logprobs == [-0.5] * 3
    # a re-rendered earlier turn (the template wrote the call differently) starts its own sequence
    rerendered = _turns(([1, 2, 3], [4, 5]), ([1, 2, 3, 9, 5, 6, 7], [8]))
    assert [s.ids for s in rollout_samples(rerendered, 1.0, None)[0]] == [[1, 2, 3, 4, 5], [1, 2, 3, 9, 5, 6, 7, 8]]
    # and so does a turn that would make the shared sequence longer than the budget
    assert len(rollout_samples(rollout, 1.0, None, max_tokens=7)[0]) == 2


def torch_equal(a, b) -> bool:
    import torch

    return bool(torch.equal(a, b.detach()))


class _GradientCapture:
    """An optimizer stand-in that keeps the gradients it was asked to apply."""

    def __init__(self, parameters) -> None:
        self.parameters, self.grads = parameters, []

    def step(self) -> None:
        self.grads = [p.grad.detach().clone() for p in self.parameters]

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.parameters:
            p.grad = None


@pytest.mark.parametrize("top_layers", [2, None])
def test_a_groups_shared_prompt_encoded_once_gives_the_same_gradient(policy_dir, top_layers):
    import torch

    from rl._models import load_model, train_top_layers

    prompt = list(range(200, 240))
    rollouts = [
        _turns((prompt, [7, 8, 9]), ([*prompt, 7, 8, 9, 300, 301], [10, 11])),
        _turns((prompt, [12, 13])),
        _turns((prompt, [14]), ([*prompt, 99, 302], [15, 16])),  # a re-rendered turn: its own sequence, same prefix
    ]
    for rollout, reward in zip(rollouts, (1.0, 0.0, 0.25), strict=True):
        rollout.reward = RewardParts(reward=reward, n=1, n_hat=0, c=1, recall=reward, precision=reward)
    group = RolloutGroup.model_construct(task=None, rollouts=rollouts)
    results = {}
    for share in (True, False):
        model, tokenizer = load_model(str(policy_dir))
        if top_layers:
            train_top_layers(model, top_layers)
        update = PolicyUpdate(model, tokenizer, lr=1e-4, max_tokens=4096, share_prefix=share)
        update.optimizer = _GradientCapture(update.parameters)
        results[share] = (update.step([group]), update.optimizer.grads)
    (shared, shared_grads), (separate, separate_grads) = results[True], results[False]
    assert shared.samples == separate.samples == 4 and shared.tokens == separate.tokens
    # the prompt up to the token before the first sampled one (whose hidden state predicts it), for 3 more sequences
    assert shared.shared_prefix_tokens == 39 * 3 and separate.shared_prefix_tokens == 0
    assert shared.loss == pytest.approx(separate.loss, rel=1e-4)
    assert shared.logprob_gap == pytest.approx(separate.logprob_gap, rel=1e-4)
    for a, b in zip(shared_grads, separate_grads, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-3, atol=1e-6)


def test_the_best_validated_weights_are_kept_and_survive_a_resume(tmp_path):
    from rl.served._trainer import _Run, _State

    start = tmp_path / "cold_start"
    start.mkdir()
    recipe = ServedRecipe(data_dir=tmp_path, envs_dir=tmp_path, output_dir=tmp_path / "run", model=str(start), max_steps=4)
    recipe.output_dir.mkdir()
    run = _Run(recipe, [], [])
    run.policy_dir = str(start)
    run._keep_best(0, 0.25)
    assert run.best.model_dump() == {"step": 0, "reward": 0.25, "model_dir": str(start)}  # the starting weights stay where they are
    run.model_dir.mkdir()
    (run.model_dir / "weights").write_text("after step 2")
    run._keep_best(2, 0.5)
    (run.model_dir / "weights").write_text("after step 3")  # the next update overwrites model/, not best/
    assert (recipe.output_dir / "best" / "weights").read_text() == "after step 2"
    (recipe.output_dir / "state.json").write_text(_State(steps=3).model_dump_json())
    (recipe.output_dir / "validation.jsonl").write_text("")
    (recipe.output_dir / "metrics.jsonl").write_text("")
    resumed = _Run(recipe, [], [])
    assert resumed.best.model_dump() == {"step": 2, "reward": 0.5, "model_dir": str(recipe.output_dir / "best")}
