"""What a trajectory shows about itself, found without a model: the judge's evidence.

A 1.5B judge scored a trajectory and its twin with one invented departure time alike; the
conversation itself says the time is in no tool result. The findings (`Grounding`, one field per
code of `CHECK_CODES`: `astra checks --family sft_judge`) are read off the messages, shown to the
judge and applied to its verdict (`_judge`). Values are normalized as verify matches answers; a
value the agent computed (a sum, a conversion) counts as ungrounded too: the judge is strict rather
than credulous. A retry after an error is what an injected timeout asks for, so it is no repeat.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, Field

from mcp_servers import CheckCode, answer_in_output
from synth.core import string_leaves
from synth.sft._answer_shape import call_text_problem, final_answer_problem, states_a_result

__all__ = ["CHECK_CODES", "Grounding", "final_answer_text", "grounding", "invented_steps"]

CHECK_CODES: tuple[CheckCode, ...] = CheckCode.load_declarations(__name__)
"""Every finding of the trajectory judge's evidence, one per field of `Grounding`."""

_VALUE = re.compile(r"[A-Za-z0-9]*\d[A-Za-z0-9]*(?:[.,:/\-][A-Za-z0-9]*\d[A-Za-z0-9]*)*")
_ISO_T = re.compile(r"(\d)T(\d)")
_UNIT_JOINED = re.compile(r"(\d)([^\W\d_]+)")
_ID_LIKE = re.compile(r"\d{3,}|[A-Za-z]\d|\d[A-Za-z]")
"""An id, a code or a long number: three digits in a row, or a letter beside a digit ("F12345", "12345678")."""
_ISO_DATE = re.compile(r"\d{4}-\d{2}(?:-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?)?|\d{1,2}:\d{2}|\d{1,2}/\d{1,2}/\d{4}|\d{4}/\d{1,2}/\d{1,2}")
"""A well-formed date, month or time ("2026-04" for 2026 年 4 月, "03/07/2026"): written from the user's words, not invented."""
_FAILURE_WORDS = re.compile(
    r"\b(error|errors|fail|failed|fails|failure|unable|could not|couldn't|cannot|can't|not available|unavailable|sorry|"
    r"did not work|didn't work|not found|try again|retry)\b|无法|失败|错误|抱歉|未能|不能|出错",
    re.IGNORECASE,
)


_REFUSAL_STATUS = re.compile(
    r"(sold[_ ]?out|unavailable|not[_ ]available|rejected|declined|denied|cancell?ed|failed|failure|expired|closed|"
    r"out[_ ]of[_ ]stock|insufficient[_ ]funds|fully[_ ]booked|full)",
    re.IGNORECASE,
)
_AVAILABILITY_KEY = re.compile(r"(is_)?(available|open|in_stock|success|successful|succeeded|eligible|approved|confirmed|bookable)", re.IGNORECASE)
_NEGATIVE_WORDS = re.compile(
    r"\b(no|not|none|nothing|never|sorry|unfortunately|unavailable|sold out|full|fully booked|rejected|declined|denied|"
    r"cancel\w*|failed|expired|closed|out of stock|insufficient|cannot|\w+n't)\b|不|没|无|抱歉|已满|满了|售罄|失败|拒绝|取消|关闭|过期",
    re.IGNORECASE,
)


class Grounding(BaseModel):
    """The findings of one trajectory (empty lists: nothing found)."""

    repeated_steps: list[int] = Field(default_factory=list, description="1-based tool steps that repeat an earlier call exactly.")
    ungrounded_values: list[str] = Field(default_factory=list, description="Values of the final answer found in no tool result or user message.")
    ignored_errors: list[int] = Field(default_factory=list, description="1-based steps whose error the agent neither recovered from nor reported.")
    invented_arguments: list[int] = Field(
        default_factory=list, description="1-based steps whose arguments hold an id or code found in no earlier message or result."
    )
    unreported_refusals: list[int] = Field(
        default_factory=list, description="1-based steps whose result refused what was asked (sold out, rejected) while the answer says nothing negative."
    )
    answer_problem: str | None = Field(default=None, description="Why the last message answers nobody (`final_answer_problem`), if it does not.")
    debris_steps: list[int] = Field(
        default_factory=list, description="1-based tool steps whose call came with text that is debris (`call_text_problem`)."
    )
    states_no_result: bool = Field(default=False, description="Every call succeeded and the answer states nothing they returned.")

    def lines(self) -> list[str]:
        """The findings as sentences for the judge's prompt."""
        out = [f"step {s} repeats an earlier call with the same arguments" for s in self.repeated_steps]
        if self.ungrounded_values:
            out.append(f"the final answer states {', '.join(self.ungrounded_values)}, which no tool result or user message contains")
        out += [f"step {s} returned an error that the assistant neither recovered from nor told the user about" for s in self.ignored_errors]
        out += [f"step {s} calls with an id or code that neither the user nor an earlier result gave" for s in self.invented_arguments]
        out += [f"step {s}'s result says what was asked cannot be had, and the final answer says nothing negative" for s in self.unreported_refusals]
        if self.answer_problem:
            out.append(f"the final answer does not answer the user: {self.answer_problem}")
        out += [f"step {s}'s call comes with text that is a call written out, a placeholder, debris or an imagined result" for s in self.debris_steps]
        if self.states_no_result:
            out.append("every call succeeded and the final answer states nothing they returned")
        return out


