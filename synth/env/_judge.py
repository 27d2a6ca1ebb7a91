"""Stages 1-3: decompose, tool necessity, the five quality checks. Each fails closed.

Every request goes through a `ReplyCheck`: a reply that copies the prompt's example is
rejected as `copied_example` (`judge_copied_example` for the checks), and each structural
problem keeps its own reason code. Schemas are built per call (`_schemas`) so an engine that
enforces them cannot produce the wrong number of items or an unknown id.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from mcp_servers import CheckCode, answer_in_output, dependency_depths, dependency_levels, dependency_scenario, normalize_answer
from synth.core import VERDICT_TOP_LOGPROBS, VERDICTS, ReplyCheck, VerdictReader, ask_structured
from synth.env import _schemas, prompts
from synth.env._demos import demonstration
from synth.env._meaning import (
    cjk_chars,
    clean_answer,
    composition_problem,
    known_answer_problem,
    known_answers,
    known_to_user,
    language_problem,
    left_out,
    two_facts,
)
from synth.env.config import SynthConfig
from synth.env.records import (
    CheckName,
    CheckReply,
    Decomposition,
    Failure,
    Judgement,
    Necessity,
    NecessityItem,
    Sample,
    Scenario,
    Seed,
    SubQuestion,
    attempt_id,
)

CHECKS: tuple[CheckName, ...] = ("dependency", "atomicity", "serialization", "completeness", "coherence")

CHECK_CODES: tuple[CheckCode, ...] = CheckCode.load_declarations(__name__)
"""The codes of the decompose, necessity and checks stages (they also reject with `meaning` and `reply` codes)."""

_REFERENCE = re.compile(r"\{\s*(q\d+)\s*\}")
_BACK_REFERENCE = re.compile(r"\b(this|that|these|those|it|its|they|them|their|there|above|said|same)\b|这|该|此|那|其|上述", re.IGNORECASE)
"""Words by which a sub-question refers to what an earlier one found instead of naming it."""
_NO_REDRAW = frozenset({"model_error", "context_overflow"})
"""Failures a fresh draw cannot mend: the endpoint is down, or the prompt does not fit."""


def repair(d: Decomposition, seed: Seed | None = None) -> Decomposition:
    """`d` made usable where the fix is mechanical: answers and the final answer cleaned (`clean_answer`), references
    filled in (`fill_references`), and, given the `seed`, sub-questions that ask what the user
    already knows (`drop_known`) or that the final answer does not use (`drop_unserved`) dropped.
    """
    mended = _mend(d, seed)
    return mended if seed is None else drop_unserved(mended, seed, declared=_declared(d))


def _declared(d: Decomposition) -> set[str]:
    """The ids sub-questions declare they depend on and then refer back to ("the score of this game").

    A declaration whose text is self-contained ("What is your order number?" declaring the ZIP hop)
    is a habit of the decoder, not a need: writing dependencies before the text, the teacher declared
    `q1` on most hops. Counted as a need, it kept known and unused hops from being dropped.
    """
    return {x for q in d.sub_questions if _BACK_REFERENCE.search(q.question) for x in q.depends_on}


def _mend(d: Decomposition, seed: Seed | None) -> Decomposition:
    """`repair` short of dropping unserved leaves: the trace the structural rules judge. Dropped first, a
    leaf that repeats another's question (or lost its dependency) would take the flaw away with it."""
    cleaned = [q.model_copy(update={"answer": clean_answer(q.answer)}) for q in d.sub_questions]
    texts = {"main_question": d.main_question.strip(), "final_answer": clean_answer(d.final_answer)}
    filled = fill_references(d.model_copy(update={"sub_questions": cleaned, **texts}))
    return filled if seed is None else drop_known(filled, seed, declared=_declared(d))


