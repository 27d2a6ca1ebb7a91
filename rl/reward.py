"""The trajectory-level F1 reward of docs/design.md §6, returned with its parts.

For an episode with n target subtasks (those with `needs_tool`), n_hat of them solved and c
tool calls made: recall = n_hat / n, precision = n_hat / c and

    reward = 2 · recall · precision / (recall + precision) = 2 · n_hat / (n + c),

0 when nothing is solved. A subtask is solved when a successful call to its tool (the tool of
its golden call) returned output containing its normalized answer; answers are matched by the
same function `verify` uses to check that golden calls produce them, so a verified
environment's golden trajectory always scores 1. Every call counts in c: failed calls,
unknown tools and calls to distractor tools (which never solve a subtask) included. One call
solves at most one subtask (subtasks are matched to calls by a maximum bipartite matching),
so n_hat <= c and the reward stays in [0, 1] even when one output contains two answers.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

from pydantic import BaseModel, Field

from agent_sdk import ToolCallRecord, Trajectory
from mcp_servers import EnvSpec, answer_in_output

__all__ = ["RewardParts", "answer_correctness", "answer_values", "f1_from_counts", "f1_reward", "subtask_solved_by"]


class RewardParts(BaseModel):
    """The F1 reward and what it was computed from, for logging."""

    reward: float = Field(ge=0.0, le=1.0, description="2·n_hat/(n+c), 0 when n_hat = 0.")
    n: int = Field(ge=0, description="Target subtasks (needs_tool = true).")
    n_hat: int = Field(ge=0, description="Target subtasks solved.")
    c: int = Field(ge=0, description="Tool calls made, distractors and failures included.")
    recall: float = Field(ge=0.0, le=1.0, description="n_hat / n (0 when n = 0).")
    precision: float = Field(ge=0.0, le=1.0, description="n_hat / c (0 when c = 0).")
    hits: dict[str, bool] = Field(default_factory=dict, description="Per target subtask id: solved or not.")


def f1_from_counts(n: int, n_hat: int, c: int) -> float:
    """2·n_hat/(n+c), or 0 when nothing is solved.

    Raises:
        ValueError: for counts that cannot come from an episode (n_hat > n or n_hat > c, negatives).
    """
    if min(n, n_hat, c) < 0 or n_hat > n or n_hat > c:
        raise ValueError(f"impossible counts: n={n}, n_hat={n_hat}, c={c}")
    if n_hat == 0:
        return 0.0
    return 2.0 * n_hat / (n + c)


def subtask_solved_by(record: ToolCallRecord, tool: str, answer: str, distractor_names: Collection[str] = ()) -> bool:
    """Whether one recorded call solves a subtask whose golden tool is `tool` with answer `answer`."""
    if record.call.name in distractor_names or not record.result.ok:
        return False
    if tool not in (record.result.tool, record.call.name):
        return False
    return answer_in_output(answer, _output_text(record))


def f1_reward(trajectory: Trajectory, spec: EnvSpec, distractor_names: Collection[str] = ()) -> RewardParts:
    """Score `trajectory` on the environment `spec`.

    Args:
        trajectory: the episode (its recorded tool calls are what count).
        spec: the environment whose target subtasks define n.
        distractor_names: exposed names of distractor tools offered in the episode; calls
            to them count in c and never solve a subtask, even when a distractor shares a
            name with one of the environment's tools on another server.
    """
    records = trajectory.tool_calls
    targets = spec.target_subtasks
    candidates: dict[str, list[int]] = {}
    for subtask in targets:
        tool = subtask.golden_call.tool if subtask.golden_call is not None else ""
        candidates[subtask.id] = [
            i for i, r in enumerate(records) if subtask_solved_by(r, tool, subtask.answer, distractor_names)
        ]
    matched = _max_matching(candidates)
    hits = {subtask.id: subtask.id in matched for subtask in targets}
    n, c = len(targets), len(records)
    n_hat = len(matched)
    return RewardParts(
        reward=f1_from_counts(n, n_hat, c),
        n=n,
        n_hat=n_hat,
        c=c,
        recall=n_hat / n if n else 0.0,
        precision=n_hat / c if c else 0.0,
        hits=hits,
    )


def _max_matching(candidates: dict[str, list[int]]) -> dict[str, int]:
    """Subtask id -> call index, a maximum matching (augmenting paths; episodes are small)."""
    owner: dict[int, str] = {}

    def assign(subtask: str, seen: set[int]) -> bool:
        for call in candidates[subtask]:
            if call in seen:
                continue
            seen.add(call)
            if call not in owner or assign(owner[call], seen):
                owner[call] = subtask
                return True
        return False

    for subtask in candidates:
        assign(subtask, set())
    return {subtask: call for call, subtask in owner.items()}


def _output_text(record: ToolCallRecord) -> str:
    """The call's text output, plus the leaf values of its structured output.

    Leaves are added because JSON text escapes quotes and backslashes that an answer may contain.
    """
    text = record.result.text
    structured = record.result.structured
    if structured is None:
        return text
    return text + "\n" + " | ".join(_leaves(structured))


def _leaves(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    if isinstance(value, str):
        return [value]
    return [json.dumps(value)]


def answer_values(spec: EnvSpec) -> list[str]:
    """The values the task's answer states: its leaf sub-answers that it contains, else the whole answer.

    A leaf is a subtask no other one depends on; the meaning checks make a synthesized answer hold
    every leaf, and an authored answer that is one value is that value.
    """
    used = {d for s in spec.subtasks for d in s.depends_on}
    leaves = [s.answer for s in spec.subtasks if s.id not in used and answer_in_output(s.answer, spec.task.answer)]
    return list(dict.fromkeys(leaves)) or [spec.task.answer]


def answer_correctness(final_answer: str | None, spec: EnvSpec) -> float:
    """The share of the task's answer values (`answer_values`) that the final message states.

    Matched as verify matches answers (`answer_in_output`: casefold, NFKC, canonical numbers,
    whole ASCII words, CJK anywhere). 0 when the episode ended without a final message.
    """
    if not final_answer:
        return 0.0
    values = answer_values(spec)
    return sum(answer_in_output(v, final_answer) for v in values) / len(values)
