"""Stages 1-3: decompose, tool necessity, the four quality checks. Each fails closed."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from synth.core import ask_structured, format_validation_error, record_id
from synth.env import prompts
from synth.env._code import normalize_answer
from synth.env.config import SynthConfig
from synth.env.records import CheckName, Decomposition, Failure, Judgement, Necessity, Sample, Scenario, Seed, SubQuestion

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
CHECKS: tuple[CheckName, ...] = ("dependency", "atomicity", "serialization", "completeness")


class InputRecord(BaseModel):
    """An input row: `{question, domain}`, `{domain, knowledge_corpus}` or `{domain}`."""

    model_config = ConfigDict(extra="ignore")

    id: str | None = None
    domain: str = Field(min_length=1)
    question: str | None = None
    knowledge_corpus: str | None = None
    language: str | None = None
    min_hops: int | None = Field(default=None, ge=1, le=12)
    max_hops: int | None = Field(default=None, ge=1, le=12)


def detect_language(*texts: str | None) -> str:
    """`zh` when the text holds CJK ideographs, else `en`."""
    return "zh" if any(t and _CJK.search(t) for t in texts) else "en"


def make_seed(data: dict[str, Any], ref: str, config: SynthConfig) -> Seed:
    """Turn one input row into a `Seed`.

    Raises:
        ValueError: naming the field when the row is unusable.
    """
    try:
        row = InputRecord.model_validate(data)
    except ValidationError as exc:
        raise ValueError(format_validation_error(exc)) from exc
    question = (row.question or "").strip() or None
    corpus = (row.knowledge_corpus or "").strip() or None
    mode = "question" if question else "corpus" if corpus else "domain"
    lo = row.min_hops or config.min_hops
    hi = row.max_hops or max(config.max_hops, lo)
    if lo > hi:
        raise ValueError(f"min_hops {lo} > max_hops {hi}")
    language = row.language or detect_language(row.domain, question, corpus)
    material = {"domain": row.domain, "question": question, "corpus": corpus, "hops": [lo, hi], "language": language}
    return Seed(
        id=row.id or record_id(material, "s-"),
        mode=mode,
        domain=row.domain,
        language=language,
        question=question,
        knowledge_corpus=corpus,
        min_hops=lo,
        max_hops=hi,
        ref=ref,
    )


_EXAMPLE_TEXTS = {
    normalize_answer(t)
    for t in [prompts.EXAMPLE_TRACE["main_question"], *(q["question"] for q in prompts.EXAMPLE_TRACE["sub_questions"])]
}


def _trace_problem(d: Decomposition, seed: Seed) -> tuple[str, str] | None:
    """`(reason code, feedback)` for a structurally unusable trace, None when it is fine."""
    texts = [d.main_question, *(q.question for q in d.sub_questions)]
    if any(normalize_answer(t) in _EXAMPLE_TEXTS for t in texts):
        return "copied_example", f"you copied the format example; write your own question about {seed.domain!r} and its own sub-questions"
    ids = [q.id for q in d.sub_questions]
    if len(set(ids)) != len(ids):
        return "duplicate_ids", f"sub-question ids must be unique, got {ids}"
    n = len(ids)
    lo = 1 if seed.mode == "question" else seed.min_hops
    if not lo <= n <= seed.max_hops:
        return "hop_count", f"write between {lo} and {seed.max_hops} sub-questions, not {n}"
    known = set(ids)
    for q in d.sub_questions:
        bad = [x for x in q.depends_on if x not in known or x == q.id]
        if bad:
            return "unknown_dependency", f"sub-question {q.id} depends_on {bad}, which are not ids of other sub-questions ({sorted(known)})"
    try:
        depths(d.sub_questions)
    except ValueError as exc:
        return "cyclic_dependency", str(exc)
    seen: dict[str, str] = {}
    for q in d.sub_questions:
        key = normalize_answer(q.question)
        if key in seen:
            return "repeated_sub_question", f"sub-questions {seen[key]} and {q.id} ask the same thing; each sub-question must ask for a different fact"
        seen[key] = q.id
    answers = {q.id: q.answer for q in d.sub_questions}
    for q in d.sub_questions:
        for dep in q.depends_on:
            if normalize_answer(answers[dep]) not in normalize_answer(q.question):
                return "unused_dependency", (
                    f"sub-question {q.id} depends on {dep} but does not use its answer {answers[dep]!r} in its text; "
                    "write the dependency's answer into the sub-question, or remove the dependency"
                )
    return None


def depths(subs: list[SubQuestion]) -> dict[str, int]:
    """Longest-path depth of each sub-question in the dependency DAG (by id).

    Raises:
        ValueError: on a cycle.
    """
    graph = {q.id: q.depends_on for q in subs}
    memo: dict[str, int] = {}

    def depth(node: str, path: tuple[str, ...]) -> int:
        if node in path:
            raise ValueError(f"the dependencies form a cycle: {' -> '.join(path + (node,))}")
        if node not in memo:
            memo[node] = 1 + max((depth(d, path + (node,)) for d in graph[node]), default=-1)
        return memo[node]

    for node in graph:
        depth(node, ())
    return memo


def scenario_of(subs: list[SubQuestion]) -> tuple[Scenario, list[SubQuestion]]:
    """The scenario type implied by the DAG, and the sub-questions with `parallel` set."""
    level = depths(subs)
    per_level: dict[int, int] = {}
    for d in level.values():
        per_level[d] = per_level.get(d, 0) + 1
    marked = [q.model_copy(update={"parallel": per_level[level[q.id]] > 1}) for q in subs]
    has_deps = any(q.depends_on for q in subs)
    has_parallel = any(q.parallel for q in marked)
    if len(subs) == 1:
        return "single_hop", marked
    if not has_deps:
        return "parallel_single_hop", marked
    return ("parallel_multi_hop" if has_parallel else "multi_hop"), marked


async def decompose(model: Any, seed: Seed, config: SynthConfig) -> Sample | Failure:
    """Stage 1: the sample's main question, final answer and trace of sub-questions."""
    codes: dict[str, str] = {}

    def check(d: Decomposition) -> str | None:
        problem = _trace_problem(d, seed)
        if problem is None:
            return None
        codes[problem[1]] = problem[0]
        return problem[1]

    result = await ask_structured(
        model, prompts.decompose(seed), Decomposition, retries=config.retries, settings=config.sampling, check=check
    )
    if result.value is None:
        # a structural problem keeps its own code, so the funnel tells copies from cycles from bad JSON
        return Failure(reason=codes.get(result.detail) or result.reason_code or "invalid_output", detail=result.detail)
    d = result.value
    scenario, subs = scenario_of(d.sub_questions)
    return Sample(id=seed.id, seed=seed, question=d.main_question.strip(), answer=d.final_answer.strip(), scenario=scenario, sub_questions=subs)


