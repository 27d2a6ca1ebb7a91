"""Whether an agent's last message answers the user: the shapes of a last message that does not.

Read off the text alone, so both the rollout stage (`_rollout.rollout_problem`, which plays such a
rollout again) and the trajectory judge (`_grounding`, which zeroes its final answer) use them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from mcp_servers import CheckCode, answer_in_output, normalize_answer
from synth.core import string_leaves

__all__ = ["ASKS_USER", "CHECK_CODES", "call_text_problem", "final_answer_problem", "states_a_result"]

CHECK_CODES: tuple[CheckCode, ...] = CheckCode.load_declarations(__name__)
"""Every code `call_text_problem` and `final_answer_problem` return; each example but `answer_cut_off`'s is a text that fails with it."""

_MARKUP = re.compile(r"```\w*|<[^<>]{0,40}>")
_WOULD_CALL = r"(?:can|could|should|would|need to|may) (?:use|call|run|invoke)\b[^.]{0,60}\b"
_INSTRUCTS = re.compile(
    rf"\b(?:you|we) {_WOULD_CALL}(?:function|tool|command|endpoint)s?\b|\bthe following (?:JSON|arguments|parameters)\b|```json",
    re.IGNORECASE,
)
_NARRATES = re.compile(
    r"\bthe result (?:of|from) (?:calling )?(?:the )?`?\w+`? (?:function|tool)|\bthe result of calling\b|\b(?:used|called|calling|using) the\s+`?\w+`?\s+(?:function|tool)\b|\bthe (?:function|tool) (?:returns|returned)\b",
    re.IGNORECASE,
)
_NEXT_STEP = re.compile(
    r"^\W*(?:ok(?:ay)?|sure|好的|好)?\W*(?:接下来|下一步|然后我们|(?:我们)?继续(?:调用|查询)|next,? (?:I|we)(?:'ll| will)|now,? (?:I|we)(?:'ll| will)"
    r"|let me (?:now )?(?:check|look|search|find|query|get|try)|let'?s (?:now )?(?:proceed|continue|move on|call))",
    re.IGNORECASE,
)
_PROMISES_STEP = re.compile(r"\b(?:I|we)(?:'ll| will| am going to| are going to) now (?:call|check|search|look|query|get|try|use)\b", re.IGNORECASE)
"""A next step promised mid-answer: e.g. a row ending "This is an error response. I will now call the
"check_tables" function ...", which the judge passed at 0.86."""
ASKS_USER = re.compile(
    r"\b(?:please|kindly|could you|can you|would you)\b[^.?!\n]{0,40}?\b(?:provide|give|tell|share|specify|send|let me know)\b"
    r"|请(?:您)?(?:提供|告诉|告知|确认|输入)",
    re.IGNORECASE,
)
_ASKS_TOOL_OUTPUT = re.compile(
    r"\b(?:provide|give|share|send|paste|tell)\b[^.?!\n]{0,30}\b(?:output|result|response|return value)s?\b[^.?!\n]{0,20}\b(?:of|from)\b"
    r"|请(?:您)?(?:提供|告诉我|给出)[^。！？\n]{0,40}(?:返回结果|返回值|输出|调用结果)",
    re.IGNORECASE,
)
"""The user asked for what a tool returns: e.g. a row ending "Please provide the output from the
get_seat_availability function call" (judged 0.92)."""
_LABEL_ONLY = re.compile(r"^[\W_]*[^\W\d_][\w ]{0,20}:[\W_]*$")
"""A heading with nothing under it: e.g. a row ending on "**Result:**" (judged 0.92)."""
_TAG_DEBRIS = re.compile(r"</?(?:final_answer|response|answer|result)>|^\s*//", re.IGNORECASE | re.MULTILINE)
"""Tags of a template the model wrote around its answer ("<final_answer> ... </final_answer> </response>"), or code
comments ("// Wait for get_weather_alerts to return the expected result")."""
_ECHOES_ERROR = re.compile(r"^\W*err(?:or)?\b", re.IGNORECASE)
_CALL_AS_TEXT = re.compile(r'"name"\s*:\s*"[^"]+"\s*,\s*"arguments"|</?tool_(?:call|response)>|</?tools>')
"""A call written as text, or its tags: e.g. the empty `<tools> </tools>` pairs a teacher agent left around its answers."""


_PLACEHOLDER = re.compile(r"<[^<>\n]{0,60}\bfrom\b[^<>\n]{0,60}>|\b[a-z]+(?:_[a-z]+)*_from_[a-z_]*\b|\byour_[a-z]+(?:_[a-z]+)*\b")
"""A value the model had not got yet, named instead: `<restaurant-id-from-search-results>`,
`restaurant_id_from_search_results`, `your_city_id`."""
_IMAGINES = re.compile(r"\bhow the tools? (?:would|might|will) (?:potentially )?respond\b|\blet'?s assume\b|\bassuming (?:it|the call|the tool)\b", re.IGNORECASE)
_TELLS_USER = re.compile(rf"\byou {_WOULD_CALL}(?:function|tool)s?\b", re.IGNORECASE)
"""Beside its own call, the agent telling the user which function to use ("we can use search_city first" is a plan)."""