def final_answer_text(messages: list[dict[str, Any]]) -> str:
    """The content of the last assistant message without tool calls ("" when the trajectory has none)."""
    for m in reversed(messages):
        if m.get("role") == "assistant" and not m.get("tool_calls"):
            return str(m.get("content") or "")
    return ""


def _arguments(call: dict[str, Any]) -> str:
    raw = (call.get("function") or {}).get("arguments")
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return str(raw)
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def grounding(messages: list[dict[str, Any]], error_call_ids: set[str]) -> Grounding:
    """Read the findings off an OpenAI-format conversation.

    Args:
        messages: the conversation, with `tool_calls` and `tool` messages.
        error_call_ids: ids of tool calls whose results were errors.
    """
    replies = {m.get("tool_call_id"): m for m in messages if m.get("role") == "tool"}
    calls = [c for m in messages if m.get("role") == "assistant" for c in m.get("tool_calls") or []]

    def failed(call: dict[str, Any]) -> bool:
        return call.get("id") in error_call_ids or call.get("id") not in replies

    seen: set[tuple[str, str]] = set()
    repeated: list[int] = []
    for step, call in enumerate(calls, 1):
        key = ((call.get("function") or {}).get("name", ""), _arguments(call))
        if key in seen:
            repeated.append(step)
        if not failed(call):  # calling again after an error is the retry a timeout asks for, not a repeat
            seen.add(key)

    evidence = "\n".join(
        str(m.get("content") or "") for m in messages if m.get("role") in ("tool", "user", "system")
    ) + "\n" + "\n".join(_arguments(c) for c in calls)
    evidence += "\n" + _ISO_T.sub(r"\1 \2", evidence)  # 2026-03-10T22:41 states the date 2026-03-10 and the time 22:41
    evidence += "\n" + _UNIT_JOINED.sub(r"\1 \2", evidence)  # "325mg" states the "325" of "325 mg"
    answer = final_answer_text(messages)
    # one digit ("3 trains", the 3 of a CJK date) is too common a value to tell anything
    ungrounded = [v for v in dict.fromkeys(_VALUE.findall(answer)) if len(v) > 1 and not answer_in_output(v, evidence)]

    ignored: list[int] = []
    for step, call in enumerate(calls, 1):
        if not failed(call):
            continue
        recovered = any(not failed(later) for later in calls[step:])
        if not recovered and not _FAILURE_WORDS.search(answer):
            ignored.append(step)
    refused = [] if _NEGATIVE_WORDS.search(answer) else [
        step for step, call in enumerate(calls, 1) if not failed(call) and _refuses(replies[call.get("id")].get("content"))
    ]  # fmt: skip
    names = [(c.get("function") or {}).get("name", "") for c in calls]
    problem = final_answer_problem(answer, names)
    debris: list[int] = []
    step = 0
    for m in messages:
        if m.get("role") == "assistant" and m.get("tool_calls"):
            if call_text_problem(str(m.get("content") or "")):
                debris.append(step + 1)
            step += len(m["tool_calls"])
    results = [str(replies[c.get("id")].get("content") or "") for c in calls if not failed(c)]
    silent = bool(calls) and len(results) == len(calls) and problem is None and not states_a_result(answer, results)
    return Grounding(
        repeated_steps=repeated, ungrounded_values=ungrounded, ignored_errors=ignored, invented_arguments=invented_steps(messages),
        unreported_refusals=refused, answer_problem=problem[1] if problem else None, debris_steps=debris, states_no_result=silent,
    )  # fmt: skip


def invented_steps(messages: list[dict[str, Any]]) -> list[int]:
    """The 1-based tool steps whose string arguments hold an id-like value (`_ID_LIKE`) that no user or system
    message and no tool result before the step contains."""
    known: list[str] = []
    steps: list[int] = []
    step = 0
    for m in messages:
        if m.get("role") in ("user", "system", "tool"):
            known.append(str(m.get("content") or ""))
        for call in (m.get("tool_calls") or []) if m.get("role") == "assistant" else []:
            step += 1
            evidence = "\n".join(known)
            try:
                arguments = json.loads(_arguments(call))
            except ValueError:
                continue
            if any(_ID_LIKE.search(v) and not _ISO_DATE.fullmatch(v.strip()) and not answer_in_output(v, evidence) for v in string_leaves(arguments)):
                steps.append(step)
    return steps


def _refuses(content: Any) -> bool:
    """Whether a JSON tool result reports a refusal: a status value such as `sold_out`, or `available: false`."""
    try:
        data = json.loads(content) if isinstance(content, str) else content
    except ValueError:
        return False

    def walk(value: Any, key: str = "") -> bool:
        if isinstance(value, dict):
            return any(walk(v, str(k)) for k, v in value.items())
        if isinstance(value, list):
            return any(walk(v, key) for v in value)
        if value is False:
            return bool(_AVAILABILITY_KEY.fullmatch(key))
        return isinstance(value, str) and bool(_REFUSAL_STATUS.fullmatch(value.strip()))

    return walk(data)
