"""Fixtures for synth/env tests: a started sandbox, the leak auditor (real embeddings), the script."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from synth.env._leak import LeakAuditor, data_root  # noqa: E402

QUESTIONS = data_root() / "astra" / "knowledge" / "en" / "questions.jsonl"


@pytest.fixture
async def sandbox():
    from mcp_servers import LocalSandbox

    async with LocalSandbox(workers=2) as sb:
        yield sb


@pytest.fixture(scope="session")
def auditor_cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("leak-cache")


@pytest.fixture(scope="session")
def embedder():
    from synth.env._leak import load_embedder

    return load_embedder()


@pytest.fixture
async def auditor(embedder, auditor_cache) -> LeakAuditor:
    assert QUESTIONS.is_file(), f"benchmark file missing: {QUESTIONS}"
    return await LeakAuditor.load([QUESTIONS], threshold=0.9, cache_dir=auditor_cache, embedder=embedder)
