"""tau2-bench through MCP: domain tools (and telecom's user tools) as MCP servers, scored by tau2.

Importing this package makes LiteLLM use its bundled model-cost map instead of fetching one
over the network at import time (tau2 imports LiteLLM).
"""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from harness.tau2._run import DOMAINS, TaskOutcome, load_tasks, play_task, replay_gold  # noqa: E402
from harness.tau2._results import write_results  # noqa: E402
from harness.tau2._server import Tau2Episode  # noqa: E402

__all__ = ["DOMAINS", "Tau2Episode", "TaskOutcome", "load_tasks", "play_task", "replay_gold", "write_results"]
