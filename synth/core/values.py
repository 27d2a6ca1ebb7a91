"""Values a text names, and which parameter each can fill: shared by both synthesis pipelines.

Environment synthesis fills golden calls only with values the agent is given (`call_values`), and
SFT task generation checks that a request states the values its first calls need (`parameter_kind`,
`key_values`). Chinese has no spaces to cut a value out of a sentence; `shared_cjk_spans` finds the
spans two texts share instead.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from typing import Any

from mcp_servers import answer_in_output, normalize_answer

__all__ = ["ISO_DATE", "STOPWORDS", "call_values", "fits_parameter", "key_values", "parameter_kind", "shared_cjk_spans", "unique_values", "whole_values", "without_id_word"]

_QUOTED = re.compile(r'"([^"\n]+)"|“([^”\n]+)”|(?<!\w)\'([^\'\n]+)\'(?!\w)|「([^」\n]+)」|『([^』\n]+)』|《([^》\n]+)》')
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", re.ASCII)
ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?|\b\d{1,2}:\d{2}\b")
_MONTHS = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?"
_WRITTEN_DATE = re.compile(rf"\b{_MONTHS} \d{{1,2}}(?:st|nd|rd|th)?(?:,? \d{{4}})?\b|\b\d{{1,2}} {_MONTHS} \d{{4}}\b|\d{{4}}年\d{{1,2}}月\d{{1,2}}日")
"""A date written out ("October 18, 2024", "18 Oct 2024", 2024年10月18日): one value, not a month, a day and a year."""
_ID_NAME = re.compile(r"(?:^|_)(?:id|code|number|no|num|ref|reference|sku)$")
_DATE_NAME = re.compile(r"(?:^|_)(?:date|day)$")
_MEASURE = re.compile(r"\d+(?:\.\d+)?[- ]?(?:inch|inches|in|cm|mm|m|km|kg|g|lbs?|oz|ml|l|ft|gb|tb|mb|%)", re.IGNORECASE)
_CODE_WORD = re.compile(r"[A-Z][A-Z0-9-]{2,}")
_SLOT_WORDS = frozenset({"id", "name", "code", "number", "no", "date", "time", "type", "status", "value", "i"})
"""Words a question capitalizes that are no value: slot words ("ID"), and the pronoun "I" (`name="I", id="I"` in a probe)."""
_ID = re.compile(r"[A-Za-z0-9][\w\-/.#]*[A-Za-z0-9]|\d", re.ASCII)
_NAME = re.compile(r"[A-Z][\w\-&.]*(?:['’]s)?(?:\s+[A-Z][\w\-&.]*(?:['’]s)?)*")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_CJK_RUN = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]{2,12}")
_CJK_PARTICLES = re.compile(r"[的是在了和吗呢与及或把被对从到为]")
STOPWORDS = frozenset(
    ["a", "an", "the", "of", "in", "on", "at", "for", "to", "by", "with", "from", "and", "or", "is", "are", "was", "were", "be", "been", "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "does", "do", "did", "can", "could", "would", "should", "will", "shall", "may", "might", "this", "that", "these", "those", "it", "its", "there", "their", "his", "her", "my", "your", "our", "me", "tell", "give", "find", "show", "list", "get", "please", "about", "into", "than", "then", "also", "any", "some", "much", "many"]
)


def unique_values(values: Sequence[Any]) -> list[Any]:
    """`values` without repeats and empty values, in order."""
    seen: set[str] = set()
    out = []
    for v in values:
        key = repr(v)
        if key not in seen and v not in ("", None):
            seen.add(key)
            out.append(v)
    return out


def key_values(text: str) -> list[str]:
    """The values a text names, the most specific first: quoted spans, e-mail addresses, dates, ids, names,
    numbers and Chinese spans; never its plain words ("basketball game", "saved")."""
    quoted = [next(g for g in m.groups() if g) for m in _QUOTED.finditer(text)]
    dates = ISO_DATE.findall(text) + _WRITTEN_DATE.findall(text)
    ids = [t for t in _ID.findall(text) if any(c.isdigit() for c in t)]
    names: list[str] = []
    for run in _NAME.findall(text):
        words = [w.removesuffix("'s").removesuffix("’s").rstrip(".") for w in run.split()]
        while words and words[0].casefold() in STOPWORDS:
            words = words[1:]
        if words:
            names.append(" ".join(words))
            names += words if len(words) > 1 else []
    cjk: list[str] = []
    for run in _CJK_RUN.findall(text):  # no word boundaries: the run, its parts between particles, then its 2-4 character spans
        cjk += [run, *(p for p in _CJK_PARTICLES.split(run) if len(p) >= 2)]
        cjk += [run[i : i + n] for n in (2, 3, 4) for i in range(len(run) - n + 1)]
    return unique_values([s.strip() for s in [*quoted, *_EMAIL.findall(text), *dates, *ids, *names, *_NUMBER.findall(text), *cjk]])


def call_values(main_question: str, answers: Sequence[str], question: str) -> list[str]:
    """The values a tool call for `question` may take: the `answers` it depends on (whole, then the values
    they name), and the values `main_question` names that `question` carries (`shared_cjk_spans` in Chinese).

    The agent is asked only the main question, so a value found nowhere else (a product id from the
    seed's text) is one it cannot call with; and a value that is a plain phrase of the sub-question
    (`product_id: "30-inch"`, `game_date: "basketball game"`, `card_id: "saved"`) verifies but looks
    nothing up.
    """
    answers = [a.strip() for a in answers]
    # Chinese values come from `shared_cjk_spans` alone: a run of `key_values` is a clause (我的公司最近的供应商有哪 was a golden `company_id`)
    latin = [v for v in whole_values(key_values(main_question)) if not _CJK_RUN.search(v)]
    named = [v for v in latin if answer_in_output(v, question)] + shared_cjk_spans(question, main_question)
    values = [*answers, *(v for a in answers for v in whole_values(key_values(a))), *named]
    # a slot word ("ID" of "the internal player ID of ...") names what is asked, not a value: it was a golden `id`
    return [v for v in dict.fromkeys(values) if normalize_answer(v) and v.casefold() not in _SLOT_WORDS]


def fits_parameter(name: str, value: str) -> bool:
    """Whether `value` can fill a parameter called `name`: an id or code takes a code or a number (not a place,
    a slot word or a measure: golden calls such as `game_id="TD Garden"`, `id="ID"`, `id="30-inch"`), a date takes a date (not a year: `date="2024"`); any other parameter takes any value."""
    value = value.strip()
    kind = parameter_kind(name)
    if kind == "id":
        dated = ISO_DATE.fullmatch(value) or _WRITTEN_DATE.fullmatch(value)
        numbered = any(c.isdigit() for c in value) and not _MEASURE.fullmatch(value) and not dated
        return numbered or bool(_CODE_WORD.fullmatch(value))
    if kind == "date":
        return bool(ISO_DATE.fullmatch(value) or _WRITTEN_DATE.fullmatch(value))
    return True


def parameter_kind(name: str) -> str | None:
    """"id" for a parameter named as an id or code (`order_id`, `station_code`), "date" for a date (`game_date`), else None."""
    key = name.casefold()
    return "id" if _ID_NAME.search(key) else "date" if _DATE_NAME.search(key) else None


def without_id_word(name: str) -> str:
    """A parameter's name for the value itself: `player_id` -> `player`, `station_code` -> `station`, `id` -> `name`."""
    return _ID_NAME.sub("", name.casefold()) or "name"


def whole_values(values: list[str]) -> list[str]:
    """`values` less those that are part of another ("Johann" of "Johann Gruber", "2024" of "2024-10-28"):
    a part of a value is not one (`day: "Johann"` was a golden argument in a final run)."""
    return [v for v in values if not any(v != other and v in other for other in values)]


def shared_cjk_spans(text: str, other: str) -> list[str]:
    """The longest Chinese spans `text` shares with `other` that can be a value: Chinese has no spaces to
    cut a value such as 故宫博物院 out of a question, but it recurs whole where it is meant.

    A shared span is not a value when it is a clause (over 8 characters: 房屋租赁合同是什么时候到), too
    short to name one thing (实验, 供应商), or holds a pronoun, a question word, a verb of need or a slot
    noun (我的公司, 实验需要, 工单编号): each was written as a golden `id`.
    """
    blocks = difflib.SequenceMatcher(None, text, other, autojunk=False).get_matching_blocks()
    spans = [text[b.a : b.a + b.size] for b in blocks]
    runs = [m for span in spans for m in _CJK_RUN.findall(span)]
    return unique_values([m for m in runs if _CJK_VALUE_CHARS[0] <= len(m) <= _CJK_VALUE_CHARS[1] and not _CJK_NOT_VALUE.search(m)])


_CJK_VALUE_CHARS = (4, 8)
_CJK_NOT_VALUE = re.compile(r"[我你您他她它]|什么|多少|哪|几|吗|怎|需要|编号|号码|名称|名字|时间|费用|价格|状态|地址|城市|信息|情况")
