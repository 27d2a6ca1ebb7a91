"""Distractor pool, real embeddings (packaged all-MiniLM-L6-v2) with on-disk cache, banded and random sampling."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rl._embedding import Embedder
from rl.distractors import DistractorConfig, DistractorSampler, PoolTool, ToolPool, sample_distractors


def test_pool_dedups_by_name_and_schema(envs):
    pool = ToolPool.from_envs(envs)
    names = [t.name for t in pool.tools]
    # the rail env's get_gate has the travel env's name and schema: kept once
    assert names.count("get_gate") == 1
    assert len(pool) == sum(len(e.spec.tools) for e in envs) - 1
    doc = PoolTool(env_id=None, domain="docs", name="get_gate", description="other", input_schema={"type": "object", "properties": {"x": {"type": "string"}}})
    assert len(ToolPool.from_envs(envs, [doc])) == len(pool) + 1


def test_embedder_caches_by_document_hash(tmp_path):
    docs = ["get the weather forecast for a city", "convert currency amounts"]
    first = Embedder(cache_dir=tmp_path)
    vectors = first.embed(docs)
    assert vectors.shape == (2, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert first.encoded == 2
    second = Embedder(cache_dir=tmp_path)
    again = second.embed(docs + ["a new document about trains"])
    assert second.encoded == 1  # only the new document went through the model
    assert np.allclose(again[:2], vectors, atol=1e-6)
    assert list(tmp_path.rglob("chunk-*.npz"))


@pytest.fixture(scope="module")
def pool_vectors(envs):
    pool = ToolPool.from_envs(envs)
    return pool, Embedder().embed(pool.documents())


def test_banded_sampling_excludes_own_domain_and_name_collisions(envs, pool_vectors):
    pool, vectors = pool_vectors
    sampler = DistractorSampler(pool, vectors, DistractorConfig(per_band=2, seed=3))
    result = sampler.sample(envs)
    assert set(result) == {e.spec.id for e in envs}
    for env in envs:
        own = {t.name for t in env.spec.tools}
        got = result[env.spec.id]
        assert got, env.spec.domain
        assert all(d.domain != env.spec.domain for d in got)
        assert all(d.name not in own for d in got)
        assert len({d.name for d in got}) == len(got)
        assert all(d.band in ("high", "medium", "low") for d in got)
        # each env tool contributes at most K per band
        assert len(got) <= len(env.spec.tools) * 3 * 2
    travel = next(e for e in envs if e.spec.domain == "travel")
    # get_gate is the travel env's own tool name: the rail env's twin never shows up as its distractor
    assert "get_gate" not in {d.name for d in result[travel.spec.id]}
    # seeded: same seed, same draw; the refs point at the source env serving the tool
    assert sampler.sample(envs) == result
    by_id = {e.spec.id: e for e in envs}
    for d in result[travel.spec.id]:
        assert by_id[d.env_id].spec.tool(d.name) is not None


def test_bands_follow_normalized_similarity(envs, pool_vectors):
    pool, vectors = pool_vectors
    weather = next(e for e in envs if e.spec.domain == "weather")
    sampler = DistractorSampler(pool, vectors, DistractorConfig(per_band=10, high=0.85, low=0.4))
    row = pool.row("get_forecast", weather.spec.tools[0].input_schema)
    code = int(np.nonzero(sampler._domain_names == "weather")[0][0])
    picks = sampler._band_picks([(row, code)])[0]
    sims = vectors @ vectors[row]
    others = np.delete(sims, row)
    norm = (sims - others.min()) / (others.max() - others.min())
    assert picks
    for i, band in picks:
        assert pool.tools[i].domain != "weather"
        expected = "high" if norm[i] > 0.85 else "low" if norm[i] < 0.4 else "medium"
        assert band == expected, (pool.tools[i].name, norm[i], band)
    # with K this large every other-domain tool lands in exactly one band
    assert sorted(i for i, _ in picks) == [i for i, t in enumerate(pool.tools) if t.domain != "weather"]


def test_random_and_none_modes(envs):
    none = sample_distractors(envs, DistractorConfig(mode="none"))
    assert all(v == [] for v in none.values())
    random = sample_distractors(envs, DistractorConfig(mode="random", random_min=2, random_max=3, seed=1))
    for env in envs:
        got = random[env.spec.id]
        assert 1 <= len(got) <= 3  # at most as many as other-domain tools allow
        assert all(d.band == "random" and d.domain != env.spec.domain for d in got)
    assert sample_distractors(envs, DistractorConfig(mode="random", random_min=2, random_max=3, seed=1)) == random


def test_config_rejects_inverted_bands():
    with pytest.raises(ValueError, match="low"):
        DistractorConfig(low=0.9, high=0.5)


def test_member_picks_are_uniform_without_replacement():
    from rl.distractors import _BlockBands, _pick_members

    n = 1000
    sims = np.zeros((3, n), dtype=np.float32)
    sims[:, 990] = 1.0  # sets each row's max; medium is then 0.4..0.85
    sims[0, :10] = 0.5  # a small band: exact path
    sims[1, 50:950] = 0.5  # a large band: probed
    sims[2, 7] = 0.5  # fewer members than k
    rows = np.array([999, 998, 997])
    lo, hi = sims.min(axis=1), sims.max(axis=1)
    everyone = lambda which, columns: np.ones(np.broadcast_shapes(np.shape(which), (n,) if columns is None else columns.shape), bool)
    bands = _BlockBands(sims, rows, lo, hi, everyone, 0.85, 0.4)
    counts = np.zeros((2, n))
    for seed in range(3000):
        picks = _pick_members(bands, 2, 2, np.random.default_rng(seed))
        assert len(set(picks[0])) == 2 and len(set(picks[1])) == 2 and picks[2] == [7]
        for row in (0, 1):
            assert all(sims[row, c] == 0.5 for c in picks[row])
            counts[row, picks[row]] += 1
    assert np.allclose(counts[0, :10] / 3000, 2 / 10, atol=0.03)
    assert np.allclose(counts[1, 50:950].reshape(9, 100).sum(1) / 3000, 2 / 9, atol=0.03)
    high = _pick_members(bands, 1, 2, np.random.default_rng(0))
    assert high == [[990], [990], [990]]


def test_ingested_docs_widen_the_pool_but_are_never_sampled(envs, tmp_path):
    from rl.distractors import pool_tools_from_docs

    docs = tmp_path / "servers.jsonl"
    docs.write_text(json.dumps({"name": "recipes", "domain": "cooking", "tools": [
        {"name": "find_recipe", "description": "Find a recipe by dish name.",
         "parameters": {"type": "object", "properties": {"dish": {"type": "string"}}}}]}) + "\n")
    extra = pool_tools_from_docs(docs)
    assert [(t.name, t.domain, t.env_id) for t in extra] == [("find_recipe", "cooking", None)]
    got = sample_distractors(envs, DistractorConfig(per_band=5), docs=extra)
    assert all(d.name != "find_recipe" for ds in got.values() for d in ds)
    docs.write_text("{\"tools\": 3}\n")
    with pytest.raises(ValueError, match="servers.jsonl:1"):
        pool_tools_from_docs(docs)
