"""Worlds -> environments: verified over MCP in the sandbox, meaningful, byte-identical on a rebuild, resumable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from astra_cli import app
from mcp_servers import LocalSandbox, load_envs, verify_paths
from synth.env import meaning_findings
from synth.world import World, WorldSynthConfig, synthesize_from_worlds


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.anyio
async def test_a_world_becomes_verified_meaningful_environments(tmp_path, rental_raw):
    world = World.model_validate(rental_raw)
    async with LocalSandbox() as sandbox:
        stats = await synthesize_from_worlds([world], tmp_path / "a", WorldSynthConfig(per_world=16), sandbox=sandbox)
        envs = load_envs(tmp_path / "a" / "envs")
        assert stats.written == len(envs) == stats.verified >= 12
        assert set(stats.scenarios) == {"single_hop", "parallel_single_hop", "multi_hop", "parallel_multi_hop"}
        assert stats.languages == {"en": stats.languages["en"], "zh": stats.languages["zh"]} and stats.languages["zh"] >= 6
        report = await verify_paths([tmp_path / "a" / "envs"], sandbox=sandbox)
    assert report.passed
    for env in envs:
        assert env.spec.source.kind == "world" and env.spec.source.ref.startswith("car_rental:")
        assert meaning_findings(env.spec) == []
        assert len(env.spec.tools) <= 6
    saved = json.loads((tmp_path / "a" / "stats.json").read_text())
    assert saved["written"] == stats.written and sum(saved["hops"].values()) == stats.written
    rejected = [json.loads(line) for line in (tmp_path / "a" / "rejected.jsonl").read_text().splitlines()]
    assert rejected and all(r["code"] for r in rejected) and sum(saved["rejected"].values()) == len(rejected)


@pytest.mark.anyio
async def test_the_same_worlds_and_seed_rebuild_byte_identical_environments(tmp_path, rental_raw):
    world = World.model_validate(rental_raw)
    config = WorldSynthConfig(per_world=12)
    await synthesize_from_worlds([world], tmp_path / "a", config, sandbox=None)
    await synthesize_from_worlds([world], tmp_path / "b", config, sandbox=None)
    assert _tree(tmp_path / "a" / "envs") == _tree(tmp_path / "b" / "envs")
    await synthesize_from_worlds([world], tmp_path / "c", config.model_copy(update={"seed": 1}), sandbox=None)
    assert _tree(tmp_path / "a" / "envs") != _tree(tmp_path / "c" / "envs")


@pytest.mark.anyio
async def test_a_finished_world_is_not_redone(tmp_path, rental_raw):
    world = World.model_validate(rental_raw)
    out = tmp_path / "run"
    first = await synthesize_from_worlds([world], out, WorldSynthConfig(per_world=8), sandbox=None)
    marker = out / "worlds" / "car_rental.json"
    stamp = marker.stat().st_mtime_ns
    again = await synthesize_from_worlds([world], out, WorldSynthConfig(per_world=8), sandbox=None)
    assert marker.stat().st_mtime_ns == stamp and again.written == first.written and again.rejected == first.rejected


def test_the_cli_builds_from_a_world_file_and_reports_bad_input(tmp_path, rental_raw):
    path = tmp_path / "rental.json"
    path.write_text(json.dumps(rental_raw, ensure_ascii=False))
    result = CliRunner().invoke(app, ["env", "synth", "--out", str(tmp_path / "out"), "--world", str(path), "--per-world", "8"])
    assert result.exit_code == 0, result.output
    assert "environments from 1 worlds" in result.output and len(list((tmp_path / "out" / "envs").iterdir())) >= 6
    rental_raw["entities"][1]["fields"][2]["vocabulary"] = "classes"
    path.write_text(json.dumps(rental_raw))
    bad = CliRunner().invoke(app, ["env", "synth", "--out", str(tmp_path / "out2"), "--world", str(path)])
    assert bad.exit_code == 2 and "rental.json: " in bad.output and "car.car_class" in bad.output


def test_near_duplicate_questions_are_refused_as_they_come(rental_raw):
    from synth.env import load_embedder
    from synth.world import build_world_envs

    embedder = load_embedder()
    config = WorldSynthConfig(per_world=24, near_duplicate=0.9)
    envs, rejections, _ = build_world_envs(World.model_validate(rental_raw), config, embedder)
    assert any(r.code == "near_duplicate" for r in rejections)
    for language in ("en", "zh"):
        questions = [e.spec.task.question for e in envs if e.spec.language == language]
        vectors = embedder.encode(questions, normalize_embeddings=True, convert_to_numpy=True)
        similar = vectors @ vectors.T
        assert all(similar[i, j] < 0.9 for i in range(len(questions)) for j in range(i))
