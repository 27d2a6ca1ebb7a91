"""Judges measured: pairwise accuracy and score spread on good / planted-bad twins.

A judge that gives its lowest score beside a reason that praises the item tells nothing. The
calibration set (`examples/calibration/`, its README) holds pairs of a good item and a twin that
differs only in one planted flaw. Each judge scores both twins as the pipeline would; a pair is
ranked right when the good twin scores strictly higher (a tie is wrong: the judge did not see the
flaw, and a judge that fails closed scores 0). Judges:

- `sft_trajectory`: the seven-dimension trajectory judge (`synth.sft.judge_trajectory`);
- `task`: the task scorer of SFT synthesis (mean of its three 1-5 scores);
- `decomposition`: what env synthesis decides of a decomposition: its mechanical repairs and
  trace rules first (a trace they reject scores 0, as the pipeline rejects it at decompose), then
  the mean of the five judged verdicts on the repaired trace, on every pair. A pair whose bad twin
  the repairs turn into its good twin (a dependency declared but not used, or used but not
  declared) is counted right and reported as `repaired`: no judge ever sees the flaw;
- `dependency`, `atomicity`, `completeness`, `coherence`: one check each, on the pairs whose
  planted flaw it exists to catch (smaller questions, each measured alone).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, Literal

import anyio
from pydantic import BaseModel, ConfigDict, Field

from agent_sdk import read_jsonl
from synth.env._judge import CHECKS, judge_check, repair, scenario_of, trace_problem
from synth.env.config import SynthConfig
from synth.env.records import CheckName, Decomposition, Failure, Sample, Seed, SubQuestion
from synth.sft import ServerDoc, ServerSource, SynthTask, ToolDoc, judge_trajectory
from synth.sft._tasks import score_task

__all__ = ["CALIBRATION_FILES", "JUDGES", "CalibrationPair", "JudgeCalibration", "calibrate", "load_pairs"]

JudgeName = Literal["sft_trajectory", "task", "decomposition", "dependency", "atomicity", "completeness", "coherence"]

CALIBRATION_FILES: dict[str, str] = {"sft_trajectory": "sft_trajectory.jsonl", "task": "task.jsonl", "decomposition": "decomposition.jsonl"}
"""The file of each item kind in a calibration directory."""

_CHECK_KINDS: dict[CheckName, str] = {
    "dependency": "wrong_dependency",
    "atomicity": "non_atomic",
    "completeness": "describes_answer",
    "coherence": "incoherent",
}

JUDGES: dict[str, tuple[str, str | None]] = {
    "sft_trajectory": ("sft_trajectory", None),
    "task": ("task", None),
    "decomposition": ("decomposition", None),
    **{check: ("decomposition", kind) for check, kind in _CHECK_KINDS.items()},
}
"""Judge name -> (the file its pairs come from, the one planted kind it is measured on or None for all)."""


class CalibrationPair(BaseModel):
    """One good item and its planted-bad twin (a line of a calibration file)."""

    model_config = ConfigDict(extra="allow")

    id: str
    kind: str = Field(description="The planted flaw, e.g. wrong_tool, non_atomic, off_server.")
    language: str = "en"
    good: Any
    bad: Any


class JudgeCalibration(BaseModel):
    """One judge's measurement."""

    judge: str
    pairs: int
    ranked_right: int = Field(description="Pairs where the good twin scored strictly higher.")
    ties: int
    accuracy: float = Field(description="ranked_right / pairs.")
    good_mean: float
    bad_mean: float
    spread: float = Field(description="good_mean - bad_mean: how far apart the judge puts the twins, on its [0, 1] scale.")
    unscored: int = Field(description="Items the judge failed to score (counted as 0: judges fail closed).")
    repaired: int = Field(default=0, description="Pairs ranked right because the pipeline's repairs turn the bad twin into the good one.")
    by_kind: dict[str, float] = Field(default_factory=dict, description="Accuracy per planted kind.")
    misranked: list[str] = Field(default_factory=list, description="Ids of the pairs ranked wrong or tied.")


def load_pairs(root: Path, file_kind: str) -> list[CalibrationPair]:
    """The pairs of one calibration file (`CALIBRATION_FILES`) under `root`.

    Raises:
        JsonlError: a line is not JSON or not a pair, naming file and line.
    """
    return [CalibrationPair.model_validate(row) for row in read_jsonl(root / CALIBRATION_FILES[file_kind]).values]


Scorer = Callable[[CalibrationPair, Any], Awaitable[float | None]]


async def _trajectory_score(model: Any, pair: CalibrationPair, item: dict[str, Any]) -> float | None:
    verdict = await judge_trajectory(model, item["messages"], error_call_ids=set(item.get("error_call_ids") or []))
    return verdict.score if verdict.judged else None


async def _task_score(model: Any, pair: CalibrationPair, question: str) -> float | None:
    extra = pair.model_extra or {}
    server = extra["server"]
    doc = ServerDoc(
        id="srv-calibration", name=server["name"], description=server.get("description", ""), language=pair.language,
        tools=[ToolDoc(**t) for t in server["tools"]], source=ServerSource(kind="openai_schemas", ref=f"calibration:{pair.id}"),
    )  # fmt: skip
    task = SynthTask(id=pair.id, server_id=doc.id, kind="server", question=question, target_tools=extra.get("target_tools", []),
                     language=pair.language)  # fmt: skip
    result = await score_task(model, doc, task)
    if result.value is None:
        return None
    s = result.value
    return (s.question_quality + s.scenario_realism + s.tool_necessity - 3) / 12


