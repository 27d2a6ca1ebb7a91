"""The public API of `synth.sft` is its `__all__`."""

from __future__ import annotations

import synth.sft


def test_public_names() -> None:
    assert set(synth.sft.__all__) == {
        "DIMENSIONS", "STAGES", "CoherenceVerdict", "DependencyVerdict", "DroppedServer", "IngestResult", "JudgeVerdict",
        "RolloutConfig", "RolloutServers", "ServerDoc", "ServerSource", "SftConfig", "SftPipeline", "SynthTask", "TaskScores",
        "TaskThresholds", "TokenBudgets", "ToolDoc", "ToolGraph", "ToolIssue", "TrajectoryRecord", "WalkConfig", "check_dependencies", "ingest",
        "ingest_envs", "ingest_file", "ingest_mcp", "judge_trajectory", "propose_graph", "rollout", "sample_chains",
        "to_openai_parameters", "vote_coherence",
    }
    for name in synth.sft.__all__:
        obj = getattr(synth.sft, name)
        assert isinstance(obj, tuple) or obj.__doc__, f"{name} has no docstring"
    assert synth.sft.STAGES == ("ingest", "graph", "chains", "tasks", "score", "rollout", "judge", "export")