def drop_unserved(d: Decomposition, seed: Seed, *, declared: set[str] | None = None) -> Decomposition:
    """`d` without the leaves whose answer its final answer does not state (a yes or no leaf is stated
    in words), and then the hops only those leaves used, while enough hops remain.

    The teacher pads a decomposition with lookups its answer does not need: "the estimated
    delivery time of product A" split into its stock, its price and its last shipment, answered
    "15 days". Appending such leaves' statements to the final answer made the composition rule pass
    them, and the environments built so asked one thing and looked up others. A leaf the answer does not use does not serve the main question.
    When dropping would leave too few hops, nothing is dropped and the composition rule sends the
    trace back. A hop the user already knows stays for the `answer_known` rule (`drop_known`), and
    so does one that another sub-question `declared` it depends on without carrying its value ("the
    temperature there"): without it the question that needed it is left unanswerable.
    """
    subs = list(d.sub_questions)
    known = set(known_answers([(q.id, q.question, q.answer, q.depends_on) for q in subs], known_to_user(seed.knowledge_corpus)))
    lost = (declared or set()) - {x for q in subs for x in q.depends_on}
    while True:
        used = {x for q in subs for x in q.depends_on}
        drop = {
            q.id for q in subs
            if q.id not in used | known | lost and left_out(q.answer, d.final_answer)
        }  # fmt: skip
        if not drop:
            break
        if len(subs) - len(drop) < seed.fewest_hops:
            return d
        subs = [q for q in subs if q.id not in drop]
    return d if len(subs) == len(d.sub_questions) else d.model_copy(update={"sub_questions": subs})


def drop_known(d: Decomposition, seed: Seed, *, declared: set[str] | None = None) -> Decomposition:
    """`d` without the sub-questions whose answer the seed's user already knows, while enough hops remain.

    The teacher kept a hop for the user's own name, club or patient id after being told twice that
    it is known, and `answer_known` rejected up to 6 rows in 10 for it. Such a hop needs no tool, and is dropped with the dependencies on it
    when no other hop needs it, or when its value lives on: a sub-question that uses it carries the
    value once references are filled in, or the main question or another sub-question names it. A
    known hop that another sub-question `declared` it depends on without carrying its value ("the
    refill of the patient") is left to the `answer_known` rule: dropped, the hop that needed it
    would name neither the patient nor the fill. So is one that would leave too few hops.
    """
    subs = [(q.id, q.question, q.answer, q.depends_on) for q in d.sub_questions]
    used = {x for q in d.sub_questions for x in q.depends_on}
    lost = (declared or set()) - used

    def droppable(sid: str, answer: str) -> bool:
        texts = [d.main_question, *(q.question for q in d.sub_questions if q.id != sid)]
        return sid in used or sid not in lost or any(answer_in_output(answer, text) for text in texts)

    answers = {q.id: q.answer for q in d.sub_questions}
    drop = {sid for sid in known_answers(subs, known_to_user(seed.knowledge_corpus)) if droppable(sid, answers[sid])}
    if not drop or len(subs) - len(drop) < seed.fewest_hops:
        return d
    kept = [q.model_copy(update={"depends_on": [x for x in q.depends_on if x not in drop]}) for q in d.sub_questions if q.id not in drop]
    return d.model_copy(update={"sub_questions": kept})


def fill_references(d: Decomposition) -> Decomposition:
    """`d` with every `{q1}` in a sub-question replaced by q1's answer and q1 added to its dependencies,
    every dependency whose answer its text does not use dropped, and every earlier sub-question whose
    answer its text carries (a value the user did not give) added to its dependencies.

    The teacher declared dependencies it did not use in 26 of 37 traces ("What are the last four
    digits of the saved card?" depending on q1 = "Visa"): a sub-question that does not carry an
    answer cannot pass it to its tool call, so it is a lookup of its own; the judged dependency
    check still asks whether it needs what it lost. A text that holds an earlier answer ("When will
    order 55891 arrive?" after q1 = "55891") takes it from that sub-question whether or not it was
    declared. A reference to an unknown or a later id is left as written, so the trace check names it.
    The final answer's references are filled in too: the teacher wrote "{q2}" there as in the questions.
    """
    answers = {q.id: q.answer for q in d.sub_questions}
    order = {q.id: i for i, q in enumerate(d.sub_questions)}
    subs: list[SubQuestion] = []
    for q in d.sub_questions:
        refs = [r for r in _REFERENCE.findall(q.question) if r in answers and order[r] < order[q.id]]
        text = _REFERENCE.sub(lambda m: answers[m.group(1)] if m.group(1) in refs else m.group(0), q.question)
        depends = [x for x in dict.fromkeys([*q.depends_on, *refs]) if x not in answers or answer_in_output(answers[x], text)]
        carried = [x for x in order if order[x] < order[q.id] and x not in depends and _carries(answers[x], text, d.main_question)]
        subs.append(q.model_copy(update={"question": text, "depends_on": [*carried, *depends]}))
    final = _REFERENCE.sub(lambda m: answers.get(m.group(1), m.group(0)), d.final_answer)
    return d.model_copy(update={"sub_questions": subs, "final_answer": final})


