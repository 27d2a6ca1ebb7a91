"""Worlds -> verified environments: walk, build, check in process, check meaning, verify, write.

Per world and language: compile the tools, walk the world for each scenario in turn (one walk per
path shape, so questions differ by more than a name), build each walk's environment, and keep it
when verify's replay on the code path, every meaning check, and the near-duplicate rule pass.
Kept environments are written to `OUT/envs/`, then verified over MCP in the sandbox; a failure
there removes the environment (fail closed). `OUT/stats.json` holds the funnel and the spreads,
`OUT/rejected.jsonl` one line per rejected walk with its stable code. The same worlds, config and
seed write byte-identical environments; a world whose marker is in `OUT/worlds/` is not redone.
Given a model (`rewriter`), each kept question is reworded the way a user would ask it, and the
rewording stands only where code finds every given value kept and none added (`_rewrite`).
"""

from __future__ import annotations

import json
import random
import shutil
import time
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from mcp_servers import CheckCode, Environment, Sandbox, verify_paths
from synth.env import duplicate_tool_groups, meaning_findings
from synth.world._build import build_environment, check_in_process, run_module
from synth.world._rewrite import reword_environment
from synth.world._rows import fill_rows
from synth.world._schema import World
from synth.world._tools import compile_tools, environment_code
from synth.world._walk import SCENARIOS, WALK_REJECTIONS, Walker, WalkRejected

__all__ = ["WORLD_REJECTIONS", "WorldSynthConfig", "WorldSynthStats", "build_world_envs", "synthesize_from_worlds"]

CHECK_CODES: tuple[CheckCode, ...] = CheckCode.load_declarations(__name__)
"""The pipeline's own codes; a walk's are `synth.world._walk.CHECK_CODES`. Verify's replay on the code path
records verify's codes (`answer_not_distinctive`, `golden_call_error`, `answer_missing`), the built environment
records a meaning code (`duplicate_tool` drops a world's duplicate tools), and the sandbox's verify records its
codes, several joined as `verify_failed:` (like the QA pipeline)."""
WORLD_REJECTIONS: dict[str, str] = {**WALK_REJECTIONS, **{c.code: c.meaning for c in CHECK_CODES}}


class WorldSynthConfig(BaseModel):
    """How many environments a world gives, and the rules that keep them apart."""

    per_world: int = Field(default=50, ge=1, le=2000, description="Environments to keep per world, split over its languages and the four scenarios.")
    seed: int = Field(default=0, description="Seed of the walks and the tool choice: the same seed writes the same environments.")
    per_shape: int = Field(default=1, ge=1, le=50, description="Tasks of one path shape (start, hops, asked value) per world and language.")
    max_tools: int = Field(default=6, ge=1, le=40, description="Tools an environment exposes: the walk's own, then more of the same world.")
    attempts: int = Field(default=12, ge=1, le=200, description="Walks tried per environment wanted before the world is given up.")
    near_duplicate: float = Field(default=0.95, gt=0, le=1, description="Cosine at which two main questions of a world count as one.")
    verify_concurrency: int = Field(default=8, ge=1, le=64, description="Environments verified over MCP at once.")


class WorldSynthStats(BaseModel):
    """The funnel and spreads of a run, written to `OUT/stats.json`."""

    worlds: int = Field(default=0, description="Worlds read.")
    walks: int = Field(default=0, description="Walks tried, kept or rejected.")
    built: int = Field(default=0, description="Environments that passed the code path and the meaning checks.")
    written: int = Field(default=0, description="Environments in OUT/envs.")
    verified: int = Field(default=0, description="Of those, verified over MCP in the sandbox (0 when run without one).")
    rejected: dict[str, int] = Field(default_factory=dict, description="Rejections by code (`astra checks`).")
    scenarios: dict[str, int] = Field(default_factory=dict, description="Written environments by scenario.")
    languages: dict[str, int] = Field(default_factory=dict, description="Written environments by language.")
    hops: dict[str, int] = Field(default_factory=dict, description="Written environments by hops per branch.")
    per_world: dict[str, int] = Field(default_factory=dict, description="Written environments by world.")
    rewrites: dict[str, int] = Field(default_factory=dict, description="With a rewriter: questions reworded (kept) and left as the template wrote them (refused).")
    seconds: dict[str, float] = Field(default_factory=dict, description="Wall time of building, verifying and the whole run.")


class _Rejection(BaseModel):
    world: str
    language: str
    scenario: str
    code: str
    message: str


