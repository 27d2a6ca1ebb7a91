"""The astra_loop package's public API."""

from __future__ import annotations

import astra_loop


def test_recipe_public_api():
    assert len(set(astra_loop.__all__)) == len(astra_loop.__all__)
    assert {"LoopConfig", "PRESETS", "STAGE_NAMES", "run_loop", "run_stages", "render_report", "check_separation",
            "cold_start_data", "evaluate", "OverlapError", "StageError"} <= set(astra_loop.__all__)
    assert set(astra_loop.PRESETS) == {"cpu-small", "astra"}
    assert astra_loop.STAGE_NAMES == ("synth", "verify", "audit", "cold_start", "grpo", "evaluate")
    for name in astra_loop.__all__:
        assert getattr(astra_loop, name) is not None
