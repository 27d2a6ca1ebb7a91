"""Whether a task's text is a request a user would send: the shapes of one that is not.

Read off the text alone, so both the task writers (`_tasks`, which send such a request back) and
the score stage (`_pipeline`, which rejects one written elsewhere) use them; no score sees them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from mcp_servers import CheckCode

__all__ = ["CHECK_CODES", "request_problem"]

CHECK_CODES: tuple[CheckCode, ...] = CheckCode.load_declarations(__name__)
"""Every code `request_problem` returns; each example is a request that fails with it."""

_PLACEHOLDER = re.compile(r"\{[^{}]{0,40}\}|<[^<>]{1,40}>|\[(?:[A-Za-z_ ]{1,30}|[\u3400-\u9fff]{1,10})\]")
_ABOUT_THE_USER = re.compile(r"^\s*(?:\d+[.)]\s*)?(?:the |a )?(?:user|customer)s?\b|^\s*(?:\d+[.)]\s*)?(?:用户|客户)", re.IGNORECASE)
_VALUE_NOUNS = r"(?:date|day|time|flight|train|city|station|branch|passenger|member|account|restaurant|hotel|doctor|order|card|medicine|product|store|location|ID|number)s?"
_MISSING_DETAIL = re.compile(
    rf"\b(?:a|an|the|some)\s+(?:specific|certain|given|particular)\s+{_VALUE_NOUNS}\b"
    r"|\b(?:branch|city|station|store|account|restaurant|hotel|doctor|card|order)\s+[A-Z]\b(?![\w-])|某(?:个|一|天|城市|日)",
    re.IGNORECASE,
)
_FRAGMENT = re.compile(r"^\s*(?:[,.;:)\]}>，。；：）】」]|(?:but|however|yes)\b)", re.IGNORECASE)
_ASSISTANT_VOICE = re.compile(
    r"^\s*(?:it (?:appears|seems|looks like) you|do you (?:need|want)\b|would you like\b|here (?:is|are)\b|sure\b|certainly\b|how can i help)",
    re.IGNORECASE,
)
_DEIXIS = re.compile(
    r"\b(?:this|these|those)\s+(book|quote|car|order|flight|train|booking|reservation|account|card|medicine|prescription|item|"
    r"product|hotel|room|restaurant|table|ticket|seat|trip|package|shipment|loan|station|city|patient|family|customer|action|task)(?:'s|s|es)?\b",
    re.IGNORECASE,
)
_ABOUT_THE_REQUEST = re.compile(r"\b(?:original|this|the|rewritten) request\b|\badded constraints\b|\brewritten\b|原始请求|改写", re.IGNORECASE)


def request_problem(text: str, tool_names: Sequence[str] = ()) -> tuple[str, str] | None:
    """(reason code, message) when `text` is not a request a user would send, else None.

    The teacher's tasks that scored 5 of 5 included a template left unfilled ("{0}市今天上午的天气"),
    a description of a task ("The user needs to search for flights, get seat availability, and
    book the seat"), the augmenter talking about its own rewrite ("Why is this request being
    interpreted as requiring more careful tool use? Here are the added constraints") and a request
    that names the tool to call ("please use the check_stock command"), and 61 of 220 left out
    the value every call needs ("flights from New York to Tokyo on a specific date", "the stock
    in branch X"). Others begin mid-conversation (",查询北京…", "}Which ship runs…", "But I want
    to renew…") or speak as the assistant ("It appears you're looking to find…", "Do you need to
    check the availability…"), and some point at what they never named ("Which branch should I go to
    for this book?", "Calculate the security deposit for this quote"). No score sees them, so they
    are read off the text.
    """
    if m := _PLACEHOLDER.search(text):
        return "placeholder", f"the request holds the placeholder {m.group(0)!r}: write the actual value"
    if _ABOUT_THE_USER.search(text):
        return "not_a_request", "the request describes the user in the third person: write what the user says, in the first person"
    if m := _FRAGMENT.match(text):
        return "fragment", f"the request begins mid-conversation ({m.group(0).strip()!r}): write the whole first message a user sends"
    if m := _ASSISTANT_VOICE.match(text):
        return "assistant_voice", f"the request is in the assistant's voice ({m.group(0).strip()!r}): write what the user says"
    if m := _ABOUT_THE_REQUEST.search(text):
        return "about_the_request", f"the request talks about itself ({m.group(0)!r}): write only what the user says"
    if m := _MISSING_DETAIL.search(text):
        return "missing_detail", f"the request leaves a value out ({m.group(0)!r}): a user states their own date, place or name"
    if pointer := _no_antecedent(text):
        return "no_antecedent", f"the request points at {pointer!r} without saying which: a first message names it"
    named = [n for n in tool_names if "_" in n and re.search(rf"\b{re.escape(n)}\b", text)]
    if named:
        return "names_a_tool", f"the request names the tool {named[0]!r}: a user says what they want, not which tool to call"
    return None


def _no_antecedent(text: str) -> str | None:
    """'this book' (a thing of the kind tools look up) when nothing before it in the text names a book."""
    for m in _DEIXIS.finditer(text):
        if m.group(1).lower() not in text[: m.start()].lower():
            return m.group(0)
    return None
