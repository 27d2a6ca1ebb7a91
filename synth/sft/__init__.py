"""SFT trajectory synthesis: tool documentation -> judged multi-turn trajectories (ASTRA §SFT).

Stages (each runnable alone over one output directory, see `SftPipeline`):

1. ingest — live MCP servers, OpenAI tool-schema files, ASTRA server rows and this
   project's environments into `ServerDoc`s (`ingest`);
2. graph + chains — LLM-proposed tool chains become a weighted graph; chains are sampled by
   random walks (`sample_chains`) and verified (`check_dependencies`, `vote_coherence`);
3. tasks — chain-conditioned and server-only tasks, augmented and scored;
4. rollout — agent_sdk's `Agent` over MCP: the real server, or the `ToolEmulator`;
5. judge — seven dimensions, fail closed (`judge_trajectory`);
6. export — `sft.jsonl` (TRL) and `sft.parquet` (veRL).
"""

from synth.sft._docs import DroppedServer, ServerDoc, ServerSource, ToolDoc, ToolIssue, to_openai_parameters
from synth.sft._graph import ToolGraph, WalkConfig, propose_graph, sample_chains
from synth.sft._ingest import IngestResult, ingest, ingest_envs, ingest_file, ingest_mcp
from synth.sft._judge import DIMENSIONS, JudgeVerdict, judge_trajectory
from synth.sft._pipeline import STAGES, SftConfig, SftPipeline, TokenBudgets
from synth.sft._rollout import RolloutConfig, RolloutServers, TrajectoryRecord, rollout
from synth.sft._tasks import SynthTask, TaskScores, TaskThresholds
from synth.sft._verify import CoherenceVerdict, DependencyVerdict, check_dependencies, vote_coherence

__all__ = [
    "DIMENSIONS",
    "STAGES",
    "CoherenceVerdict",
    "DependencyVerdict",
    "DroppedServer",
    "IngestResult",
    "JudgeVerdict",
    "RolloutConfig",
    "RolloutServers",
    "ServerDoc",
    "ServerSource",
    "SftConfig",
    "SftPipeline",
    "SynthTask",
    "TaskScores",
    "TaskThresholds",
    "ToolDoc",
    "ToolGraph",
    "TokenBudgets",
    "ToolIssue",
    "TrajectoryRecord",
    "WalkConfig",
    "check_dependencies",
    "ingest",
    "ingest_envs",
    "ingest_file",
    "ingest_mcp",
    "judge_trajectory",
    "propose_graph",
    "rollout",
    "sample_chains",
    "to_openai_parameters",
    "vote_coherence",
]
