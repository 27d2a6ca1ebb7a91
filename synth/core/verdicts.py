"""The word-labelled scale every judge answers on.

Asked for a number, a small model wrote the lowest score beside a reason that praised the item
(the 0.5B) or the same middle score for a good item and its planted-bad twin (the 1.5B teacher:
23 of 23 trajectory pairs tied). Words that name what holds are what both models use apart.
"""

from __future__ import annotations

from typing import Any

__all__ = ["VERDICTS", "VERDICT_WORDS", "verdict_schema", "verdict_score"]

VERDICTS: dict[str, float] = {"yes": 1.0, "mostly": 0.75, "partly": 0.4, "no": 0.0}
"""Each verdict and the score in [0, 1] it stands for."""

VERDICT_WORDS = "yes (fully holds), mostly (holds with a small flaw), partly (a real flaw) or no (clearly violated)"
"""How the scale is explained in a prompt."""


def verdict_schema() -> dict[str, Any]:
    """The JSON Schema of one verdict."""
    return {"type": "string", "enum": list(VERDICTS)}


def verdict_score(value: Any) -> float | None:
    """The score of a verdict word (case and surrounding space ignored), None for anything else."""
    if not isinstance(value, str):
        return None
    return VERDICTS.get(value.strip().lower())
