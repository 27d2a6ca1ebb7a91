"""Worked decompositions, shown to the decomposer as an earlier turn of the conversation.

Told the rules alone, the 1.5B teacher never wrote `{q1}` where an earlier answer goes (it wrote
"this game", then dropped the dependency when told), asked for the user's own details, and left
the values it found out of its final answer. One complete example of the shape asked for, in a
domain no slice row is from (a library), shows all of it at once. Its values are markers: a reply
that repeats one copied the example (`copied_example`), not the shape. The student (0.5B) wrote a
lease's "还能续借几次" due "2026-02-14" in a final run, so the due date and 续借 (renew a loan) are
markers too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from synth.core import PromptExample
from synth.env.records import Seed


@dataclass(frozen=True)
class Demonstration:
    """A seed, the decomposition written for it, and the test whether a reply copied it."""

    seed: Seed
    reply: dict[str, Any]
    example: PromptExample

    @property
    def text(self) -> str:
        """The reply as the assistant's turn (compact JSON, as a constrained engine writes it)."""
        return json.dumps(self.reply, ensure_ascii=False, separators=(",", ":"))


def _demo(language: str, domain: str, corpus: str, reply: dict[str, Any], markers: list[str]) -> Demonstration:
    seed = Seed(id=f"demo-{language}", mode="corpus", domain=domain, language=language, knowledge_corpus=corpus, min_hops=2, max_hops=4, ref="demo")
    feedback = "you copied the worked example (its book, card and loan); write the question and sub-questions for this text"
    return Demonstration(seed=seed, reply=reply, example=PromptExample(reply, markers=markers, feedback=feedback))


_EN = _demo(
    "en",
    "library",
    "background: I borrowed \"The Quiet Orbit\" from the Riverside branch and want to renew it before it is due.\n"
    "Find out when my loan of \"The Quiet Orbit\" is due and how many renewals I have left.\n"
    " Known Infomation: My library card number is LC-58213. The book is \"The Quiet Orbit\".\n"
    " Information Needed: The loan id, its due date and the renewals left.",
    {
        "main_question": "When is my loan of \"The Quiet Orbit\" on card LC-58213 due, and how many renewals do I have left?",
        "sub_questions": [
            {"id": "q1", "depends_on": [], "question": "What is the id of the loan of \"The Quiet Orbit\" on library card LC-58213?",
             "statement": "The Quiet Orbit is out on card LC-58213 as loan LN-90412.", "answer": "LN-90412"},
            {"id": "q2", "depends_on": ["q1"], "question": "On what date is loan {q1} due?",
             "statement": "Loan LN-90412 is due on 2026-02-14.", "answer": "2026-02-14"},
            {"id": "q3", "depends_on": ["q1"], "question": "How many renewals are left on loan {q1}?",
             "statement": "Loan LN-90412 has 2 renewals left.", "answer": "2 renewals"},
        ],
        "final_answer": "Your loan of \"The Quiet Orbit\" (LN-90412) is due on 2026-02-14, and you have 2 renewals left.",
    },
    ["LN-90412", "The Quiet Orbit", "LC-58213", "2026-02-14"],
)

_ZH = _demo(
    "zh",
    "图书馆（借阅、续借）",
    "background: 我在城东分馆借了《静默轨道》，想在到期前续借。\n请查一下我借的《静默轨道》什么时候到期，还能续借几次。\n"
    " Known Infomation: 我的借书证号是 LC-58213。书名是《静默轨道》。\n Information Needed: 借阅编号、到期日和剩余续借次数。",
    {
        "main_question": "我用借书证 LC-58213 借的《静默轨道》什么时候到期？还能续借几次？",
        "sub_questions": [
            {"id": "q1", "depends_on": [], "question": "借书证 LC-58213 借阅《静默轨道》的借阅编号是什么？",
             "statement": "借书证 LC-58213 借阅《静默轨道》的借阅编号是 LN-90412。", "answer": "LN-90412"},
            {"id": "q2", "depends_on": ["q1"], "question": "借阅 {q1} 的到期日是哪天？", "statement": "借阅 LN-90412 于 2026-02-14 到期。",
             "answer": "2026-02-14"},
            {"id": "q3", "depends_on": ["q1"], "question": "借阅 {q1} 还能续借几次？", "statement": "借阅 LN-90412 还能续借2次。", "answer": "2次"},
        ],
        "final_answer": "您借的《静默轨道》（借阅编号 LN-90412）将于 2026-02-14 到期，还能续借2次。",
    },
    ["LN-90412", "静默轨道", "LC-58213", "2026-02-14", "续借"],
)

DEMONSTRATIONS = {"en": _EN, "zh": _ZH}
"""The worked decomposition shown for a seed of each language (English for any other)."""


def demonstration(language: str) -> Demonstration:
    """The worked decomposition to show for a seed in `language`."""
    return DEMONSTRATIONS.get(language, _EN)
