"""Distractor tools: semantically banded tools from other domains mixed into each environment.

ASTRA adds tools that the task does not need so that a policy learns to pick the right ones.
For every in-scope tool we embed its OpenAI-style document, min-max normalize its cosine
similarities over all other pool tools, drop tools of the environment's own domain, split the
rest into bands (high > 0.85, medium 0.4–0.85, low < 0.4 by default), and sample up to K per
band with a seeded generator; an environment's distractors are the union over its tools.
Distractors are callable: the arena serves them from their source environments
(`/envs/{env_id}/mcp?distractors=<env_id>.<tool>,...`), and calls to them count in the reward's c.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from agent_sdk import read_jsonl
from mcp_servers import Environment, canonical_json

DistractorMode = Literal["none", "random", "banded"]
Band = Literal["high", "medium", "low", "random"]


class PoolTool(BaseModel):
    """One tool of the distractor pool."""

    model_config = ConfigDict(frozen=True)

    env_id: str | None = Field(description="Source environment (None: an ingested tool doc, not callable).")
    domain: str = Field(description="Domain of the source; same-domain tools are never distractors.")
    name: str
    description: str
    input_schema: dict[str, Any]

    @property
    def ref(self) -> str:
        """`<env_id>.<tool>`, the form the arena's `distractors` query takes."""
        return f"{self.env_id}.{self.name}"

    @property
    def identity(self) -> str:
        """What deduplication compares: the name plus the canonical input schema."""
        return self.name + "\x00" + canonical_json(self.input_schema)

    def document(self) -> str:
        """The OpenAI-style tool document that is embedded."""
        function = {"name": self.name, "description": self.description, "parameters": self.input_schema}
        return canonical_json({"type": "function", "function": function})


class Distractor(BaseModel):
    """A sampled distractor for one environment."""

    model_config = ConfigDict(frozen=True)

    env_id: str = Field(description="The environment the tool's implementation comes from.")
    name: str
    domain: str
    band: Band = Field(description="high | medium | low similarity band, or random (ablation mode).")

    @property
    def ref(self) -> str:
        """`<env_id>.<tool>`."""
        return f"{self.env_id}.{self.name}"


class DistractorConfig(BaseModel):
    """How distractors are sampled (the defaults follow ASTRA)."""

    model_config = ConfigDict(frozen=True)

    mode: DistractorMode = Field(default="banded", description="none | random | banded.")
    per_band: int = Field(default=2, ge=0, description="K: tools sampled per band for each in-scope tool.")
    high: float = Field(default=0.85, gt=0, lt=1, description="Normalized similarity above which a tool is 'high'.")
    low: float = Field(default=0.4, gt=0, lt=1, description="Normalized similarity below which a tool is 'low'.")
    random_min: int = Field(default=5, ge=0, description="Random mode: fewest distractors per environment.")
    random_max: int = Field(default=9, ge=0, description="Random mode: most distractors per environment.")
    seed: int = 0

    @model_validator(mode="after")
    def _ordered(self) -> DistractorConfig:
        if self.low > self.high:
            raise ValueError(f"low ({self.low}) must not exceed high ({self.high})")
        if self.random_min > self.random_max:
            raise ValueError(f"random_min ({self.random_min}) must not exceed random_max ({self.random_max})")
        return self


class ToolPool:
    """Tools from environments (and ingested docs), deduplicated by name and input schema.

    Args:
        tools: pool entries; the first of each (name, schema) identity is kept.
    """

    def __init__(self, tools: Iterable[PoolTool]) -> None:
        self.tools: list[PoolTool] = []
        self._row: dict[str, int] = {}
        for tool in tools:
            if tool.identity not in self._row:
                self._row[tool.identity] = len(self.tools)
                self.tools.append(tool)

    @classmethod
    def from_envs(cls, envs: Iterable[Environment], docs: Iterable[PoolTool] = ()) -> ToolPool:
        """A pool of every tool of `envs`, then of `docs` (ingested tool documentation)."""
        env_tools = (
            PoolTool(env_id=e.spec.id, domain=e.spec.domain, name=t.name, description=t.description, input_schema=t.input_schema)
            for e in envs
            for t in e.spec.tools
        )
        return cls([*env_tools, *docs])

    def __len__(self) -> int:
        return len(self.tools)

    def row(self, name: str, input_schema: dict[str, Any]) -> int | None:
        """The pool row of a tool with this name and schema, or None."""
        return self._row.get(name + "\x00" + canonical_json(input_schema))

    def documents(self) -> list[str]:
        """Every tool's document, in pool order."""
        return [t.document() for t in self.tools]


def pool_tools_from_docs(path: str | Path) -> list[PoolTool]:
    """Pool entries from ingested tool documentation (JSONL of servers: `{name, domain, tools: [...]}`).

    Each tool is `{name, description, parameters}` (the normalized form `synth.sft` ingest
    writes). Such tools have no implementation the arena can serve, so they are never sampled
    as distractors; they widen the pool that similarities are normalized over.

    Raises:
        JsonlError: (a `ValueError`) naming the file and line of a malformed record.
    """
    return [tool for server in read_jsonl(path, _doc_server_tools).values for tool in server]


