"""Errors of the rl package.

    RlError
    ├── DatasetError          bad input to `astra rl prepare` or a malformed dataset row
    └── TrainingSetupError    a missing extra, model, GPU or file before training starts
"""

from __future__ import annotations


class RlError(Exception):
    """Base class of rl errors."""


class DatasetError(RlError):
    """An environments directory or a dataset row that cannot be turned into training data."""


class TrainingSetupError(RlError):
    """Training cannot start: a missing dependency, model file or accelerator."""
