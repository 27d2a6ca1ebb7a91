"""Checks of meaning, after verify: verified is not meaningful.

`astra env verify` proves that an environment is executable and self-consistent. These checks
ask whether its task means something, each with a stable code declared in `CHECK_CODES` (`astra checks --family
meaning` lists them, each with its meaning and a failing example).

A placeholder in the final answer (`{ticket_reference_number}`) is `answer_not_value` too.
The same rules (less the tool rule) run on the decomposition, where they are fed back to the
model for a retry (`composition_problem`), and again on the final artifact (`meaning_findings`),
which also covers environments that did not come from this pipeline (imports, authored ones).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from mcp_servers import CheckCode, EnvSpec, answer_in_output, generic_answer_reason, normalize_answer
from synth.core.values import call_values, key_values, whole_values
from synth.env.records import LANGUAGE_NAMES

__all__ = [
    "CHECK_CODES",
    "DUPLICATE_COSINE",
    "MEANING_CODES",
    "MeaningFinding",
    "clean_answer",
    "cjk_chars",
    "composition_problem",
    "duplicate_tool_groups",
    "is_yes_no",
    "known_answer_problem",
    "known_to_user",
    "language_problem",
    "left_out",
    "meaning_findings",
    "tool_text",
]

CHECK_CODES: tuple[CheckCode, ...] = CheckCode.load_declarations(__name__)
"""Every code a meaning check reports, on a final environment (`meaning_findings`) or on a decomposition."""

MEANING_CODES: tuple[str, ...] = tuple(c.code for c in CHECK_CODES)
"""Every code a meaning check can report."""

DUPLICATE_COSINE = 0.9
"""Two tools whose description and schema embed at least this close are one function."""

_QUESTION_EN = re.compile(
    r"^\s*(what|which|who|whom|whose|when|where|why|how|is|are|was|were|do|does|did|can|could|will|would|should|may|"
    r"has|have|tell|give|find|list|show|check|look|provide|let|please|i need|i want|i'd like|i would like)\b",
    re.IGNORECASE,
)
_QUESTION_ZH = re.compile(r"[?？吗呢]|什么|多少|哪|几|如何|怎么|怎样|是否|请|能否|告诉|查询|查一下|帮我")
_SENTENCE_END = re.compile(r"[.!。！]\s*$")
_VERB = re.compile(r"\b(is|are|was|were|has|have|had|will|can|cannot|could|would|should|does|do|did|not|been)\b", re.IGNORECASE)
"""A finite verb or a negation: four or more words with one are a sentence ("Alem Kebede's ID is not known"). Without
one, a full stop makes a sentence only when there is no number: "Lipitor (atorvastatin) 40 mg." is a value."""
_SUFFIX = re.compile(r"(_?\d+)$")
_PLACEHOLDER = re.compile(
    r"\{[^{}]*\}|<[^<>]*>|\?|^(unknown|n/?a|tbd|none|null|xxx+|\.\.\.|未知|无)$|\byyyy\b|\bhh:mm\b|\ba number with its unit\b|\bits value\b",
    re.IGNORECASE,
)
_STAND_IN = re.compile(
    r"\b(?i:supplier|vendor|company|product|store|shop|customer|restaurant|hotel|item)\s+[A-Z]\b(?![\w-])"
    r"|(?<![A-Za-z])[A-Z]\s*(?:供应商|公司|商品|产品|餐厅|酒店)"
)
"""An entity named by a letter ("Supplier A", "A供应商"): a stand-in, not a value: e.g. "which suppliers did my
company use lately" answered "A供应商和B供应商"."""
_ASKS_CODE = re.compile(
    r"\b(?:id|ids|identifier|code|(?:order|reference|tracking|confirmation|account|booking|ticket|flight|member(?:ship)?) number)"
    r"(?=\s+(?:of|for)\b|\s*[?？]|\s*$)|(?:编号|代码|单号)(?:是)?(?:什么|多少|[?？])",
    re.IGNORECASE,
)
"""A question asking for an id or a code ("the club ID of ...", "工单编号是什么"), not one naming a thing by its id ("the
device with ID 5", "编号是XX的设备")."""
_CODE_LIKE = re.compile(r"\d|[A-Z]{2,}|[A-Za-z]+[-_/.][A-Za-z]+")
"""What an id or a code has: a digit, capitals together ("KDTW", "WSU/IRL") or joined parts ("gold-tier")."""
_X_SLOT = re.compile(r"(?<![A-Za-z])(?:X{2,}|x{3,})(?![A-Za-z])")
"""Letters standing where a value goes: e.g. "设备编号是XX的设备最近一次维护预警的时间是什么？"."""
_EDGE = " \t\n,;:'\"`<>|*"
_TEMPLATE_SLOT = re.compile(r"\{\s*[A-Za-z_][\w ]*\}|<\s*[A-Za-z_][\w ]*>")
_KNOWN = re.compile(r"known\s+info\w*\s*:(.*?)(?:information\s+needed\s*:|$)", re.IGNORECASE | re.DOTALL)
_WORD = re.compile(r"[a-z]+")
_SLOT_NOUNS = frozenset({"name", "code", "number", "value", "id", "date", "time", "amount", "address", "type", "status"})
"""Words that name a slot rather than fill it: an answer of these and its question's words is a placeholder."""
_KNOWN_MIN_CHARS = 4
"""Shorter known values ("2", "Visa") occur in a row's text by chance too often to reject on."""
_NUMBER = re.compile(r"\d+(?:[.,:/-]\d+)*")
_CODE = re.compile(r"\b(?=[A-Z0-9]{3,}\b)[A-Z][A-Z0-9]*[A-Z][A-Z0-9]*\b")
"""A code in capitals of three characters or more ("KDTW", "ABC123"); shorter ones ("OK", "ID") are words."""
_DEBRIS = re.compile(
    r"\.\.\.|…|\[truncated\]|\btruncated\b|\berror\b\s*[:-]|\bincorrect response\b"
    r"|['\"]\s*\+\s*\w+\(|\)\s*\+\s*['\"]|['\"]\s*\}\s*$",  # code: "PLN '+str(447 - 335)+'. ...'}"
    re.IGNORECASE,
)
_LIST_DEBRIS = re.compile(
    r"""['"]\s*[,=:]\s*['"]|\{\s*\}|\[\s*\]|[.;!?]['"]\s+\w|[;,]\s*'[A-Z]|(?<=[A-Za-rt-z0-9])'\s+(?:is|are|was|were)\b"""
    r"|(?<![A-Za-z])(?i:in|on|at|the|his|her|your|my|of|for|and|to)(?=[\u4e00-\u9fff])"
)
"""The seams of a list or a mapping written as text: the teacher answered "97-89', '36 points', '37 minutes"
and "a final score of 159-135.' Kyle Kuzma (points: 26 ...)'", and "order 4B4rwtH' is TN-000912987;
'The current price ...' is $59.00"; or an English word glued to Chinese ("In公司的供应链协同管理系统中")."""
_CUT_OFF = re.compile(
    r"\b(?:the|a|an|and|or|but|of|to|with|for|this|that|these|those|makes|make|is|are|was|were|which|in|at|on|by|as|from|than|so|because)\s*$",
    re.IGNORECASE,
)
"""An answer that ends on a word no sentence ends on: the teacher stopped one mid-sentence ("... this makes"), and the
environment built on it passed every other check."""
_ENDS_SENTENCE = re.compile(r"""[.!?。！？…)\]"'”’%\d]\s*$""")