def build_world_envs(world: World, config: WorldSynthConfig, embedder: Any | None = None) -> tuple[list[Environment], list[_Rejection], list[int]]:
    """The environments one world gives (not yet written or sandbox-verified), with what was rejected.

    Returns:
        The kept environments in a stable order, the rejections, and the hops of each kept one.
    """
    world = fill_rows(world)
    kept: list[Environment] = []
    rejections: list[_Rejection] = []
    hops: list[int] = []
    share = -(-config.per_world // len(world.languages))
    for language in world.languages:
        tools = compile_tools(world, language)
        groups = duplicate_tool_groups([(t.spec.name, t.spec.description, t.spec.input_schema) for t in tools], embedder)
        if groups:  # keep the first of each group: one function needs one tool
            dropped = {tools[i].spec.name for g in groups for i in sorted(g)[1:]}
            rejections.append(_Rejection(world=world.name, language=language, scenario="-", code="duplicate_tool", message=json.dumps(sorted(dropped))))
            tools = [t for t in tools if t.spec.name not in dropped]
        walker = Walker(world, language, tools, run_module(environment_code(world, language, tools)))
        questions = _Questions(embedder, config.near_duplicate)
        shapes: Counter[str] = Counter()
        wanted = {s: share // 4 + (1 if i < share % 4 else 0) for i, s in enumerate(SCENARIOS)}
        for attempt in range(share * config.attempts):
            open_scenarios = [s for s in SCENARIOS if wanted[s] > 0]
            if not open_scenarios:
                break
            scenario = open_scenarios[attempt % len(open_scenarios)]
            rng = random.Random(f"{config.seed}:{world.name}:{language}:{attempt}")

            def reject(code: str, message: str, scenario: str = scenario, language: str = language) -> None:
                rejections.append(_Rejection(world=world.name, language=language, scenario=scenario, code=code, message=message))

            try:
                walk = walker.walk(scenario, rng)
            except WalkRejected as exc:
                reject(code=exc.code, message=str(exc))
                continue
            if shapes[walk.shape] >= config.per_shape:
                reject(code="repeated_shape", message=walk.shape)
                continue
            env = build_environment(world, walk, tools, rng=rng, max_tools=config.max_tools)
            if problems := check_in_process(env):
                reject(code=problems[0][0], message="; ".join(m for _, m in problems))
                continue
            if findings := meaning_findings(env.spec):
                codes = sorted({f.code for f in findings})
                reject(code=codes[0] if len(codes) == 1 else f"meaning_failed:{','.join(codes)}", message="; ".join(f.message for f in findings))
                continue
            if near := questions.close_to(walk.question):
                reject(code="near_duplicate", message=f"{walk.question!r} ~ {near!r}")
                continue
            shapes[walk.shape] += 1
            wanted[scenario] -= 1
            kept.append(env)
            hops.append(walk.hops)
    return kept, rejections, hops


class _Questions:
    """The main questions kept so far in one world and language, embedded, to refuse a near-duplicate as it comes."""

    def __init__(self, embedder: Any | None, threshold: float) -> None:
        self.embedder, self.threshold = embedder, threshold
        self.texts: list[str] = []
        self.vectors: list[Any] = []

    def close_to(self, question: str) -> str | None:
        """A kept question `question` embeds close to (it is then not kept), or None (it is kept)."""
        if self.embedder is None:
            return None
        vector = self.embedder.encode([question], normalize_embeddings=True, convert_to_numpy=True)[0]
        near = next((t for t, v in zip(self.texts, self.vectors, strict=True) if float(vector @ v) >= self.threshold), None)
        if near is None:
            self.texts.append(question)
            self.vectors.append(vector)
        return near


async def synthesize_from_worlds(worlds: list[World], out: Path, config: WorldSynthConfig, *, sandbox: Sandbox | None,
                                 embedder: Any | None = None, rewriter: Any | None = None) -> WorldSynthStats:  # fmt: skip
    """Build, check, write and verify the environments of `worlds` into `out`.

    Args:
        worlds: the worlds (rows given or filled from their seed); names must be unique.
        out: the output folder (`envs/`, `worlds/`, `stats.json`, `rejected.jsonl`).
        config: quotas, seed and thresholds.
        sandbox: the sandbox `verify` runs the tools in; None skips the MCP verify (the code-path
            replay still runs), which only benchmarks and tests of the code path should do.
        embedder: a sentence-transformers model for the near-duplicate and duplicate-tool rules.
        rewriter: a `ChatModel` that rewords each kept question as a user would ask it (None: the templates stand).

    Raises:
        ValueError: when two worlds share a name.
    """
    names = [w.name for w in worlds]
    if len(set(names)) != len(names):
        raise ValueError(f"world names repeat: {sorted({n for n in names if names.count(n) > 1})}")
    envs_dir, markers = out / "envs", out / "worlds"
    envs_dir.mkdir(parents=True, exist_ok=True)
    markers.mkdir(parents=True, exist_ok=True)
    stats = WorldSynthStats(worlds=len(worlds))
    rejected: list[dict[str, Any]] = []
    started = time.perf_counter()
    build_s = verify_s = 0.0
    for world in sorted(worlds, key=lambda w: w.name):
        marker = markers / f"{world.name}.json"
        if not marker.is_file():
            t0 = time.perf_counter()
            done = await _world(world, config, envs_dir, sandbox, embedder, rewriter)
            world_build_s = done.pop("build_s")
            build_s += world_build_s
            verify_s += time.perf_counter() - t0 - world_build_s
            marker.write_text(json.dumps(done, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
        done = json.loads(marker.read_text(encoding="utf-8"))
        _count(stats, done, envs_dir, verified=sandbox is not None)
        rejected += done["rejections"]
    (out / "rejected.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rejected), encoding="utf-8")
    stats.rejected = dict(sorted(Counter(r["code"] for r in rejected).items()))
    stats.seconds = {"build": round(build_s, 2), "verify": round(verify_s, 2), "total": round(time.perf_counter() - started, 2)}
    (out / "stats.json").write_text(stats.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return stats


async def _world(
    world: World, config: WorldSynthConfig, envs_dir: Path, sandbox: Sandbox | None, embedder: Any | None, rewriter: Any | None
) -> dict[str, Any]:
    t0 = time.perf_counter()
    envs, rejections, hops = build_world_envs(world, config, embedder)
    rewrites: Counter[str] = Counter()
    if rewriter is not None:
        for i, env in enumerate(envs):
            envs[i], refused = await reword_environment(rewriter, env)
            rewrites["refused" if refused else "kept"] += 1
    written: dict[Path, int] = {}
    for i, (env, hop) in enumerate(zip(envs, hops, strict=True)):
        path = envs_dir / f"{world.name}-{env.spec.language}-{i:04d}"
        shutil.rmtree(path, ignore_errors=True)
        written[env.write(path)] = hop
    build_s = time.perf_counter() - t0
    if sandbox is not None and written:
        report = await verify_paths(list(written), sandbox=sandbox, concurrency=config.verify_concurrency)
        for r in report.envs:
            if not r.passed:
                shutil.rmtree(r.path or "", ignore_errors=True)
                message = "; ".join(f.message for f in r.findings)[:400]
                code = r.codes[0] if len(r.codes) == 1 else f"verify_failed:{','.join(r.codes)}"
                rejections.append(_Rejection(world=world.name, language="-", scenario="-", code=code, message=message))
    left = {p.name: hop for p, hop in written.items() if p.is_dir()}
    return {"envs": left, "walks": len(envs) + len(rejections), "build_s": build_s, "rewrites": dict(rewrites),
            "rejections": [r.model_dump() for r in rejections]}  # fmt: skip


def _count(stats: WorldSynthStats, done: dict[str, Any], envs_dir: Path, *, verified: bool) -> None:
    for name, hop in done["envs"].items():
        spec = json.loads((envs_dir / name / "env.json").read_text(encoding="utf-8"))
        world = name.rsplit("-", 2)[0]
        scenario = spec["task"]["scenario"]
        stats.scenarios[scenario] = stats.scenarios.get(scenario, 0) + 1
        stats.languages[spec["language"]] = stats.languages.get(spec["language"], 0) + 1
        stats.per_world[world] = stats.per_world.get(world, 0) + 1
        stats.hops[str(hop)] = stats.hops.get(str(hop), 0) + 1
    stats.walks += done["walks"]
    for outcome, n in done.get("rewrites", {}).items():
        stats.rewrites[outcome] = stats.rewrites.get(outcome, 0) + n
    stats.built += len(done["envs"]) + sum(r["language"] == "-" and r["code"] != "duplicate_tool" for r in done["rejections"])
    stats.written += len(done["envs"])
    stats.verified += len(done["envs"]) if verified else 0
