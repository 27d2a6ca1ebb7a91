"""The closed loop (`astra loop`): synthesis -> verify -> cold-start SFT -> GRPO -> before/after evaluation.

One output directory holds every stage's output; a finished stage leaves a marker, so a
re-run after a kill resumes at the first unfinished stage. `report.md` shows the funnel, the
GRPO reward curve and the per-environment before/after table.
"""

from astra_loop.cold_start import ColdStartData, cold_start_data
from astra_loop.config import EXAMPLE_ENVS, PRESETS, Layout, LoopConfig, LoopPreset, preset
from astra_loop.evaluate import EpisodeScore, EvalProtocol, EvalResult, evaluate, paired_difference
from astra_loop.exceptions import LoopConfigError, OverlapError, RecipeError, StageError
from astra_loop.loop import STAGE_NAMES, run_loop
from astra_loop.overlap import Overlap, Question, check_separation, find_overlaps
from astra_loop.report import render_report
from astra_loop.stages import Stage, StageBook, StageRecord, run_stages

__all__ = [
    "EXAMPLE_ENVS",
    "PRESETS",
    "STAGE_NAMES",
    "ColdStartData",
    "EpisodeScore",
    "EvalProtocol",
    "EvalResult",
    "Layout",
    "LoopConfig",
    "LoopConfigError",
    "LoopPreset",
    "Overlap",
    "OverlapError",
    "Question",
    "RecipeError",
    "Stage",
    "StageBook",
    "StageError",
    "StageRecord",
    "check_separation",
    "cold_start_data",
    "evaluate",
    "paired_difference",
    "find_overlaps",
    "preset",
    "render_report",
    "run_loop",
    "run_stages",
]