def _doc_server_tools(server: dict[str, Any]) -> list[PoolTool]:
    domain = server.get("domain") or server.get("name") or "docs"
    try:
        return [PoolTool(env_id=None, domain=domain, name=tool["name"], description=tool.get("description") or "",
                         input_schema=tool.get("parameters") or {"type": "object", "properties": {}})
                for tool in server["tools"]]
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"not a tool-doc server record: {type(exc).__name__}: {exc}") from exc


def _stable_seed(seed: int, text: str) -> list[int]:
    return [seed, int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")]


class _BlockBands:
    """Band membership for a block of queries, computed lazily: by cell for random probes, by row when exact."""

    def __init__(self, sims: np.ndarray, rows: np.ndarray, lo: np.ndarray, hi: np.ndarray, candidate_row: Any,
                 high: float, low: float) -> None:
        span = np.where(hi > lo, hi - lo, 1.0)
        self.sims, self.rows, self.candidate_row = sims, rows, candidate_row
        self.thr_hi = (lo + high * span).astype(np.float32)
        self.thr_lo = (lo + low * span).astype(np.float32)

    def at(self, columns: np.ndarray) -> np.ndarray:
        """Band codes (1 high, 2 medium, 3 low, 0 not a candidate) of the cells (row i, columns[i, j])."""
        values = np.take_along_axis(self.sims, columns, axis=1)
        codes = np.where(values > self.thr_hi[:, None], 1, np.where(values < self.thr_lo[:, None], 3, 2))
        ok = self.candidate_row(np.arange(len(self.rows))[:, None], columns) & (columns != self.rows[:, None])
        return np.where(ok, codes, 0)

    def members(self, which: np.ndarray, code: int) -> np.ndarray:
        """Boolean membership of band `code` over whole rows `which`."""
        sims = self.sims[which]
        hi, lo = self.thr_hi[which, None], self.thr_lo[which, None]
        inside = sims > hi if code == 1 else sims < lo if code == 3 else (sims >= lo) & (sims <= hi)
        inside &= self.candidate_row(which[:, None], None)
        inside[np.arange(len(which)), self.rows[which]] = False
        return inside


def _pick_members(bands: _BlockBands, code: int, k: int, rng: np.random.Generator, probes: int = 16) -> list[list[int]]:
    """Per query row, up to k distinct members of band `code`, uniformly without replacement.

    Most bands hold a large share of the pool, so random columns are probed first (rejection
    sampling: a gather instead of passes over the pool); rows where the probes find fewer than
    k members are sampled exactly, from all their members, with random sort keys.
    """
    b, n = bands.sims.shape
    columns = rng.integers(0, n, size=(b, probes))
    hits = bands.at(columns) == code
    picks: list[list[int]] = []
    exact: list[int] = []
    for i in range(b):
        found = list(dict.fromkeys(columns[i][hits[i]].tolist()))[:k]
        if len(found) < k:
            exact.append(i)
        picks.append(found)
    if exact:
        which = np.array(exact)
        row_idx, col_idx = np.nonzero(bands.members(which, code))
        order = np.lexsort((rng.random(len(row_idx)), row_idx))
        row_idx, col_idx = row_idx[order], col_idx[order]
        starts = np.searchsorted(row_idx, np.arange(len(which) + 1))
        for j, row in enumerate(exact):
            picks[row] = col_idx[starts[j] : min(starts[j] + k, starts[j + 1])].tolist()
    return picks


class DistractorSampler:
    """Samples distractors for environments from a pool and its embeddings.

    Args:
        pool: the tool pool.
        vectors: L2-normalized embeddings, one row per pool tool (needed for banded mode).
        config: sampling settings.
        block: in-scope tools whose similarity rows are computed at once (memory vs speed).
    """

    def __init__(
        self, pool: ToolPool, vectors: np.ndarray | None, config: DistractorConfig | None = None, *, block: int = 512
    ) -> None:
        self.pool = pool
        self.config = config or DistractorConfig()
        if self.config.mode == "banded":
            if vectors is None or len(vectors) != len(pool):
                raise ValueError(f"banded mode needs one embedding per pool tool ({len(pool)}), got {None if vectors is None else len(vectors)}")
        self.vectors = None if vectors is None else np.ascontiguousarray(vectors, dtype=np.float32)
        self.block = block
        domains = [t.domain for t in pool.tools]
        self._domain_names, self._domain_code = np.unique(np.array(domains or [""], dtype=object), return_inverse=True)
        self._callable = np.array([t.env_id is not None for t in pool.tools], dtype=bool)

    def _domain(self, domain: str) -> int:
        hits = np.nonzero(self._domain_names == domain)[0]
        return int(hits[0]) if len(hits) else -1

    def sample(self, envs: Sequence[Environment]) -> dict[str, list[Distractor]]:
        """Distractors per environment id (an empty list in mode `none`)."""
        if self.config.mode == "none":
            return {e.spec.id: [] for e in envs}
        if self.config.mode == "random":
            return {e.spec.id: self._random(e) for e in envs}
        return self._banded(envs)

    def _random(self, env: Environment) -> list[Distractor]:
        rng = np.random.default_rng(_stable_seed(self.config.seed, env.spec.id))
        own = {t.name for t in env.spec.tools}
        candidates = [
            i for i, t in enumerate(self.pool.tools) if t.env_id is not None and t.domain != env.spec.domain and t.name not in own
        ]
        count = int(rng.integers(self.config.random_min, self.config.random_max + 1))
        order = rng.permutation(len(candidates))
        return self._finish(env, ((candidates[int(i)], "random") for i in order), limit=count)

    def _banded(self, envs: Sequence[Environment]) -> dict[str, list[Distractor]]:
        queries: list[tuple[int, int]] = []  # (pool row, domain code of the querying env)
        per_env: list[list[int]] = []
        for env in envs:
            code = self._domain(env.spec.domain)
            slots = []
            for tool in env.spec.tools:
                row = self.pool.row(tool.name, tool.input_schema)
                if row is None:
                    raise ValueError(f"{env.spec.id}: tool {tool.name!r} is not in the distractor pool; build the pool from these environments")
                slots.append(len(queries))
                queries.append((row, code))
            per_env.append(slots)
        picks = self._band_picks(queries)
        return {
            env.spec.id: self._finish(env, (pick for slot in slots for pick in picks[slot]))
            for env, slots in zip(envs, per_env, strict=True)
        }

    def _band_picks(self, queries: list[tuple[int, int]]) -> list[list[tuple[int, str]]]:
        """For each query, the sampled (pool row, band) pairs, vectorized over blocks of queries.

        Similarities come from one matrix product per block of queries; band membership is
        evaluated only where `_pick_members` needs it.
        """
        assert self.vectors is not None
        k = self.config.per_band
        n = len(self.pool)
        out: list[list[tuple[int, str]]] = []
        names = ("high", "medium", "low")
        for start in range(0, len(queries), self.block):
            chunk = queries[start : start + self.block]
            b = len(chunk)
            rows = np.array([r for r, _ in chunk])
            codes = np.array([c for _, c in chunk])
            picks: list[list[tuple[int, str]]] = [[] for _ in range(b)]
            if k == 0 or n < 2:
                out.extend(picks)
                continue
            sims = self.vectors[rows] @ self.vectors.T
            diag = (np.arange(b), rows)
            sims[diag] = np.inf
            lo = sims.min(axis=1)
            sims[diag] = -np.inf
            hi = sims.max(axis=1)

            def candidate_row(which: np.ndarray, columns: np.ndarray | None, codes: np.ndarray = codes) -> np.ndarray:
                domain = self._domain_code if columns is None else self._domain_code[columns]
                callable_ = self._callable if columns is None else self._callable[columns]
                return callable_ & (domain != codes[which])

            bands = _BlockBands(sims, rows, lo, hi, candidate_row, self.config.high, self.config.low)
            rng = np.random.default_rng([self.config.seed, start])
            for code, name in enumerate(names, start=1):
                for i, cols in enumerate(_pick_members(bands, code, k, rng)):
                    picks[i].extend((c, name) for c in cols)
            out.extend(picks)
        return out

    def _finish(self, env: Environment, picks: Iterable[tuple[int, str]], limit: int | None = None) -> list[Distractor]:
        """Union of picks: no duplicates, no name that collides with the env's tools or another distractor."""
        own = {t.name for t in env.spec.tools}
        seen_names: set[str] = set()
        result: list[Distractor] = []
        for row, band in picks:
            tool = self.pool.tools[row]
            if tool.env_id is None or tool.env_id == env.spec.id or tool.name in own or tool.name in seen_names:
                continue
            seen_names.add(tool.name)
            # built from validated pool entries, so validation is skipped (it dominated at 100k picks)
            result.append(Distractor.model_construct(env_id=tool.env_id, name=tool.name, domain=tool.domain, band=band))
            if limit is not None and len(result) >= limit:
                break
        return result


def sample_distractors(
    envs: Sequence[Environment],
    config: DistractorConfig | None = None,
    *,
    pool_envs: Sequence[Environment] | None = None,
    docs: Iterable[PoolTool] = (),
    embedder: Any = None,
) -> dict[str, list[Distractor]]:
    """Distractors for each of `envs`, drawn from the tools of `pool_envs` (default: `envs`) and `docs`.

    Args:
        envs: the in-scope environments.
        config: sampling settings (default: banded, K=2).
        pool_envs: environments whose tools form the pool (they must be served by the same arena).
        docs: extra pool entries from ingested tool documentation (used for similarity only).
        embedder: an `Embedder` (default: the packaged all-MiniLM-L6-v2, no cache).
    """
    config = config or DistractorConfig()
    pool = ToolPool.from_envs(pool_envs if pool_envs is not None else envs, docs)
    vectors = None
    if config.mode == "banded":
        from rl._embedding import Embedder

        vectors = (embedder or Embedder()).embed(pool.documents())
    return DistractorSampler(pool, vectors, config).sample(envs)
