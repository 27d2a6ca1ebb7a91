"""The bundled examples: every authored environment passes verify, every broken one fails
with exactly its code, and the committed files are what the generator writes."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path

import pytest

from mcp_servers import LocalSandbox, find_envs, load_env
from mcp_servers._verify import verify_paths
from mcp_servers._verify_checks import FINDING_CODES

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _expected_code(directory: Path) -> str:
    return directory.name.split(".")[0]


def test_examples_cover_the_required_variety() -> None:
    envs = [load_env(p) for p in find_envs(EXAMPLES / "envs")]
    assert len(envs) >= 12
    assert sum(e.spec.language == "zh" for e in envs) >= 3
    assert {e.spec.task.scenario for e in envs} == {"single_hop", "parallel_single_hop", "multi_hop", "parallel_multi_hop"}
    assert len({e.spec.domain for e in envs}) >= 8
    merged = [
        e for e in envs
        for tool, n in Counter(s.golden_call.tool for s in e.spec.subtasks if s.golden_call).items()
        if n >= 2 and len({str(s.golden_call.arguments) for s in e.spec.subtasks if s.golden_call and s.golden_call.tool == tool}) == n
    ]
    assert merged, "one environment must serve several subtasks with one tool and different arguments"
    stateful = load_env(EXAMPLES / "envs" / "hotel_booking")
    assert any(s.depends_on for s in stateful.spec.subtasks) and "BOOKINGS" in stateful.code
    assert len({e.spec.id for e in envs}) == len(envs)


def test_committed_examples_match_the_generator(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("build_examples", EXAMPLES / "build_examples.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    built = module.build_envs(tmp_path / "envs") + module.build_broken(tmp_path / "broken")
    assert built
    for directory in built:
        committed = EXAMPLES / directory.parent.name / directory.name
        for name in ("env.json", "tools.py"):
            assert (directory / name).read_text() == (committed / name).read_text(), f"{committed / name} is stale"


@pytest.mark.anyio
async def test_every_authored_example_passes() -> None:
    async with LocalSandbox() as sandbox:
        report = await verify_paths([EXAMPLES / "envs"], sandbox=sandbox)
    failures = {Path(r.path).name: [f"{f.code}: {f.message}" for f in r.findings] for r in report.envs if not r.passed}
    assert failures == {}
    assert report.passed and len(report.envs) >= 12


@pytest.mark.anyio
async def test_every_broken_example_fails_with_exactly_its_code() -> None:
    dirs = find_envs(EXAMPLES / "broken")
    async with LocalSandbox() as sandbox:
        report = await verify_paths(dirs, sandbox=sandbox)
    got = {Path(r.path).name: r.codes for r in report.envs}
    assert got == {d.name: [_expected_code(d)] for d in dirs}
    assert not any(r.passed for r in report.envs)
    covered = {_expected_code(d) for d in dirs}
    # verify_error means verify itself broke; no environment can (or should) produce it on purpose.
    assert covered == set(FINDING_CODES) - {"verify_error"}