def _carries(answer: str, text: str, main_question: str) -> bool:
    """Whether `text` carries an earlier sub-question's `answer`, a value the user did not give.

    Short answers ("Yes", "12") turn up by chance, so a value needs 4 characters, or 2 Chinese ones
    (a name such as 王丽华 is three).
    """
    key = normalize_answer(answer)
    long_enough = len(key) >= 4 or cjk_chars(key) >= 2
    return long_enough and answer_in_output(answer, text) and not answer_in_output(answer, main_question)


def trace_problem(d: Decomposition, seed: Seed) -> tuple[str, str] | None:
    """`(reason code, feedback)` for a structurally unusable trace, None when it is fine."""
    written, declared = d, _declared(d)
    d = _mend(d, seed)
    ids = [q.id for q in d.sub_questions]
    if len(set(ids)) != len(ids):
        return "duplicate_ids", f"sub-question ids must be unique, got {ids}"
    n = len(ids)
    lo = seed.fewest_hops
    if not lo <= n <= seed.max_hops:
        return "hop_count", f"write between {lo} and {seed.max_hops} sub-questions, not {n}"
    known = set(ids)
    for q in d.sub_questions:
        bad = [x for x in q.depends_on if x not in known or x == q.id]
        if bad:
            return "unknown_dependency", f"sub-question {q.id} depends_on {bad}, which are not ids of other sub-questions ({sorted(known)})"
    try:
        dependency_levels(d.sub_questions)
    except ValueError:
        return "cyclic_dependency", f"the dependencies form a cycle ({[(q.id, q.depends_on) for q in d.sub_questions]}); a sub-question may depend only on sub-questions that do not depend on it"
    seen: dict[str, str] = {}
    for q in d.sub_questions:
        key = normalize_answer(q.question)
        if key in seen:
            return "repeated_sub_question", f"sub-questions {seen[key]} and {q.id} ask the same thing; each sub-question must ask for a different fact"
        seen[key] = q.id
    answers = {q.id: q.answer for q in d.sub_questions}
    for q in d.sub_questions:
        for dep in q.depends_on:
            if not answer_in_output(answers[dep], q.question):
                return "unused_dependency", (
                    f"sub-question {q.id} depends on {dep} but its text does not use {dep}'s answer; write {{{dep}}} where "
                    f"{dep}'s answer ({answers[dep]!r}) goes in the text of {q.id}, or remove the dependency"
                )
        stray = _REFERENCE.findall(q.question)
        if stray:
            return "unknown_dependency", f"sub-question {q.id} refers to {stray}, which are not earlier sub-questions"
    d = drop_unserved(d, seed, declared=declared)
    if lost := _lost_dependency(written, d, declared):
        return lost
    subs = [(q.id, q.question, q.answer, q.depends_on) for q in d.sub_questions]
    return (
        language_problem(d.main_question, seed.language)
        or known_answer_problem(subs, known_to_user(seed.knowledge_corpus))
        or composition_problem(d.main_question, d.final_answer, subs)
    )


def _lost_dependency(written: Decomposition, d: Decomposition, declared: set[str]) -> tuple[str, str] | None:
    """`unused_dependency` for a hop whose answer neither the final answer nor the sub-questions that declared
    it use: the teacher wrote "the score of this game" after a game-id hop, and the answer-not-stated
    feedback that this leaves named the id instead of the missing `{q1}`."""
    used = _declared(d)
    for q in d.sub_questions:
        if q.id in declared and q.id not in used and left_out(q.answer, d.final_answer):
            users = [r.id for r in written.sub_questions if q.id in r.depends_on] or ["sub-questions"]
            return "unused_dependency", (
                f"{', '.join(users)} depend on {q.id} but their text does not use {q.id}'s answer ({q.answer!r}); write {{{q.id}}} "
                f"where {q.id}'s answer goes in their text, or remove the dependency"
            )
    return None


def scenario_of(subs: list[SubQuestion]) -> tuple[Scenario, list[SubQuestion]]:
    """The scenario type implied by the DAG (`mcp_servers.dependency_scenario`), and the sub-questions
    with `parallel` set where a level holds several."""
    level = dependency_depths(subs)
    per_level = Counter(level.values())
    return dependency_scenario(subs), [q.model_copy(update={"parallel": per_level[level[q.id]] > 1}) for q in subs]


