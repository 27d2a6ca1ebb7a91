"""A model may reword a templated question the way a user would ask it; code decides whether it stands.

The rewrite is kept only when it is still a question, every value the question gives survives it,
it adds no value of its own (a number, a code, a name the template did not hold) and it states
no answer. Otherwise the template's wording stands: the facts never depend on the model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent_sdk import ChatMessage, SamplingSettings
from mcp_servers import Environment, answer_in_output
from synth.core.values import key_values, whole_values

__all__ = ["reword_environment", "rewrite_problem", "rewrite_question"]

_CJK = re.compile(r"[\u4e00-\u9fff]")
_SENTENCE_START = re.compile(r"(?:^|[.!?。！？]\s*)([A-Z][a-z]+)")


def _values(text: str) -> set[str]:
    """The values `text` names that a rewrite must not invent: numbers, codes and names, not wording."""
    starts = {m.group(1) for m in _SENTENCE_START.finditer(text)}
    out = set()
    for value in whole_values(key_values(text)):
        if _CJK.search(value) or value in starts:
            continue
        out.add(value.casefold())
    return out


def rewrite_problem(original: str, rewrite: str, given: Sequence[str], answers: Sequence[str]) -> str | None:
    """Why `rewrite` cannot replace `original` (None: it can).

    Args:
        original: the templated question.
        rewrite: the model's wording.
        given: the values the question gives (each must survive).
        answers: the task's answers (none may appear).
    """
    rewrite = rewrite.strip()
    if not rewrite or not ("?" in rewrite or "？" in rewrite):
        return "the rewrite is not a question"
    lost = [v for v in given if not answer_in_output(v, rewrite)]
    if lost:
        return f"the rewrite drops {lost}"
    stated = [a for a in answers if answer_in_output(a, rewrite)]
    if stated:
        return f"the rewrite states the answer {stated}"
    kept = _values(original) | {v.casefold() for v in given}
    added = sorted(v for v in _values(rewrite) if v not in kept and not any(v in k for k in kept))
    if added:
        return f"the rewrite adds {added}"
    return None


async def rewrite_question(model: object, question: str, given: Sequence[str], answers: Sequence[str], language: str) -> tuple[str, str | None]:
    """The question as a user would ask it, or the template's when the rewrite fails `rewrite_problem`.

    Returns:
        `(question, reason)`: reason is None when the rewrite was kept.
    """
    lang = "Chinese" if language == "zh" else "English"
    prompt = (
        f"Rewrite this question the way a user of the service would type it, in {lang}. Keep every name, code, date and number "
        f"exactly as written; add no new value. Reply with the question only.\n\n{question}"
    )
    reply = await model.complete([ChatMessage(role="user", content=prompt)], settings=SamplingSettings(temperature=0.7, max_tokens=120))  # type: ignore[attr-defined]
    text = (reply.message.content or "").strip().strip('"').strip()
    reason = rewrite_problem(question, text, given, answers)
    return (question, reason) if reason else (text, None)


async def reword_environment(model: object, env: Environment) -> tuple[Environment, str | None]:
    """`env` with its main question as a user would ask it, or `env` unchanged and why.

    The values the question gives are the arguments of the golden calls that depend on nothing
    (the later hops take theirs from earlier results); the answers it must not state are the
    sub-answers it does not give. A kept wording must also pass every meaning check.
    """
    from synth.env import meaning_findings

    spec = env.spec
    given = list(dict.fromkeys(
        str(v) for s in spec.subtasks if s.golden_call is not None and not s.depends_on for v in s.golden_call.arguments.values()
    ))  # fmt: skip
    answers = [s.answer for s in spec.subtasks if s.answer not in given]
    question, reason = await rewrite_question(model, spec.task.question, given, answers, spec.language)
    if reason is not None:
        return env, reason
    fields = spec.model_dump(mode="json", exclude={"id"})
    fields["task"]["question"] = question
    reworded = Environment.build(env.code, **fields)
    if findings := meaning_findings(reworded.spec):
        return env, "; ".join(f.message for f in findings)
    return reworded, None
