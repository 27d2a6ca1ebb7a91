"""Questions and answers from templates over the labels, in English and in Chinese.

A walk is described by noun phrases ("the customer of order ORD-2010", "订单ORD-2010的客户") and
the labels of what it asks for. Several templates per shape keep questions from all reading
alike; the seed picks one. Answers state the values and never describe them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

__all__ = ["Phrasing", "phrasing"]


@dataclass(frozen=True)
class Phrasing:
    """The wording of one language: noun phrases, sub-questions, main questions and answers."""

    language: str

    def named(self, entity: str, handle: str) -> str:
        """A row named by the user: 'customer Wang Fang', '客户王芳'; a name that says what it is stands alone
        ('Des Moines International Airport', not 'airport Des Moines International Airport')."""
        if entity.casefold() in handle.casefold():
            return handle
        return f"{entity}{handle}" if self.language == "zh" else f"{entity} {handle}"

    def related(self, what: str, of: str) -> str:
        """A row reached through a reference: 'the customer of order ORD-2010'."""
        return f"{of}的{what}" if self.language == "zh" else f"the {what} of {of}"

    def searched(self, entity: str, field: str, value: str) -> str:
        """A row found by one of its fields: 'the hotel whose city is Lyon'."""
        return f"{field}为{value}的{entity}" if self.language == "zh" else f"the {entity} whose {field} is {value}"

    def id_question(self, of: str) -> str:
        """The sub-question asking for a row's id."""
        return f"{of}的编号是什么？" if self.language == "zh" else f"What is the id of {of}?"

    def value_question(self, what: str, of: str, extra: str = "") -> str:
        """The sub-question asking for one value of a row."""
        if self.language == "zh":
            return f"{of}{extra}的{what}是什么？"
        return f"What is the {what} of {of}{extra}?"

    def for_count(self, count: int, label: str) -> str:
        """'for 3 days', '按3天计算'."""
        return f"按{count}{label}计算" if self.language == "zh" else f" for {count} {label}"

    def main(self, what: str, ofs: list[str], extra: str, rng: random.Random, *, numeric: bool = False) -> str:
        """The main question: one value of one row, or the same value of several rows (`numeric`: asks how much)."""
        if self.language == "zh":
            subject = "和".join(ofs)
            ask = "多少" if numeric else "什么"
            if len(ofs) == 1:
                templates = ["{s}{x}的{w}是什么？", f"请问{{s}}{{x}}的{{w}}是{ask}？", "帮我查一下{s}{x}的{w}，好吗？", "我想知道{s}{x}的{w}，能告诉我吗？"]
            else:
                templates = ["{s}{x}的{w}分别是什么？", f"请问{{s}}{{x}}的{{w}}各是{ask}？", "帮我查一下{s}{x}各自的{w}，好吗？"]
            return rng.choice(templates).format(s=subject, x=extra, w=what)
        subject = " and ".join(ofs) if len(ofs) == 1 else ", ".join(ofs[:-1]) + " and of " + ofs[-1]
        if len(ofs) == 1:
            templates = ["What is the {w} of {s}{x}?", "Could you tell me the {w} of {s}{x}?", "Do you know the {w} of {s}{x}?",
                         "I need the {w} of {s}{x}. What is it?", "Can you look up the {w} of {s}{x}?"]  # fmt: skip
        else:
            templates = ["What is the {w} of {s}{x}?", "Could you tell me the {w} of {s}{x}?", "Can you look up the {w} of {s}{x}?",
                         "I need the {w} of {s}{x}. What are they?"]  # fmt: skip
        return rng.choice(templates).format(s=subject, x=extra, w=what)

    def answer(self, what: str, pairs: list[tuple[str, str]], extra: str = "") -> str:
        """The main answer: each value, named by the row it belongs to."""
        if self.language == "zh":
            return "；".join(f"{of}{extra}的{what}是{value}" for of, value in pairs) + "。"
        parts = [f"the {what} of {of}{extra} is {value}" for of, value in pairs]
        text = "; ".join(parts)
        return text[0].upper() + text[1:] + "."


def phrasing(language: str) -> Phrasing:
    """The `Phrasing` of `language` ("en" or "zh")."""
    if language not in {"en", "zh"}:
        raise ValueError(f"no templates for language {language!r} (en, zh)")
    return Phrasing(language)
