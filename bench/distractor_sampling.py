"""Distractor sampling at ASTRA scale: a 20,000-tool pool, 6,596 environments.

Measures, in one run:
- embedding throughput of the packaged all-MiniLM-L6-v2 (batched vs one document at a time,
  and a warm on-disk cache), on a sample of the pool's documents;
- banded sampling for every environment (vectorized, blocked similarity rows) against a
  naive per-tool Python loop measured on a subset of the same queries and extrapolated.

By default the sampling runs on synthetic clustered unit vectors (sampling cost does not
depend on what the vectors encode); `--embed-all` embeds the whole pool for real first.

    python bench/distractor_sampling.py [--pool 20000] [--envs 6596] [--embed-sample 512] [--embed-all] [--threads N]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time

import numpy as np

from mcp_servers import Environment
from rl import Embedder
from rl.distractors import DistractorConfig, DistractorSampler, ToolPool

VERBS = ["get", "list", "search", "create", "update", "delete", "find", "check", "compute", "book", "cancel", "convert"]
NOUNS = ["flight", "hotel", "order", "invoice", "forecast", "stock", "player", "recipe", "ticket", "account",
         "shipment", "patient", "course", "song", "movie", "route", "device", "policy", "review", "payment"]
QUALIFIERS = ["status", "details", "history", "summary", "price", "schedule", "owner", "rating", "location", "limits"]


def synthetic_envs(n_envs: int, pool_size: int, seed: int) -> list[Environment]:
    """`n_envs` environments over ~400 domains whose tools add up to `pool_size`."""
    rng = random.Random(seed)
    envs, made = [], 0
    for i in range(n_envs):
        left = n_envs - i
        k = max(1, min(6, round((pool_size - made) / left)))
        domain = f"domain{rng.randrange(400)}"
        tools, code = [], []
        for j in range(k):
            name = f"{rng.choice(VERBS)}_{rng.choice(NOUNS)}_{rng.choice(QUALIFIERS)}_{i}_{j}"
            noun = rng.choice(NOUNS)
            tools.append({
                "name": name,
                "description": f"{name.split('_')[0].title()} the {noun} {rng.choice(QUALIFIERS)} in {domain}.",
                "input_schema": {"type": "object", "properties": {f"{noun}_id": {"type": "string"}}, "required": [f"{noun}_id"]},
            })
            code.append(f"def {name}(**kw):\n    return 'ok'\n")
        first = tools[0]
        arg = next(iter(first["input_schema"]["properties"]))
        envs.append(Environment.build(
            "\n".join(code), domain=domain, source={"kind": "authored"},
            task={"question": f"q{i}", "answer": "ok", "scenario": "single_hop"},
            subtasks=[{"id": "s", "question": "q", "answer": "ok", "golden_call": {"tool": first["name"], "arguments": {arg: "x"}}}],
            tools=tools,
        ))
        made += k
    return envs


def clustered_vectors(pool: ToolPool, dim: int, seed: int) -> np.ndarray:
    """Unit vectors clustered by domain, so bands are populated as with real embeddings."""
    rng = np.random.default_rng(seed)
    centers = {d: rng.normal(size=dim) for d in sorted({t.domain for t in pool.tools})}
    vectors = np.stack([centers[t.domain] + 1.5 * rng.normal(size=dim) for t in pool.tools]).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def naive_band_picks(pool: ToolPool, vectors: np.ndarray, row: int, domain: str, k: int, rng: random.Random) -> list[tuple[int, str]]:
    """One query the straightforward way: a Python loop over the pool."""
    query = vectors[row]
    sims = [(i, float(np.dot(query, vectors[i]))) for i in range(len(pool)) if i != row]
    lo, hi = min(s for _, s in sims), max(s for _, s in sims)
    bands: dict[str, list[int]] = {"high": [], "medium": [], "low": []}
    for i, s in sims:
        if pool.tools[i].domain == domain:
            continue
        norm = (s - lo) / (hi - lo) if hi > lo else 0.0
        bands["high" if norm > 0.85 else "low" if norm < 0.4 else "medium"].append(i)
    return [(i, band) for band, members in bands.items() for i in rng.sample(members, min(k, len(members)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pool", type=int, default=20_000)
    parser.add_argument("--envs", type=int, default=6_596)
    parser.add_argument("--embed-sample", type=int, default=512, help="documents embedded for the throughput numbers")
    parser.add_argument("--naive-queries", type=int, default=200, help="queries the naive baseline runs (extrapolated)")
    parser.add_argument("--embed-all", action="store_true", help="embed the whole pool instead of synthetic vectors")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads for embedding (default: torch's)")
    args = parser.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)

    t0 = time.perf_counter()
    envs = synthetic_envs(args.envs, args.pool, args.seed)
    pool = ToolPool.from_envs(envs)
    build_s = time.perf_counter() - t0
    docs = pool.documents()
    results: dict[str, float | int | str] = {"pool_tools": len(pool), "envs": len(envs), "setup_s": round(build_s, 2)}

    sample = docs[: args.embed_sample]
    with tempfile.TemporaryDirectory() as cache:
        embedder = Embedder(cache_dir=cache, batch_size=64)
        embedder.embed(sample[:8])  # load the model outside the timings
        t = time.perf_counter()
        embedder.embed(sample[8:])
        batched = (len(sample) - 8) / (time.perf_counter() - t)
        single_embedder = Embedder(batch_size=1)
        single_embedder._model = embedder.model
        few = docs[args.embed_sample : args.embed_sample + 64]
        t = time.perf_counter()
        single_embedder.embed(few)
        single = len(few) / (time.perf_counter() - t)
        t = time.perf_counter()
        Embedder(cache_dir=cache).embed(sample)
        cached = len(sample) / (time.perf_counter() - t)
        results |= {"embed_docs_per_s_batched": round(batched, 1), "embed_docs_per_s_one_by_one": round(single, 1),
                    "embed_docs_per_s_cache_hit": round(cached, 1), "embed_batched_vs_one_by_one": round(batched / single, 2),
                    "embed_full_pool_estimate_s": round(len(pool) / batched, 1)}
        if args.embed_all:
            t = time.perf_counter()
            vectors = embedder.embed(docs)
            results["embed_full_pool_s"] = round(time.perf_counter() - t, 1)
            results["vectors"] = "all-MiniLM-L6-v2"
        else:
            vectors = clustered_vectors(pool, 384, args.seed)
            results["vectors"] = "synthetic clustered (384-d)"

    sampler = DistractorSampler(pool, vectors, DistractorConfig(per_band=2, seed=args.seed))
    t = time.perf_counter()
    sampled = sampler.sample(envs)
    fast_s = time.perf_counter() - t
    queries = sum(len(e.spec.tools) for e in envs)
    rng = random.Random(args.seed)
    subset = [(e, tool) for e in envs for tool in e.spec.tools][: args.naive_queries]
    t = time.perf_counter()
    for env, tool in subset:
        naive_band_picks(pool, vectors, pool.row(tool.name, tool.input_schema), env.spec.domain, 2, rng)
    naive_per_query = (time.perf_counter() - t) / len(subset)
    naive_total = naive_per_query * queries
    per_env = [len(v) for v in sampled.values()]
    results |= {
        "queries": queries, "sampling_s": round(fast_s, 2), "sampling_target_s": 10,
        "naive_s_extrapolated": round(naive_total, 1), "naive_measured_queries": len(subset),
        "speedup_vs_naive": round(naive_total / fast_s, 1),
        "distractors_per_env_mean": round(float(np.mean(per_env)), 2),
    }
    width = max(map(len, results))
    for key, value in results.items():
        print(f"{key:<{width}}  {value}")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
