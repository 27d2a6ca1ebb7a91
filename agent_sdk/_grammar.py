"""Schema-constrained decoding for `LocalChatModel`: llguidance masks the logits of each step.

llguidance is the grammar engine that vLLM and SGLang also ship: one small wheel without
dependencies, it compiles a JSON Schema lazily against the tokenizer's vocabulary and computes
a step's allowed-token mask in Rust in microseconds, so constrained generation runs at nearly
the unconstrained rate (see `bench/structured_generation.py`). Whitespace outside strings is
fixed (`", "` and `": "`, as `json.dumps` writes), so a small model cannot pad a reply until
`max_tokens`. This module imports torch, transformers and llguidance, so `_local` loads it
only when a request carries an output schema.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import llguidance
import llguidance.hf
import numpy as np
import torch
from transformers import LogitsProcessor

from agent_sdk.exceptions import ModelError

__all__ = ["SchemaGrammar", "SchemaLogitsProcessor", "schema_key"]

_JSON_OPTIONS = {
    "whitespace_flexible": False,
    "item_separator": ", ",
    "key_separator": ": ",
    # Keywords llguidance does not implement (e.g. some string formats) are left unchecked
    # rather than failing the request: the caller validates the reply anyway.
    "lenient": True,
}


def schema_key(schema: dict[str, Any] | None) -> str | None:
    """A canonical text for `schema`: requests with equal keys may share a generate batch."""
    return None if schema is None else json.dumps(schema, sort_keys=True, separators=(",", ":"))


class SchemaGrammar:
    """Builds per-request matchers for JSON Schemas over one tokenizer.

    Converting the tokenizer takes about a second, so it is done once; compiled grammars are
    kept per schema.

    Args:
        tokenizer: the model's (fast) Hugging Face tokenizer.
        vocab_size: the width of the model's logits (may exceed the tokenizer's vocabulary).
        eos_ids: token ids that end a reply; a completed JSON value allows only these.
    """

    def __init__(self, tokenizer: Any, vocab_size: int, eos_ids: Sequence[int]) -> None:
        self._tokenizer = llguidance.hf.from_tokenizer(tokenizer, n_vocab=vocab_size, eos_token=list(eos_ids))
        self.vocab_size = vocab_size
        self.eos_ids = list(eos_ids)
        self._grammars: dict[str, str] = {}

    def matcher(self, schema: dict[str, Any]) -> llguidance.LLMatcher:
        """A fresh matcher for one reply constrained to `schema`.

        Raises:
            ModelError: llguidance cannot compile the schema.
        """
        key = schema_key(schema) or ""
        grammar = self._grammars.get(key)
        if grammar is None:
            try:
                grammar = llguidance.LLMatcher.grammar_from_json_schema(schema, defaults=_JSON_OPTIONS)  # type: ignore[arg-type]
            except ValueError as exc:
                raise ModelError(f"output schema is not a JSON object: {exc}") from exc
            self._grammars[key] = grammar
        matcher = llguidance.LLMatcher(self._tokenizer, grammar, log_level=0)
        if matcher.is_error():
            raise ModelError(f"output schema cannot be enforced: {matcher.get_error()}")
        return matcher


class SchemaLogitsProcessor(LogitsProcessor):
    """Masks each row's logits to the tokens its matcher allows next.

    One matcher per batch row (rows share a schema, never a parser state). The first call
    sees the prompt; every later call first feeds each row's last sampled token to its
    matcher. A row that has ended (an end-of-sequence token) is left unmasked: `generate`
    only pads it from then on.
    """

    def __init__(self, matchers: Sequence[llguidance.LLMatcher], grammar: SchemaGrammar) -> None:
        self.matchers = list(matchers)
        self.grammar = grammar
        self._ended = [False] * len(self.matchers)
        self._prompt_width: int | None = None
        eos_only = np.zeros(grammar.vocab_size, dtype=bool)
        eos_only[[i for i in grammar.eos_ids if i < grammar.vocab_size]] = True
        self._eos_only = eos_only

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        if self._prompt_width is None:
            self._prompt_width = input_ids.shape[1]
        else:
            for row, token in enumerate(input_ids[:, -1].tolist()):
                if self._ended[row]:
                    continue
                if token in self.grammar.eos_ids:
                    self._ended[row] = True
                else:
                    self.matchers[row].consume_token(token)
        allowed = np.ones((len(self.matchers), scores.shape[1]), dtype=bool)
        for row, matcher in enumerate(self.matchers):
            if not self._ended[row]:
                allowed[row, : self.grammar.vocab_size] = self._row_mask(matcher)
        mask = torch.from_numpy(allowed).to(scores.device)
        return scores.masked_fill(~mask, float("-inf"))

    def _row_mask(self, matcher: llguidance.LLMatcher) -> np.ndarray:
        if matcher.is_error():
            # Nothing valid can follow; end the reply and let the caller's validation report it.
            return self._eos_only
        packed = np.frombuffer(matcher.compute_bitmask(), dtype=np.uint8)
        bits = np.unpackbits(packed, bitorder="little")[: self.grammar.vocab_size].astype(bool)
        return bits if bits.any() else self._eos_only
