"""`astra sft synth` wiring: options reach the pipeline; bad input fails with a clear message."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from astra_cli import app


def test_unknown_stage_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["sft", "synth", "--out", str(tmp_path), "--stage", "dream"])
    assert result.exit_code == 2
    assert "unknown stage(s) ['dream']" in result.output


def test_bad_config_file_is_named(tmp_path: Path) -> None:
    config = tmp_path / "cfg.json"
    config.write_text("{not json")
    result = CliRunner().invoke(app, ["sft", "synth", "--out", str(tmp_path), "--config", str(config)])
    assert result.exit_code == 2
    assert "cfg.json" in result.output