def _cut_off(answer: str) -> re.Match[str] | None:
    """Where `answer` stops mid-sentence: on a word no sentence ends on, or, past 150 characters (60 Chinese ones), on
    no closing mark at all. The decomposition schema caps a final answer at 200 characters, and a teacher
    answer ran into it ("... if there are no restrictions and your De"); a short list of values needs no
    full stop ("Tobi Adeyemi 21.4 points per game, Marek Lindqvist 17.8 points per game")."""
    if m := _CUT_OFF.search(answer):
        return m
    long = len(answer) >= 150 or cjk_chars(answer) >= 60
    return re.search(r"\S{1,20}\s*$", answer) if long and not _ENDS_SENTENCE.search(answer) else None

_MAIN_MAX_WORDS = 60
_LIST_SEPARATOR = re.compile(r"\s*[;；、，]\s*|,\s+")
_JOINED_ASKS = re.compile(r"\b(and|as well as|plus)\b|和|及|与|，|、", re.IGNORECASE)
_YES_NO = frozenset({"yes", "no", "true", "false", "是", "否", "不是", "有", "没有"})

SubRow = tuple[str, str, str, Sequence[str]]
"""A sub-question as the rules read it: (id, question, answer, depends_on)."""


class MeaningFinding(BaseModel):
    """One failed meaning check."""

    code: str = Field(description="One of `MEANING_CODES`.")
    message: str = Field(description="What is wrong, naming the sub-questions or tools.")