async def decompose(model: Any, seed: Seed, config: SynthConfig, attempt: int = 0) -> Sample | Failure:
    """Stage 1: the sample's main question, final answer and trace of sub-questions.

    Attempt `attempt` of the seed (`SynthConfig.seed_attempts`) takes draws `attempt * decompose_draws` onward,
    so a later attempt never replays an earlier one's trace.
    """
    check = ReplyCheck(prompts.DECOMPOSE_EXAMPLE, demonstration(seed.language).example, check=lambda d: trace_problem(d, seed))
    lo = seed.fewest_hops
    first = attempt * config.decompose_draws
    for draw in range(first, first + config.decompose_draws):
        settings = config.list_sampling()
        if draw:
            settings = settings.model_copy(update={"temperature": config.redraw_temperature, "seed": draw})
        result = await ask_structured(
            model, prompts.decompose(seed, model), Decomposition,
            retries=config.retries, settings=settings, check=check, schema=_schemas.decomposition_schema(lo, seed.max_hops),
        )
        if result.value is not None or result.reason_code in _NO_REDRAW:
            break
    if result.value is None:
        # a structural problem keeps its own code, so the funnel tells copies from cycles from bad JSON
        return Failure(reason=check.reason(result) or "invalid_output", detail=result.detail)
    d = repair(result.value, seed)
    scenario, subs = scenario_of(d.sub_questions)
    dropped = sorted({q.id for q in result.value.sub_questions} - {q.id for q in d.sub_questions})
    notes = [f"dropped {', '.join(dropped)}: known to the user or unused by the final answer"] if dropped else []
    return Sample(
        id=attempt_id(seed.id, attempt), seed=seed, question=d.main_question.strip(), answer=d.final_answer.strip(), scenario=scenario, sub_questions=subs, notes=notes
    )  # fmt: skip


async def necessity(model: Any, sample: Sample, config: SynthConfig) -> Sample | Failure:
    """Stage 2: which sub-questions need a tool; at least one must.

    A sub-question whose answer another one uses is a lookup by the contract (docs/design.md §2): only
    the leaves are asked about. Asked about every one, the 1.5B judged parents tool-free and
    half its traces were lost as `non_leaf_without_tool`.
    """
    parents = {d for q in sample.sub_questions for d in q.depends_on}
    ids = [q.id for q in sample.sub_questions if q.id not in parents]

    def problem(n: Necessity) -> str | None:
        got = [i.id for i in n.items]
        if sorted(got) != sorted(ids):
            return f"give one item for each id exactly once: expected {ids}, got {got}"
        return None

    check = ReplyCheck(prompts.necessity_example(ids), check=problem)
    result = await ask_structured(
        model, prompts.necessity(sample, model, ids), Necessity, retries=config.retries,
        settings=config.sampling, check=check, schema=_schemas.necessity_schema(ids),
    )
    if result.value is None:
        return Failure(reason=check.reason(result) or "invalid_output", detail=result.detail)
    judged = {i.id: i for i in result.value.items}
    users = {p: [q.id for q in sample.sub_questions if p in q.depends_on] for p in parents}
    forced = {p: NecessityItem(id=p, needs_tool=True, reason=f"its answer is used by {', '.join(users[p])}") for p in parents}
    items = {q.id: judged.get(q.id) or forced[q.id] for q in sample.sub_questions}
    if not any(i.needs_tool for i in items.values()):
        return Failure(reason="no_tool_needed", detail="no sub-question needs a tool")
    return sample.model_copy(update={"necessity": items})


async def judge_check(model: Any, sample: Sample, name: CheckName, config: SynthConfig) -> Judgement | Failure:
    """One check's judgement of `sample`: its word verdict scored as the expectation of `VERDICTS` under the model's own probabilities of the words (`VerdictReader`), or by the word where none were returned.

    Serialization asks whether a dependency is artificial; a trace without dependencies has none,
    so it holds without asking (asked, the teacher answered "no" for 3 of 3 parallel traces).
    Coherence is asked of each sub-question (`prompts.hop_needed`), and the least needed one is its
    score. A flaw the trace itself proves (`proven_flaw`) scores "no" unasked.
    """
    if name == "serialization" and not any(q.depends_on for q in sample.sub_questions):
        return Judgement(score=VERDICTS["yes"], reason="no sub-question depends on another", verdict="yes")
    if proof := proven_flaw(sample, name):
        return Judgement(score=VERDICTS["no"], reason=proof, verdict="no")
    if name in _PER_HOP:
        hops = [await _verdict(model, _PER_HOP[name](sample, q, model), config, f"{name} {q.id}") for q in sample.sub_questions]
        failed = [h for h in hops if isinstance(h, Failure)]
        return failed[0] if failed else min(hops, key=lambda h: h.score)  # type: ignore[union-attr]
    return await _verdict(model, prompts.check(sample, name, model), config, name)


