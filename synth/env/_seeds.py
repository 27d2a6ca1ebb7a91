"""Input rows -> seeds: validation, language detection, and corpora chunked to fit the model.

A knowledge corpus longer than `SynthConfig.corpus_max_tokens` becomes several seeds, one per
chunk of whole sentences, so every decompose prompt fits a small model's context. Tokens are
estimated without a tokenizer: one per CJK character, one per four other characters (close
to what BPE tokenizers of the Qwen/Llama families produce, and on the safe side for prose).
"""

from __future__ import annotations

import math
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent_sdk import format_validation_error
from synth.core import record_id
from synth.env.config import SynthConfig
from synth.env.records import Seed

__all__ = ["InputRecord", "chunk_text", "detect_language", "estimate_tokens", "make_seeds"]

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]")
_SENTENCE_END = re.compile(r"(?<=[.!?;。！？；])\s+|(?<=[。！？；])|\n+")


class InputRecord(BaseModel):
    """An input row: `{question, domain}`, `{domain, knowledge_corpus}` or `{domain}`."""

    model_config = ConfigDict(extra="ignore")

    id: str | None = None
    domain: str = Field(min_length=1)
    question: str | None = None
    knowledge_corpus: str | None = None
    language: str | None = None
    min_hops: int | None = Field(default=None, ge=1, le=12)
    max_hops: int | None = Field(default=None, ge=1, le=12)


def detect_language(*texts: str | None) -> str:
    """`zh` when the text holds CJK ideographs, else `en`."""
    return "zh" if any(t and re.search(r"[\u3400-\u9fff\uf900-\ufaff]", t) for t in texts) else "en"


def estimate_tokens(text: str) -> int:
    """Tokens `text` takes in a prompt, estimated: CJK characters count one each, the rest a quarter."""
    cjk = len(_CJK.findall(text))
    return cjk + math.ceil((len(text) - cjk) / 4)


def _pieces(sentence: str, budget: int) -> list[str]:
    """A sentence over `budget` cut into pieces within it: at spaces, else (CJK, long runs) by characters."""
    units = [u for w in re.split(r"(?<=\s)", sentence) for u in ([w] if estimate_tokens(w) <= budget else list(w))]
    pieces, current = [], ""
    for unit in units:
        if current and estimate_tokens(current + unit) > budget:
            pieces.append(current.strip())
            current = ""
        current += unit
    return [*pieces, current.strip()] if current.strip() else pieces


def chunk_text(text: str, budget: int) -> list[str]:
    """`text` in chunks of whole sentences, each at most `budget` estimated tokens, in order.

    A text within the budget is one chunk; a sentence longer than the budget is cut.
    """
    text = text.strip()
    if estimate_tokens(text) <= budget:
        return [text] if text else []
    chunks: list[str] = []
    current = ""
    for sentence in (s.strip() for s in _SENTENCE_END.split(text)):
        if not sentence:
            continue
        joiner = "" if _CJK.search(sentence[:1]) else " "
        candidate = f"{current}{joiner}{sentence}" if current else sentence
        if estimate_tokens(candidate) <= budget:
            current = candidate
            continue
        if current:
            chunks.append(current)
        if estimate_tokens(sentence) <= budget:
            current = sentence
        else:
            *full, current = _pieces(sentence, budget)
            chunks += full
    if current:
        chunks.append(current)
    return chunks


def make_seeds(data: dict[str, Any], ref: str, config: SynthConfig) -> list[Seed]:
    """The seeds of one input row: one, or one per corpus chunk when the corpus is over budget.

    Raises:
        ValueError: naming the field when the row is unusable.
    """
    try:
        row = InputRecord.model_validate(data)
    except ValidationError as exc:
        raise ValueError(format_validation_error(exc)) from exc
    question = (row.question or "").strip() or None
    corpus = (row.knowledge_corpus or "").strip() or None
    mode = "question" if question else "corpus" if corpus else "domain"
    lo = row.min_hops or config.min_hops
    hi = row.max_hops or max(config.max_hops, lo)
    if lo > hi:
        raise ValueError(f"min_hops {lo} > max_hops {hi}")
    language = row.language or detect_language(row.domain, question, corpus)
    chunks: list[str | None] = list(chunk_text(corpus, config.corpus_max_tokens)) if corpus and mode == "corpus" else [corpus]
    seeds = []
    for i, chunk in enumerate(chunks, 1):
        material = {"domain": row.domain, "question": question, "corpus": chunk, "hops": [lo, hi], "language": language}
        if len(chunks) > 1:
            material["chunk"] = i  # position too: two chunks of equal text are still two places in the corpus
        given = row.id if len(chunks) == 1 else row.id and f"{row.id}-{i}"
        seeds.append(
            Seed(
                id=given or record_id(material, "s-"),
                mode=mode,
                domain=row.domain,
                language=language,
                question=question,
                knowledge_corpus=chunk,
                min_hops=lo,
                max_hops=hi,
                ref=ref if len(chunks) == 1 else f"{ref}#chunk{i}",
            )
        )
    return seeds