def _is_question(text: str) -> bool:
    return "?" in text or "？" in text or bool(_QUESTION_EN.match(text)) or bool(_QUESTION_ZH.search(text))


def clean_answer(answer: str) -> str:
    """`answer` without the stray quotes, commas and angle brackets a constrained decoder leaves at its ends.

    Under the enforced schema the 1.5B teacher wrote answers such as `',1234'`, `'>>Yes<'` and
    `"'325 mg, 650 mg'"`: the value is there, wrapped in debris no tool output would hold. Final
    answers began with a comma too (`", tracking number is 1234567890."`).
    """
    cleaned = answer.strip(_EDGE)
    return cleaned or answer


def _echoes_question(answer: str, question: str) -> bool:
    """Whether `answer` only names the slot its question asks about ("City Name" for "What is the city ...?")."""
    if any(ch.isdigit() for ch in answer):
        return False
    words = set(_WORD.findall(answer.lower()))
    return bool(words & _SLOT_NOUNS) and words <= set(_WORD.findall(question.lower())) | _SLOT_NOUNS


def _is_value(answer: str, question: str) -> bool:
    """A value (a number with its unit, a time, a date, a name, a code), not a sentence or a placeholder."""
    if _PLACEHOLDER.search(answer.strip()) or _STAND_IN.search(answer) or _echoes_question(answer, question):
        return False
    words = answer.split()
    if len(words) > 8:
        return False
    sentence = _VERB.search(answer) or (_SENTENCE_END.search(answer) and not any(ch.isdigit() for ch in answer))
    return not (len(words) >= 4 and sentence)


def is_yes_no(answer: str) -> bool:
    """Whether `answer` is a bare yes or no (true/false, 是/否), which a final answer states in words."""
    return normalize_answer(clean_answer(answer)).rstrip(".。!！") in _YES_NO


def left_out(answer: str, final_answer: str) -> bool:
    """Whether `final_answer` leaves out a sub-question's `answer` (a yes or no is stated in words, so never left out)."""
    return not is_yes_no(answer) and not answer_in_output(answer, final_answer)