async def necessity(model: Any, sample: Sample, config: SynthConfig) -> Sample | Failure:
    """Stage 2: which sub-questions need a tool. Non-leaf ones must; at least one must."""
    ids = {q.id for q in sample.sub_questions}

    def problem(n: Necessity) -> str | None:
        got = [i.id for i in n.items]
        if sorted(got) != sorted(ids):
            return f"items must cover each id exactly once: expected {sorted(ids)}, got {got}"
        return None

    result = await ask_structured(model, prompts.necessity(sample), Necessity, retries=config.retries, settings=config.sampling, check=problem)
    if result.value is None:
        return Failure(reason=result.reason_code or "invalid_output", detail=result.detail)
    items = {i.id: i for i in result.value.items}
    parents = {d for q in sample.sub_questions for d in q.depends_on}
    for pid in sorted(parents):
        if not items[pid].needs_tool:
            return Failure(reason="non_leaf_without_tool", detail=f"{pid} has dependents but was judged tool-free: {items[pid].reason}")
    if not any(i.needs_tool for i in items.values()):
        return Failure(reason="no_tool_needed", detail="no sub-question needs a tool")
    return sample.model_copy(update={"necessity": items})


async def run_checks(model: Any, sample: Sample, config: SynthConfig) -> Sample | Failure:
    """Stage 3: the four checks, each a judged score with its reason, against the thresholds."""
    verdicts: dict[str, Judgement] = {}
    for name in CHECKS:
        result = await ask_structured(model, prompts.check(sample, name), Judgement, retries=config.retries, settings=config.sampling)
        if result.value is None:
            return Failure(reason=f"judge_{result.reason_code}", detail=f"{name}: {result.detail}")
        verdicts[name] = result.value
    low = [n for n in CHECKS if verdicts[n].score < getattr(config.thresholds, n)]
    if low:
        n = low[0]
        return Failure(reason=f"low_{n}", detail=f"{n} score {verdicts[n].score} < {getattr(config.thresholds, n)}: {verdicts[n].reason}")
    mean = sum(v.score for v in verdicts.values()) / len(verdicts)
    if mean < config.thresholds.mean:
        return Failure(reason="low_mean_score", detail=f"mean score {mean:.3f} < {config.thresholds.mean}")
    return sample.model_copy(update={"checks": verdicts})
