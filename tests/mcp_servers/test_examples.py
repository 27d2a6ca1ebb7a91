"""The bundled examples: every authored environment passes verify, every broken one fails
with exactly its code, the training set is separate from the evaluation set, and the
committed files are what the generator writes."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

from mcp_servers import LocalSandbox, find_envs, load_env, normalize_answer
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


def test_training_set_is_varied_and_separate_from_the_evaluation_set() -> None:
    train = [load_env(p) for p in find_envs(EXAMPLES / "train_envs")]
    evaluation = [load_env(p) for p in find_envs(EXAMPLES / "envs")]
    assert len(train) >= 32
    assert sum(e.spec.language == "zh" for e in train) >= 8
    assert {e.spec.task.scenario for e in train} == {"single_hop", "parallel_single_hop", "multi_hop", "parallel_multi_hop"}
    assert len({e.spec.domain for e in train}) >= 20
    assert {len(e.spec.tools) for e in train} >= {1, 2, 3, 4}
    unused = [e for e in train if {t.name for t in e.spec.tools} - {s.golden_call.tool for s in e.spec.subtasks if s.golden_call}]
    assert len(unused) >= 5, "some training environments must offer a plausible tool the task does not need"
    assert len({e.spec.id for e in train}) == len(train)
    assert not {e.spec.id for e in train} & {e.spec.id for e in evaluation}
    assert not {p.name for p in find_envs(EXAMPLES / "train_envs")} & {p.name for p in find_envs(EXAMPLES / "envs")}
    # The loop's audit also compares embeddings (astra_loop/overlap.py); exact copies are caught here without a model.
    eval_questions = {normalize_answer(e.spec.task.question) for e in evaluation}
    train_questions = {normalize_answer(q) for e in train for q in [e.spec.task.question, *(s.question for s in e.spec.subtasks)]}
    assert not train_questions & eval_questions


def _build_examples_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_examples", EXAMPLES / "build_examples.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_examples_match_the_generator(tmp_path: Path) -> None:
    module = _build_examples_module()
    built = (
        module.build_envs(tmp_path / "envs")
        + module.build_envs(tmp_path / "train_envs", authored=module.TRAIN_AUTHORED, tools=module.TRAIN_ENVS)
        + module.build_broken(tmp_path / "broken")
    )
    assert built
    for directory in built:
        committed = EXAMPLES / directory.parent.name / directory.name
        for name in ("env.json", "tools.py"):
            assert (directory / name).read_text() == (committed / name).read_text(), f"{committed / name} is stale"
    for folder in ("envs", "train_envs"):
        committed_dirs = {p.name for p in find_envs(EXAMPLES / folder)}
        assert committed_dirs == {p.name for p in built if p.parent.name == folder}, f"examples/{folder} holds an unauthored directory"


@pytest.mark.anyio
async def test_every_authored_example_passes() -> None:
    async with LocalSandbox() as sandbox:
        report = await verify_paths([EXAMPLES / "envs"], sandbox=sandbox)
    failures = {Path(r.path).name: [f"{f.code}: {f.message}" for f in r.findings] for r in report.envs if not r.passed}
    assert failures == {}
    assert report.passed and len(report.envs) >= 12


@pytest.mark.anyio
async def test_every_training_environment_passes() -> None:
    async with LocalSandbox() as sandbox:
        report = await verify_paths([EXAMPLES / "train_envs"], sandbox=sandbox)
    failures = {Path(r.path).name: [f"{f.code}: {f.message}" for f in r.findings] for r in report.envs if not r.passed}
    assert failures == {}
    assert report.passed and len(report.envs) >= 32


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