def _rule_findings(main_question: str, final_answer: str, subs: Sequence[SubRow]) -> list[MeaningFinding]:
    findings: list[MeaningFinding] = []
    if not _is_question(main_question):
        findings.append(MeaningFinding(code="main_not_question", message=f"the main question {main_question[:120]!r} asks for nothing"))
    if malformed := _malformed(main_question):
        findings.append(MeaningFinding(code="main_question_malformed", message=f"the main question {malformed}"))
    for sid, question, answer, _ in subs:
        if not _is_value(answer, question):
            findings.append(MeaningFinding(code="answer_not_value", message=f"{sid}'s answer {answer!r} is a sentence or a placeholder, not a value"))
        elif is_yes_no(answer) or generic_answer_reason(clean_answer(answer)):
            findings.append(MeaningFinding(code="answer_not_value", message=(
                f"{sid}'s answer {answer!r} is a bare yes, no or flag that many tool outputs hold, so no call proves it: "
                "ask for the value that decides it (a status word, a count, a date)"
            )))  # fmt: skip
        elif _ASKS_CODE.search(question) and not _CODE_LIKE.search(answer):
            findings.append(MeaningFinding(code="answer_not_value", message=(
                f"{sid} asks for an id or a code but answers {answer!r}, which is none: the id itself, as a tool stores it"
            )))  # fmt: skip
        elif parts := two_facts(question, answer):
            findings.append(MeaningFinding(code="hop_not_atomic", message=f"{sid} asks for two things at once and answers {parts}"))
    if slot := _TEMPLATE_SLOT.search(final_answer):
        findings.append(MeaningFinding(code="answer_not_value", message=f"the final answer holds the placeholder {slot.group(0)!r}, not a value"))
    elif debris := _LIST_DEBRIS.search(final_answer) or _DEBRIS.search(final_answer):
        findings.append(MeaningFinding(code="answer_malformed", message=f"the final answer holds {debris.group(0)!r}, which no answer to a user holds"))
    elif cut := _cut_off(final_answer):
        findings.append(MeaningFinding(code="answer_malformed", message=f"the final answer stops mid-sentence at {cut.group(0).strip()!r}"))
    used = {d for _, _, _, deps in subs for d in deps}
    missing = [(sid, answer) for sid, _, answer, _ in subs if sid not in used and left_out(answer, final_answer)]
    if missing:
        listed = ", ".join(f"{sid} ({answer!r})" for sid, answer in missing)
        findings.append(MeaningFinding(code="answer_not_composed", message=f"the final answer does not state the answers of {listed}"))
    seen: dict[str, str] = {}
    for sid, _, answer, _ in subs:
        key = normalize_answer(answer)
        if key in seen:
            findings.append(
                MeaningFinding(code="repeated_answer", message=f"{seen[key]} and {sid} ask for different facts but both answer {answer!r}")
            )
        seen.setdefault(key, sid)
    return findings


def two_facts(question: str, answer: str) -> list[str]:
    """The values of `answer` when `question` joins two asks ("the departure time and platform") and the answer
    lists a value for each ("07:28, platform 14"); [] otherwise. Either alone is common in one fact: an
    address has commas, and "the train from Hamburg and its number" asks for one value."""
    parts = [p.strip() for p in _LIST_SEPARATOR.split(answer) if p.strip()]
    return parts if len(parts) >= 2 and _JOINED_ASKS.search(question) else []


def _malformed(main_question: str) -> str | None:
    """What makes a main question one no user would write: debris a reply left in it ("[truncated]` ... Error -
    Incorrect response forma"), a template slot, or more than 60 words (a brief, not a question)."""
    if debris := _DEBRIS.search(main_question) or _TEMPLATE_SLOT.search(main_question) or _X_SLOT.search(main_question):
        return f"holds {debris.group(0)!r}, which no user writes"
    words = len(main_question.split()) + cjk_chars(main_question) // 2
    return f"runs to {words} words; ask for the values in one question" if words > _MAIN_MAX_WORDS else None


def _trace_findings(main_question: str, final_answer: str, subs: Sequence[SubRow]) -> list[MeaningFinding]:
    """The rules only a decomposition is held to: before tools exist, its final answer can hold only
    what its sub-questions found (an authored environment's answer may quote more of a tool's output),
    and a lookup with no dependency cannot look up what the user said (a comparison of two looked-up
    values may name an option the question gives)."""
    findings: list[MeaningFinding] = []
    found = _numbers(main_question, *(answer for _, _, answer, _ in subs))
    codes = {c.casefold() for c in _codes(main_question, *(f"{q} {a}" for _, q, a, _ in subs))}
    added = [n for n in _numbers(final_answer) if n not in found] + [c for c in _codes(final_answer) if c.casefold() not in codes]
    if added:
        findings.append(MeaningFinding(code="answer_adds_value", message=f"the final answer states {added}, which no sub-answer holds"))
    for sid, _, answer, deps in subs:
        if not deps and len(normalize_answer(answer)) >= _KNOWN_MIN_CHARS and answer_in_output(answer, main_question):
            findings.append(MeaningFinding(code="answer_given", message=f"{sid}'s answer {answer!r} is stated by the main question itself"))
    found = " ; ".join(answer for _, _, answer, _ in subs)
    for sid, question, _, deps in subs:
        if not deps and not call_values(main_question, [], question) and (unknown := unknown_values(question, main_question, found)):
            findings.append(MeaningFinding(code="hop_value_unknown", message=f"{sid} names {unknown}, which the user never gave and no sub-question finds"))
    return findings


