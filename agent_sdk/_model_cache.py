"""The model cache: directories built once, under a lock, and renamed into place.

Built models (an embedded model dequantized, an adapter merged into its base) live under
`<cache>/models/`. A build writes into a temporary directory beside its target and is renamed
into place only when complete, under a file lock, so concurrent processes build a directory at
most once and never see one half-written.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["build_cached", "cache_dir", "file_lock"]


def cache_dir() -> Path:
    """The project's cache root: `$ASTRA_CACHE_DIR`, else `~/.cache/astra-mcp`."""
    configured = os.environ.get("ASTRA_CACHE_DIR")
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "astra-mcp"


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `path` (created if missing) for the block."""
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def build_cached(target: Path, is_complete: Callable[[Path], bool], build: Callable[[Path, Path], None]) -> Path:
    """`target`, built by `build(work, out)` unless `is_complete(target)` already holds.

    `build` gets a scratch directory `work` and must leave the finished model in `out` (inside
    `work`); `out` then replaces `target`. Scratch is removed whether or not the build succeeds.
    """
    if is_complete(target):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(target.parent / f".{target.name}.lock"):
        if is_complete(target):
            return target
        work = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
        try:
            out = work / "model"
            build(work, out)
            if target.exists():
                shutil.rmtree(target)
            os.replace(out, target)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return target