def _trace(item: dict[str, Any]) -> Decomposition:
    subs = [SubQuestion(id=q["id"], question=q["question"], answer=q["answer"], depends_on=q.get("depends_on", [])) for q in item["sub_questions"]]
    return Decomposition(main_question=item["main_question"], final_answer=item["final_answer"], sub_questions=subs)


def _sample(pair: CalibrationPair, trace: Decomposition) -> Sample:
    extra = pair.model_extra or {}
    seed = Seed(id=f"cal-{pair.id}", mode="question", domain=extra.get("domain", "general"), language=pair.language,
                question=trace.main_question, min_hops=1, max_hops=12, ref=f"calibration:{pair.id}")  # fmt: skip
    scenario, subs = scenario_of(trace.sub_questions)
    return Sample(id=seed.id, seed=seed, question=trace.main_question, answer=trace.final_answer, scenario=scenario, sub_questions=subs)


def repaired_alike(pair: CalibrationPair) -> bool:
    """Whether the pipeline's repairs turn a decomposition pair's bad twin into its good twin."""
    return repair(_trace(pair.bad)) == repair(_trace(pair.good))


async def _checks_score(model: Any, checks: Sequence[CheckName], trace: Decomposition, pair: CalibrationPair) -> float | None:
    sample = _sample(pair, trace)
    config = SynthConfig(leak_audit=False)
    scores = []
    for name in checks:
        judged = await judge_check(model, sample, name, config)
        if isinstance(judged, Failure):
            return None
        scores.append(judged.score)
    return sum(scores) / len(scores)


async def _score(model: Any, judge: str, pair: CalibrationPair, item: Any) -> float | None:
    if judge == "sft_trajectory":
        return await _trajectory_score(model, pair, item)
    if judge == "task":
        return await _task_score(model, pair, item)
    if judge != "decomposition":
        return await _checks_score(model, (judge,), _trace(item), pair)  # type: ignore[arg-type]
    trace = _trace(item)
    if trace_problem(trace, _sample(pair, trace).seed) is not None:
        return 0.0
    return await _checks_score(model, CHECKS, repair(trace), pair)


async def calibrate(
    model: Any, root: Path, *, judges: Sequence[str] | None = None, limit: int | None = None, concurrency: int = 8
) -> list[JudgeCalibration]:
    """Score every pair of `root` with each judge and measure how well the judge ranks them.

    Args:
        model: the judge `ChatModel` (the teacher by default in the CLI).
        root: a calibration directory (`CALIBRATION_FILES`).
        judges: which judges (`JUDGES`; default all).
        limit: at most this many pairs per judge (the first ones of each file).
        concurrency: items scored at once.

    Raises:
        ValueError: an unknown judge name.
    """
    names = list(judges or JUDGES)
    unknown = [j for j in names if j not in JUDGES]
    if unknown:
        raise ValueError(f"unknown judge(s) {unknown}; judges are {', '.join(JUDGES)}")
    cache: dict[str, list[CalibrationPair]] = {}
    limiter = anyio.CapacityLimiter(concurrency)
    results: list[JudgeCalibration] = []
    for judge in names:
        file_kind, kind = JUDGES[judge]
        if file_kind not in cache:
            cache[file_kind] = load_pairs(root, file_kind)
        pairs = [p for p in cache[file_kind] if kind is None or p.kind == kind][:limit]
        repaired = {p.id for p in pairs if judge == "decomposition" and repaired_alike(p)}
        scores: dict[tuple[str, str], float | None] = {}

        async def one(pair: CalibrationPair, side: str, judge: str = judge) -> None:
            async with limiter:
                scores[(pair.id, side)] = await _score(model, judge, pair, getattr(pair, side))

        async with anyio.create_task_group() as tg:
            for pair in pairs:
                for side in ("good", "bad") if pair.id not in repaired else ():
                    tg.start_soon(one, pair, side)
        results.append(_measure(judge, pairs, scores, repaired))
    return results


def _measure(
    judge: str, pairs: list[CalibrationPair], scores: dict[tuple[str, str], float | None], repaired: set[str]
) -> JudgeCalibration:
    right, ties, misranked = 0, 0, []
    per_kind: dict[str, list[bool]] = defaultdict(list)
    good, bad = [], []
    for pair in pairs:
        if pair.id in repaired:
            right += 1
            per_kind[pair.kind].append(True)
            continue
        g, b = scores[(pair.id, "good")] or 0.0, scores[(pair.id, "bad")] or 0.0
        good.append(g)
        bad.append(b)
        ok = g > b
        right += ok
        ties += g == b
        per_kind[pair.kind].append(ok)
        if not ok:
            misranked.append(pair.id)
    n, scored = len(pairs) or 1, len(good) or 1
    return JudgeCalibration(
        judge=judge, pairs=len(pairs), ranked_right=right, ties=ties, accuracy=right / n,
        good_mean=sum(good) / scored, bad_mean=sum(bad) / scored, spread=(sum(good) - sum(bad)) / scored,
        unscored=sum(v is None for v in scores.values()), repaired=len(repaired),
        by_kind={k: sum(v) / len(v) for k, v in sorted(per_kind.items())}, misranked=misranked,
    )  # fmt: skip
