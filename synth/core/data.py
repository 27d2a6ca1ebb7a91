"""Where the vendored third-party data lives: `data/` at the repository root.

The repository stands alone: commands and tests read ASTRA's released inputs and the
benchmark data from this folder (each source with its licence and origin, `data/README.md`),
never from outside the checkout. A path a user passes still wins wherever a command takes one.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["DATA_DIR"]

DATA_DIR: Path = Path(__file__).resolve().parents[2] / "data"
"""The vendored data folder: `astra/` (ASTRA's inputs, Apache-2.0) and `acebench/` (MIT)."""
