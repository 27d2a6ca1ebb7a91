"""Figures of the pipelines' reports: matplotlib without a display, and one way to write a figure."""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["pyplot", "save_figure"]


def pyplot() -> Any:
    """`matplotlib.pyplot` on the Agg backend (reports are written on machines without a display)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig: Any, path: Path, *, dpi: int = 100) -> Path:
    """Lay `fig` out, write it to `path` and free it; returns `path`."""
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    pyplot().close(fig)
    return path
