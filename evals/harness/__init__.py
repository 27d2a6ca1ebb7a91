"""Benchmark harnesses behind `pytest evals/`: BFCL-v3 multi-turn, tau2-bench and ACEBench.

Each benchmark's environments are exposed as MCP servers and driven by an `agent_sdk`
`ChatModel` through an `agent_sdk.Toolbox` (the same MCP client path training uses); scores
come from the benchmark's own checker where it has one (BFCL, tau2) and from a checker
written here from the data's conventions where it does not (ACEBench).
"""

from harness._config import EVAL_MAX_MODEL_LEN, EvalConfig
from harness._conversation import Conversation, TurnResult, TurnStep
from harness._models import EvalModels
from harness._protocol import PROTOCOLS_DIR, Protocol, load_protocol
from harness._report import REFERENCE_ROWS, BenchmarkRow, ReferenceRow, RunInfo, Summary, wilson_interval

__all__ = [
    "EVAL_MAX_MODEL_LEN",
    "PROTOCOLS_DIR",
    "REFERENCE_ROWS",
    "BenchmarkRow",
    "Conversation",
    "EvalConfig",
    "EvalModels",
    "Protocol",
    "ReferenceRow",
    "RunInfo",
    "Summary",
    "TurnResult",
    "TurnStep",
    "load_protocol",
    "wilson_interval",
]