_PER_HOP = {"coherence": prompts.hop_needed}
"""Checks asked of each sub-question, scored by the least: asked of the whole trace, the teacher missed the one bad hop.
Atomicity asked so (`hop_atomic` was tried) ranked 1 of 4 planted pairs: the teacher wrote "Yes" or "No" as its reason
and scored the hops of a trace alike; a hop that asks for two things is found by `two_facts` instead."""


def proven_flaw(sample: Sample, name: CheckName) -> str | None:
    """Why the trace itself proves `name` fails, read without a model (None when it does not).

    Dependency: a sub-question declares one whose answer its text does not carry, or carries an
    earlier answer (one the user did not give) without declaring it. Completeness: the final answer
    leaves out a leaf's answer. Atomicity: a sub-question joins two asks and answers two values
    (`two_facts`). In the pipeline the repairs and trace rules have already removed all three; shown
    such traces from elsewhere (the calibration set), the teacher alone put the good twin higher in
    2 of 4 wrong-dependency pairs, 3 of 4 describe-instead-of-state pairs and 1 of 4 two-fact pairs.
    """
    subs = sample.sub_questions
    answers = {q.id: q.answer for q in subs}
    if name == "dependency":
        for i, q in enumerate(subs):
            unused = [d for d in q.depends_on if d in answers and not answer_in_output(answers[d], q.question)]
            hidden = [e.id for e in subs[:i] if e.id not in q.depends_on and _carries(e.answer, q.question, sample.question)]
            if unused or hidden:
                return f"{q.id} declares {unused} without using their answers" if unused else f"{q.id} uses the answers of {hidden} without declaring them"
    if name == "atomicity":
        for q in subs:
            if parts := two_facts(q.question, q.answer):
                return f"{q.id} asks for two things at once and answers {parts}"
    if name == "completeness":
        used = {d for q in subs for d in q.depends_on}
        if missing := [q.id for q in subs if q.id not in used and left_out(q.answer, sample.answer)]:
            return f"the final answer does not state the answers of {missing}"
    return None


async def _verdict(model: Any, messages: list[Any], config: SynthConfig, label: str) -> Judgement | Failure:
    check = ReplyCheck(prompts.CHECK_EXAMPLE)
    result = await ask_structured(
        model, messages, CheckReply, retries=config.retries,
        settings=config.sampling.model_copy(update={"top_logprobs": VERDICT_TOP_LOGPROBS}), check=check, schema=_schemas.CHECK_SCHEMA,
    )  # fmt: skip
    if result.value is None:
        return Failure(reason=f"judge_{check.reason(result)}", detail=f"{label}: {result.detail}")
    reply = result.value
    score = VerdictReader(result.token_choices).score("verdict", reply.verdict)
    return Judgement(score=VERDICTS[reply.verdict] if score is None else score, reason=reply.reason, verdict=reply.verdict)


async def run_checks(model: Any, sample: Sample, config: SynthConfig) -> Sample | Failure:
    """Stage 3: the five checks, each a judged verdict with its reason, against the thresholds."""
    verdicts: dict[str, Judgement] = {}
    for name in CHECKS:
        judged = await judge_check(model, sample, name, config)
        if isinstance(judged, Failure):
            return judged
        verdicts[name] = judged
    low = [n for n in CHECKS if verdicts[n].score < getattr(config.thresholds, n)]
    if low:
        n = low[0]
        return Failure(reason=f"low_{n}", detail=f"{n} score {verdicts[n].score} < {getattr(config.thresholds, n)}: {verdicts[n].reason}")
    mean = sum(v.score for v in verdicts.values()) / len(verdicts)
    if mean < config.thresholds.mean:
        return Failure(reason="low_mean_score", detail=f"mean score {mean:.3f} < {config.thresholds.mean}")
    return sample.model_copy(update={"checks": verdicts})
