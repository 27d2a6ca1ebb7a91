"""The word-labelled scale every judge answers on.

Asked for a number, a small model wrote the lowest score beside a reason that praised the item
(the 0.5B) or the same middle score for a good item and its planted-bad twin (the 1.5B teacher:
23 of 23 trajectory pairs tied). Words that name what holds are what both models use apart.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from agent_sdk import TokenChoice

__all__ = ["VERDICTS", "VERDICT_TOP_LOGPROBS", "VERDICT_WORDS", "YES_NO", "VerdictReader", "verdict_schema"]

VERDICTS: dict[str, float] = {"yes": 1.0, "mostly": 0.75, "partly": 0.4, "no": 0.0}
"""Each verdict and the score in [0, 1] it stands for."""

VERDICT_WORDS = "yes (fully holds), mostly (holds with a small flaw), partly (a real flaw) or no (clearly violated)"
"""How the scale is explained in a prompt."""

YES_NO: dict[str, float] = {"yes": 1.0, "no": 0.0}
"""A yes/no answer as a score."""

VERDICT_TOP_LOGPROBS = 5
"""Alternatives a judge asks for at each token (`SamplingSettings.top_logprobs`): enough to hold every
verdict word the model weighs, for `VerdictReader`."""


def verdict_schema() -> dict[str, Any]:
    """The JSON Schema of one verdict."""
    return {"type": "string", "enum": list(VERDICTS)}


_WORD = re.compile(r"[\w-]*")
_LIST_ITEM = re.compile(r'\s*"([^"]*)"\s*(,|\])')


class VerdictReader:
    """Scores of a reply's word answers, weighted by how sure the model was of each word.

    A judge that writes "yes" for a good item and for its planted-bad twin may still have been less
    sure of the second: the reply's token probabilities (`SamplingSettings.top_logprobs`) say so.
    Where they were returned, a field's score is the expectation of the options' scores under the
    model's probabilities of the options at the position where the field's value starts (the
    sampled token read as the written word, each alternative as the one option it begins, mass on
    no option or on several left out); otherwise, and wherever a position cannot be read, it is
    the written word's score. A written word that is
    no option scores None: judges still fail closed.
    """

    def __init__(self, token_choices: Sequence[TokenChoice] | None) -> None:
        self._choices = list(token_choices or [])
        self._text = "".join(c.token for c in self._choices)
        self._starts = _starts(self._choices)

    def score(self, key: str, written: Any, options: Mapping[str, float] = VERDICTS) -> float | None:
        """The score of the scalar field `key`, whose parsed value is `written`."""
        base = _option_score(written, options)
        if base is None:
            return None
        offsets = self._value_offsets(key)
        weighted = self._expectation(offsets[0], options, written.strip().lower()) if len(offsets) == 1 else None
        return base if weighted is None else weighted

    def scores(self, key: str, written: Sequence[Any], options: Mapping[str, float] = VERDICTS) -> list[float] | None:
        """The scores of the list field `key`, item by item (None when any written item is no option)."""
        base = [_option_score(w, options) for w in written]
        if any(b is None for b in base):
            return None
        offsets = self._value_offsets(key)
        if len(offsets) != len(base):
            return base  # type: ignore[return-value]
        weighted = [self._expectation(offset, options, w.strip().lower()) for offset, w in zip(offsets, written, strict=True)]
        return [b if w is None else w for b, w in zip(base, weighted, strict=True)]  # type: ignore[misc]

    def _value_offsets(self, key: str) -> list[int]:
        """Where the string value(s) of `key` start in the reply (its last occurrence: a reason written first may quote the key)."""
        found = [m.end() for m in re.finditer(rf'"{re.escape(key)}"\s*:\s*', self._text)]
        if not found:
            return []
        at = found[-1]
        if self._text.startswith('"', at):
            return [at + 1]
        if not self._text.startswith("[", at):
            return []
        offsets, at = [], at + 1
        while (item := _LIST_ITEM.match(self._text, at)) is not None:
            offsets.append(item.start(1))
            at = item.end()
            if item.group(2) == "]":
                return offsets
        return []

    def _expectation(self, offset: int, options: Mapping[str, float], written: str) -> float | None:
        index = next((i for i, start in enumerate(self._starts) if start <= offset < start + len(self._choices[i].token)), None)
        if index is None:
            return None
        choice = self._choices[index]
        before = choice.token[: offset - self._starts[index]]
        # The sampled token led to the written word; an alternative counts for the one option it begins.
        mass: dict[str, float] = {written: math.exp(choice.logprob)}
        for token, logprob in choice.top.items():
            if token == choice.token or not token.startswith(before):
                continue
            fragment = _WORD.match(token[len(before) :].lower()).group(0)  # type: ignore[union-attr]
            matches = [o for o in options if fragment and o.startswith(fragment)]
            if len(matches) == 1:
                mass[matches[0]] = mass.get(matches[0], 0.0) + math.exp(logprob)
        total = sum(mass.values())
        if total <= 0:
            return None
        return sum(p * options[o] for o, p in mass.items()) / total


def _starts(choices: Sequence[TokenChoice]) -> list[int]:
    at, starts = 0, []
    for c in choices:
        starts.append(at)
        at += len(c.token)
    return starts


def _option_score(written: Any, options: Mapping[str, float]) -> float | None:
    if not isinstance(written, str):
        return None
    return options.get(written.strip().lower())
