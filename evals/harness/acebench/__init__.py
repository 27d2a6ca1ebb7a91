"""ACEBench from its data (MIT): a prompt-format checker written here, and milestone statistics.

The ACEBench code is not on PyPI and is not copied: the output format, the matching rules and
the special-category conventions below follow what the data itself shows (possible answers,
function schemas, suffixed names for repeated calls, alternative answers as lists).
"""

from harness.acebench._checker import CheckResult, check_output, parse_calls, render_answer
from harness.acebench._data import (
    AGENT_CATEGORIES,
    NORMAL_CATEGORIES,
    SPECIAL_CATEGORIES,
    AceEntry,
    acebench_dir,
    load_category,
)
from harness.acebench._milestones import MilestoneReport, milestone_report
from harness.acebench._run import play_entry, system_prompt

__all__ = [
    "AGENT_CATEGORIES",
    "NORMAL_CATEGORIES",
    "SPECIAL_CATEGORIES",
    "AceEntry",
    "CheckResult",
    "MilestoneReport",
    "acebench_dir",
    "check_output",
    "load_category",
    "milestone_report",
    "parse_calls",
    "play_entry",
    "render_answer",
    "system_prompt",
]
