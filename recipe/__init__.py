"""The closed loop (`astra loop`): synthesis -> verify -> cold-start SFT -> GRPO -> before/after evaluation.

One output directory holds every stage's output; a finished stage leaves a marker, so a
re-run after a kill resumes at the first unfinished stage. `report.md` shows the funnel, the
GRPO reward curve and the per-environment before/after table.
"""

from recipe.cold_start import ColdStartData, cold_start_data
from recipe.config import EXAMPLE_ENVS, PRESETS, Layout, LoopConfig, LoopPreset, preset
from recipe.evaluate import EpisodeScore, EvalResult, evaluate, open_model
from recipe.exceptions import LoopConfigError, OverlapError, RecipeError, StageError
from recipe.loop import STAGE_NAMES, run_loop
from recipe.overlap import Overlap, Question, check_separation, find_overlaps
from recipe.report import render_report
from recipe.stages import Stage, StageBook, StageRecord, run_stages

__all__ = [
    "EXAMPLE_ENVS",
    "PRESETS",
    "STAGE_NAMES",
    "ColdStartData",
    "EpisodeScore",
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
    "find_overlaps",
    "open_model",
    "preset",
    "render_report",
    "run_loop",
    "run_stages",
]
