"""Benchmark harnesses behind `pytest evals/`: BFCL-v3 multi-turn, tau2-bench and ACEBench.

Each benchmark's environments are exposed as MCP servers and driven by an `agent_sdk`
`ChatModel` through an `agent_sdk.Toolbox` (the same MCP client path training uses); scores
come from the benchmark's own checker where it has one (BFCL, tau2) and from a checker
written here from the data's conventions where it does not (ACEBench).
"""

from harness._config import EvalConfig
from harness._conversation import Conversation, TurnResult, TurnStep
from harness._report import REFERENCE_ROWS, BenchmarkRow, ReferenceRow, Summary, wilson_interval

__all__ = [
    "REFERENCE_ROWS",
    "BenchmarkRow",
    "Conversation",
    "EvalConfig",
    "ReferenceRow",
    "Summary",
    "TurnResult",
    "TurnStep",
    "wilson_interval",
]