def unknown_values(question: str, main_question: str, found: str = "") -> list[str]:
    """The values `question` names (Latin ones: a name, a code, a date, a quoted span) that neither `main_question`
    nor the `found` answers hold.

    A capitalized first word is the start of a sentence, a number of one or two digits ("3 pm",
    "2 tickets") is too common to tell (the user may have written it as a word), and so is a short
    acronym ("ID", "UV", "ETA"): each names a kind of thing, not one thing.
    """
    first = question.split()[0] if question.split() else ""
    named = [
        v for v in whole_values(key_values(question))
        if not cjk_chars(v) and v != first and not (len(v) <= 2 and v.isdigit()) and not (len(v) <= 3 and v.isalpha() and v.isupper())
    ]  # fmt: skip
    return [v for v in named if not answer_in_output(v, main_question) and not answer_in_output(v, found)]


def _numbers(*texts: str) -> list[str]:
    """The numbers of `texts` as tokens, once each in order of appearance ("2025-09-10", "5.99",
    "1,500" -> "1500"): "2" is not found in "2022"."""
    return list(dict.fromkeys(n.replace(",", "") for text in texts for n in _NUMBER.findall(text)))


def cjk_chars(text: str) -> int:
    """How many Chinese characters `text` holds (a Chinese word is about two: `text` has no spaces to count)."""
    return sum("\u4e00" <= ch <= "\u9fff" for ch in text)


def _codes(*texts: str) -> list[str]:
    """The codes in capitals of `texts` (`_CODE`), once each in order of appearance."""
    return list(dict.fromkeys(c for text in texts for c in _CODE.findall(text)))


def language_problem(main_question: str, language: str) -> tuple[str, str] | None:
    """`("wrong_language", feedback)` when the main question is not written in `language` ("zh" or "en"), else None."""
    if language not in LANGUAGE_NAMES:
        return None
    cjk = cjk_chars(main_question)
    latin = sum(ch.isascii() and ch.isalpha() for ch in main_question)
    wrong = (language == "zh" and cjk == 0) or (language == "en" and cjk > latin)
    if not wrong:
        return None
    name = LANGUAGE_NAMES[language]
    return "wrong_language", f"the main question {main_question[:80]!r} is not in {name}; write every question and answer in {name}"


def known_to_user(knowledge_corpus: str | None) -> str:
    """What a knowledge row says the user already knows (its "Known Information" part), or ''."""
    match = _KNOWN.search(knowledge_corpus or "")
    return match.group(1).strip() if match else ""


def known_answers(subs: Sequence[SubRow], known: str) -> list[str]:
    """Ids of the sub-questions whose answer the user already knows (`known`: `known_to_user`)."""
    if not known:
        return []
    return [
        sid for sid, _, answer, _ in subs
        if len(normalize_answer(answer)) >= _KNOWN_MIN_CHARS and generic_answer_reason(answer) is None and answer_in_output(answer, known)
    ]  # fmt: skip


def known_answer_problem(subs: Sequence[SubRow], known: str) -> tuple[str, str] | None:
    """`("answer_known", feedback)` for the first sub-question whose answer the user already knows, else None.

    The 1.5B teacher decomposed "the tracking number of my recent order" (the user knows their name
    and email) into "What is your name?", "What is your email?" and "What is the order number?":
    two of the three hops were facts the user had stated, which no tool needs to find.
    """
    found = known_answers(subs, known)
    for sid, _, answer, _ in subs:
        if sid in found:
            return "answer_known", (
                f"{sid}'s answer {answer!r} is already known to the user ({known[:160]!r}); a sub-question asks only for what a "
                "tool must look up, and what the user knows goes into the text of the sub-questions that need it"
            )
    return None


