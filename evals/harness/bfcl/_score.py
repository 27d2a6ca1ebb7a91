"""Scoring with bfcl-eval's own multi-turn checker, and result files `bfcl evaluate` reads."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.bfcl._data import BfclEntry
from harness.bfcl._server import parse_call_string

__all__ = ["BFCL_REGISTRY", "score_entry", "step_text", "write_result_file"]

BFCL_REGISTRY = "Qwen/Qwen3-8B-FC"
"""The bfcl-eval model entry whose handler decodes our result files (Qwen's `<tool_call>` text).
`bfcl evaluate` only evaluates registered names; the files hold this project's model's calls."""


def score_entry(entry: BfclEntry, turns: Sequence[Sequence[Sequence[str]]]) -> dict[str, Any]:
    """bfcl-eval's verdict on the calls of one episode (per turn, per step, BFCL call strings).

    Mirrors bfcl-eval's runner: a run with fewer turns than the ground truth was force-terminated;
    empty steps are dropped; then `multi_turn_checker` re-executes both sides and compares state
    and results. Every scoring uses a fresh model name because the checker caches backend
    instances by name; those instances are dropped afterwards.
    """
    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker

    if len(turns) != len(entry.ground_truth):
        return {
            "valid": False,
            "error_type": "multi_turn:force_terminated",
            "error_message": f"{len(turns)} turns played, ground truth has {len(entry.ground_truth)}",
        }
    decoded = [[list(step) for step in turn if step] for turn in turns]
    model_name = f"astra_{uuid.uuid4().hex}"
    try:
        return multi_turn_checker(decoded, entry.ground_truth, json.loads(json.dumps(entry.raw)), entry.category, model_name)
    finally:
        prefix = re.sub(r"[-./:]", "_", model_name)
        for key in [k for k in vars(multi_turn_utils) if k.startswith(prefix)]:
            delattr(multi_turn_utils, key)


def step_text(calls: Sequence[str]) -> str:
    """One step's calls as Qwen's FC text (`<tool_call>` JSON blocks), which bfcl decodes back."""
    blocks = []
    for call in calls:
        name, args, kwargs = parse_call_string(call)
        if args:
            raise ValueError(f"step call {call!r} has positional arguments; record calls with keywords")
        blocks.append("<tool_call>\n" + json.dumps({"name": name, "arguments": kwargs}) + "\n</tool_call>")
    return "\n".join(blocks)


def write_result_file(
    root: Path, category: str, results: Sequence[dict[str, Any]], *, registry: str = BFCL_REGISTRY
) -> Path:
    """Write `results` (`{"id", "turns": [[[call, ...] per step] per turn], ...}`) where bfcl looks.

    The file is `root/<registry dir>/multi_turn/BFCL_v4_<category>_result.json`, one JSON line per
    entry sorted by id; evaluate it with
    `bfcl evaluate --model <registry> --test-category <category> --result-dir <root> --partial-eval`.
    """
    from bfcl_eval.constants.eval_config import VERSION_PREFIX

    directory = root / registry.replace("/", "_") / "multi_turn"
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{VERSION_PREFIX}_{category}_result.json"
    rows = sorted(results, key=lambda r: int(r["id"].rsplit("_", 1)[1]))
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            result = [[step_text(step) for step in turn] for turn in row["turns"]]
            extra = {k: v for k, v in row.items() if k not in {"id", "turns"}}
            fh.write(json.dumps({"id": row["id"], "result": result, **extra}) + "\n")
    return path
