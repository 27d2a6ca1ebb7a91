"""ACEBench from its data (MIT): a prompt-format checker and agent-scenario executors written here.

The ACEBench code is not on PyPI and is not copied: the output format, the matching rules and
the special-category conventions follow what the data itself shows (possible answers,
function schemas, suffixed names for repeated calls, alternative answers as lists); the agent
scenarios (phone apps, travel) are built from the gold end states, the function docs and the
gold milestone paths (see `_phone.py` and `_travel.py` for what is inferred and how).
"""

from harness.acebench._agent_env import AgentEpisode, ExecutedCall
from harness.acebench._agent_run import AgentOutcome, play_agent_entry
from harness.acebench._agent_score import ReplayReport, end_state_mismatches, process_accuracy, replay_gold_paths
from harness.acebench._checker import CheckResult, check_output, parse_calls, render_answer
from harness.acebench._data import (
    AGENT_CATEGORIES,
    NORMAL_CATEGORIES,
    SPECIAL_CATEGORIES,
    AceEntry,
    acebench_dir,
    data_missing,
    load_category,
    write_results,
)
from harness.acebench._milestones import MilestoneReport, gold_paths, milestone_report, parse_milestone
from harness.acebench._run import play_entry, system_prompt

__all__ = [
    "AGENT_CATEGORIES",
    "NORMAL_CATEGORIES",
    "SPECIAL_CATEGORIES",
    "AceEntry",
    "AgentEpisode",
    "AgentOutcome",
    "CheckResult",
    "ExecutedCall",
    "MilestoneReport",
    "ReplayReport",
    "acebench_dir",
    "data_missing",
    "check_output",
    "end_state_mismatches",
    "gold_paths",
    "load_category",
    "milestone_report",
    "parse_calls",
    "parse_milestone",
    "play_agent_entry",
    "play_entry",
    "process_accuracy",
    "render_answer",
    "replay_gold_paths",
    "system_prompt",
    "write_results",
]