_FEEDBACK = {
    "main_not_question": "main_question must be a question a user asks, asking for specific values",
    "main_question_malformed": "main_question is one short question in the user's words, with no placeholders, marks or messages",
    "answer_not_value": "each answer, and the final answer, is only the value (a number with its unit, a time, a date, a name or a code), not a sentence and not a placeholder",
    "answer_not_composed": "final_answer must state the values found",
    "repeated_answer": "different facts have different values",
    "answer_adds_value": "final_answer states only the values the sub-questions found (and those the main question gives)",
    "answer_given": "a sub-question asks only for what a tool must look up; a value the main question states goes into the text of the sub-questions that need it",
    "hop_not_atomic": "each sub-question asks for one fact with one value; split a sub-question that asks for two",
    "answer_malformed": "final_answer is one short, whole sentence stating the values, not a list of quoted values",
    "hop_value_unknown": "a sub-question is looked up with a value the user gave (write it into main_question) or one an earlier sub-question finds (write {q1} where it goes)",
}


def composition_problem(main_question: str, final_answer: str, subs: Sequence[SubRow]) -> tuple[str, str] | None:
    """`(code, feedback)` of the first meaning rule a decomposition breaks, None when it keeps them all."""
    findings = _rule_findings(main_question, final_answer, subs) + _trace_findings(main_question, final_answer, subs)
    if not findings:
        return None
    first = findings[0]
    return first.code, f"{first.message}; {_FEEDBACK[first.code]}"


def tool_text(name: str, description: str, schema: dict[str, Any]) -> str:
    """What two tools are compared on: the name in words, the description and the parameters."""
    params = ", ".join(f"{k}: {(v or {}).get('description', '')}" for k, v in (schema.get("properties") or {}).items())
    return f"{name.replace('_', ' ')}: {description} ({params})"


def duplicate_tool_groups(tools: Sequence[tuple[str, str, dict[str, Any]]], embedder: Any | None = None) -> list[list[int]]:
    """Indices of tools that are one function, in groups of two or more (each tool in one group).

    Args:
        tools: (name, description, input_schema) per tool.
        embedder: a sentence-transformers model; without one only the names are compared.
    """
    n = len(tools)
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    base = [_SUFFIX.sub("", name).lower() or name.lower() for name, _, _ in tools]
    for i in range(n):
        for j in range(i + 1, n):
            if base[i] == base[j]:
                parent[root(j)] = root(i)
    if embedder is not None and n > 1:
        vectors = embedder.encode(
            [tool_text(*t) for t in tools], normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )
        similarity = vectors @ vectors.T
        for i in range(n):
            for j in range(i + 1, n):
                if float(similarity[i, j]) >= DUPLICATE_COSINE:
                    parent[root(j)] = root(i)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(root(i), []).append(i)
    return [g for g in groups.values() if len(g) > 1]


def meaning_findings(spec: EnvSpec, embedder: Any | None = None) -> list[MeaningFinding]:
    """Every meaning check's findings on a final environment (empty: it means something).

    Args:
        spec: the environment's spec.
        embedder: a sentence-transformers model for the tool-similarity rule (names only without).
    """
    subs = [(s.id, s.question, s.answer, s.depends_on) for s in spec.subtasks]
    findings = _rule_findings(spec.task.question, spec.task.answer, subs)
    tools = [(t.name, t.description, t.input_schema) for t in spec.tools]
    for group in duplicate_tool_groups(tools, embedder):
        names = [tools[i][0] for i in group]
        findings.append(MeaningFinding(code="duplicate_tool", message=f"tools {', '.join(names)} are one function: {json.dumps(names)}"))
    return findings
