"""VerdictReader: a reply's word answers weighted by the model's own probabilities of them."""

from __future__ import annotations

import math
import re

import pytest

from agent_sdk import TokenChoice
from synth.core import VERDICTS, YES_NO, VerdictReader


def tokens(text: str, alternatives: dict[str, dict[str, float]] | None = None) -> list[TokenChoice]:
    """`text` cut into word / space / punctuation tokens; a word token listed in `alternatives` gets those
    probabilities (its own included), each occurrence in turn."""
    pending = {word: list(options.items()) if isinstance(options, dict) else options for word, options in (alternatives or {}).items()}
    out = []
    for token in re.findall(r"\w+|\s+|[^\w\s]", text):
        probabilities = pending.get(token, {})
        top = {t: math.log(p) for t, p in probabilities} if probabilities else {}
        out.append(TokenChoice(token=token, logprob=top.get(token, 0.0), top=top))
    return out


def test_a_scalar_verdict_is_the_expectation_over_the_words_the_model_weighed():
    text = '{"reason": "fine", "final_answer": "yes"}'
    reader = VerdictReader(tokens(text, {"yes": {"yes": 0.6, "no": 0.3, "mostly": 0.1}}))
    assert reader.score("final_answer", "yes") == pytest.approx(0.6 * 1.0 + 0.3 * 0.0 + 0.1 * VERDICTS["mostly"])
    assert VerdictReader(tokens(text, {"yes": {"yes": 0.99, "no": 0.01}})).score("final_answer", "yes") > reader.score("final_answer", "yes")


def test_without_probabilities_or_a_readable_position_the_written_word_scores():
    assert VerdictReader(None).score("final_answer", "mostly") == VERDICTS["mostly"]
    text = '{"final_answer": "partly"}'
    assert VerdictReader(tokens(text)).score("final_answer", "partly") == VERDICTS["partly"], "no alternatives: the sampled token alone"
    assert VerdictReader(tokens('{"other": "no"}')).score("final_answer", "yes") == 1.0, "key not in the token text"


def test_a_written_word_that_is_no_option_fails_closed():
    reader = VerdictReader(tokens('{"final_answer": "great"}', {"great": {"great": 0.5, "yes": 0.5}}))
    assert reader.score("final_answer", "great") is None
    assert reader.score("final_answer", None) is None


def test_list_verdicts_are_read_item_by_item():
    text = '{"steps": ["yes", "no", "yes"]}'
    reader = VerdictReader(tokens(text, {"yes": [("yes", 0.5), ("no", 0.5)], "no": {"no": 0.8, "partly": 0.2}}))
    assert reader.scores("steps", ["yes", "no", "yes"]) == pytest.approx([0.5, 0.2 * VERDICTS["partly"], 0.5])
    assert reader.scores("steps", ["yes", "maybe", "yes"]) is None
    assert VerdictReader(tokens('{"steps": ["yes"]}')).scores("steps", ["yes", "no"]) == [1.0, 0.0], "count differs: the words"


def test_a_token_that_starts_before_the_value_and_alternatives_cut_mid_word():
    # Tokenizers often glue the opening quote to the word, and an alternative may be only a word's start.
    choices = [TokenChoice(token='{"needs": ', logprob=0.0), TokenChoice(token='"yes', logprob=math.log(0.7), top={'"yes': math.log(0.7), '"n': math.log(0.2), "'": math.log(0.1)}),
               TokenChoice(token='"}', logprob=0.0)]  # fmt: skip
    assert VerdictReader(choices).score("needs", "yes", YES_NO) == pytest.approx(0.7 / 0.9), "an alternative that begins no option is left out"


def test_the_last_occurrence_of_a_key_is_read_and_ambiguous_alternatives_are_left_out():
    text = '{"reason": "said \\"tool\\": no", "tool": "get_price"}'
    options = {"get_price": 1.0, "get_price_history": 1.0, "none": 0.0}
    reader = VerdictReader(tokens(text, {"get_price": {"get_price": 0.5, "get": 0.3, "none": 0.2}}))
    assert reader.score("tool", "get_price", options) == pytest.approx(0.5 / 0.7)
