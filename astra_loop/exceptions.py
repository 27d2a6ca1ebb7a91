"""Errors of the loop.

    RecipeError
    ├── LoopConfigError   misuse: an unknown preset, a missing input
    ├── StageError        a stage could not finish (its marker is not written; a re-run retries it)
    └── OverlapError      training data contains evaluation environments (fail closed)
"""

from __future__ import annotations


class RecipeError(Exception):
    """Base of the loop's errors."""


class LoopConfigError(RecipeError):
    """The loop was asked for something it cannot do (unknown preset, missing input)."""


class StageError(RecipeError):
    """A stage failed; it is retried from its start (its own pipelines resume inside) on the next run."""


class OverlapError(RecipeError):
    """Training data contains evaluation environments or near-duplicates of their questions."""
