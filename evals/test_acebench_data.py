"""The ACEBench data is vendored: the loader finds it inside the repository, never beside it."""

from __future__ import annotations

from pathlib import Path

from harness.acebench import AGENT_CATEGORIES, NORMAL_CATEGORIES, SPECIAL_CATEGORIES, acebench_dir, data_missing, load_category

from synth.core import DATA_DIR

REPO = Path(__file__).resolve().parents[1]


def test_the_default_data_directory_is_the_vendored_copy(monkeypatch, tmp_path) -> None:
    monkeypatch.delenv("ASTRA_ACEBENCH_DIR", raising=False)
    assert acebench_dir() == DATA_DIR / "acebench" and acebench_dir().resolve().is_relative_to(REPO)
    assert data_missing() is None, "the ACEBench tests would be skipped"
    for language in ("en", "zh"):
        for category in NORMAL_CATEGORIES + SPECIAL_CATEGORIES + AGENT_CATEGORIES:
            assert load_category(category, language=language, limit=1), (language, category)
    # a path the user passes still wins
    assert acebench_dir(tmp_path) == tmp_path
    monkeypatch.setenv("ASTRA_ACEBENCH_DIR", str(tmp_path))
    assert acebench_dir() == tmp_path and data_missing() is not None
