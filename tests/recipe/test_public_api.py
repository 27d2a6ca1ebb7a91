"""The recipe package's public API."""

from __future__ import annotations

import recipe


def test_recipe_public_api():
    assert len(set(recipe.__all__)) == len(recipe.__all__)
    assert {"LoopConfig", "PRESETS", "STAGE_NAMES", "run_loop", "run_stages", "render_report", "check_separation",
            "cold_start_data", "evaluate", "OverlapError", "StageError"} <= set(recipe.__all__)
    assert set(recipe.PRESETS) == {"cpu-small", "astra"}
    assert recipe.STAGE_NAMES == ("synth", "verify", "audit", "cold_start", "grpo", "evaluate")
    for name in recipe.__all__:
        assert getattr(recipe, name) is not None