def call_text_problem(text: str | None) -> tuple[str, str] | None:
    """(reason code, detail) when the text an agent wrote beside a tool call is no step to learn from, else None.

    A teacher run exported rows whose calls came with a plan of later calls as JSON, their ids
    still placeholders (`"restaurant_id": <restaurant-id-from-search-results>`), code comments ("// Wait for
    get_weather_alerts ..."), "Here's how the tools would potentially respond" or "Let's assume it works. To
    book it, you would use the function:"; a short sentence of what the agent does next is fine.
    """
    text = (text or "").strip()
    for pattern, what in (
        (_CALL_AS_TEXT, "a call written as text"), (_PLACEHOLDER, "a placeholder for a value not yet found"),
        (_TAG_DEBRIS, "template debris"), (_IMAGINES, "a tool result imagined"), (_TELLS_USER, "instructions to the user"),
    ):  # fmt: skip
        if m := pattern.search(text):
            return "text_beside_call", f"the text beside a tool call holds {what}: {m.group(0)!r}"
    return None


def states_a_result(answer: str | None, results: Sequence[str]) -> bool:
    """Whether `answer` states a value that one of the tool `results` (their text) holds: a string or number of
    a JSON result, or a line of a plain-text one.

    E.g. a row that called `search_city` and `get_air_quality` and answered "Your request to obtain
    the next day's weather forecast is valid after the air quality is checked." (judged 0.89).
    """
    values: list[str] = []
    for text in results:
        try:
            # numbers kept as their text, so an AQI of 50 is a value the answer can state
            values += string_leaves(json.loads(text, parse_int=str, parse_float=str))
        except ValueError:
            values += text.splitlines()
    return any(len(normalize_answer(v)) >= 2 and answer_in_output(v, answer or "") for v in values)


def final_answer_problem(answer: str | None, tool_names: Sequence[str], *, finish_reason: str | None = None) -> tuple[str, str] | None:
    """(reason code, detail) when the last message is no answer to the user, else None.

    The teacher as agent ended 10 of its first 23 accepted rollouts with a tool call written as text the
    parser could not read (`{{"name": "get_flight_details", ...`, `query_city("北京") <tool_response>`)
    or with nothing in words (empty, `<json>`, a bare code fence); the agent loop stops there
    as on a final answer, and the judge passed two such with 0.86 and 0.79. An answer that
    tells the user which function to call, with what JSON, answers nothing either: the judge
    scored one 1.00 on a real environment. Nor does one that narrates the agent's own call ("This
    response is the result of calling the `get_transactions` function ..."): 2 of the 12 rows of a
    teacher run did. Nor does one the token budget cut off (`finish_reason` "length"), stopped
    mid-sentence. Nor does one that announces a next step and stops ("好的，接下来我们查询成都的天气预报。")
    or says it shows "the result from the `find_station` function call" (exported rows, judged 0.90 and
    0.92). Nor, from exported rows judged 0.70-0.92, does a bare heading ("**Result:**"), "Let me
    try again.", a tool error repeated as the answer ("Error: Error: request to ... timed out"), or a list of
    the calls made ("1. **search_city**: ..."), or a request to the user for a tool's output.
    """
    text = (answer or "").strip()
    if finish_reason == "length":
        return "answer_cut_off", f"the last assistant message ran out of tokens: ...{text[-160:]!r}"
    bare = _MARKUP.sub("", text)
    if len(re.findall(r"[^\W\d_]", bare)) < 2 or _LABEL_ONLY.match(bare):  # nothing, "<json>", "```", "**Result:**"
        return "empty_final_answer", f"the last assistant message says nothing: {text[:80]!r}"
    called = [n for n in tool_names if re.search(rf"\b{re.escape(n)}\s*\(", text)]
    if _CALL_AS_TEXT.search(text) or called:
        return "unparsed_tool_call", f"the last assistant message is a tool call written as text: {text[:200]!r}"
    if m := _TAG_DEBRIS.search(text):
        return "markup_debris", f"the last assistant message holds template tags no answer to a user holds: {m.group(0)!r}"
    if m := _INSTRUCTS.search(text):
        return "instructs_tool_use", f"the last assistant message tells the user how to call a tool instead of answering: {m.group(0)!r}"
    if m := _NARRATES.search(text):
        return "narrates_tool_call", f"the last assistant message tells the user about the agent's tool call instead of answering: {m.group(0)!r}"
    if m := _ASKS_TOOL_OUTPUT.search(text):
        return "asks_for_tool_output", f"the last assistant message asks the user for what a tool returns: {m.group(0)!r}"
    if m := _NEXT_STEP.search(text) or _PROMISES_STEP.search(text):
        return "announces_next_step", f"the last assistant message announces a step it never takes instead of answering: {m.group(0)!r}"
    if _ECHOES_ERROR.search(text):
        return "echoes_error", f"the last assistant message repeats a tool error instead of telling the user what could not be done: {text[:160]!r}"
    if listed := [n for n in tool_names if re.search(rf"(?:\*\*|`){re.escape(n)}(?:\*\*|`)|\b{re.escape(n)}\s*:|^\s*[-*]\s*{re.escape(n)}\s*$", text, re.MULTILINE)]:
        return "narrates_tool_call", f"the last assistant message lists the agent's calls ({listed}) instead of answering"
    return None
