"""ACEBench entries and possible answers from the data directory (`ASTRA_ACEBENCH_DIR`)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from agent_sdk import read_jsonl
from synth.core import DATA_DIR

__all__ = [
    "AGENT_CATEGORIES",
    "NORMAL_CATEGORIES",
    "SPECIAL_CATEGORIES",
    "AceEntry",
    "acebench_dir",
    "data_missing",
    "load_category",
    "write_results",
]

NORMAL_CATEGORIES = (
    "normal_single_turn_single_function",
    "normal_single_turn_parallel_function",
    "normal_multi_turn_user_adjust",
    "normal_multi_turn_user_switch",
    "normal_similar_api",
    "normal_preference",
    "normal_atom_bool",
    "normal_atom_enum",
    "normal_atom_number",
    "normal_atom_list",
    "normal_atom_object_short",
    "normal_atom_object_deep",
)
SPECIAL_CATEGORIES = ("special_incomplete", "special_error_param", "special_irrelevant")
AGENT_CATEGORIES = ("agent_multi_turn", "agent_multi_step")


class AceEntry(BaseModel):
    """One ACEBench test entry with its possible answer."""

    id: str
    category: str
    question: str
    functions: list[dict[str, Any]] = Field(description="The function docs shown to the model.")
    profile: str | None = Field(default=None, description="normal_preference: the user's profile.")
    time: str | None = None
    ground_truth: Any = Field(description="Possible answer: calls, alternatives (list), or special-category info.")
    milestones: list[Any] = Field(
        default_factory=list, description="Agent categories: the gold call path, or alternative paths (lists)."
    )
    initial_config: dict[str, Any] = Field(default_factory=dict)
    involved_classes: list[str] = Field(default_factory=list)


def acebench_dir(explicit: str | Path | None = None) -> Path:
    """The ACEBench data directory: `explicit`, `$ASTRA_ACEBENCH_DIR`, or the vendored `data/acebench` of the repository."""
    if explicit:
        return Path(explicit)
    if os.environ.get("ASTRA_ACEBENCH_DIR"):
        return Path(os.environ["ASTRA_ACEBENCH_DIR"])
    return DATA_DIR / "acebench"


def data_missing() -> str | None:
    """Why the ACEBench tests cannot run (no English data where `acebench_dir` looks), or None."""
    if (acebench_dir() / "data_en").is_dir():
        return None
    return f"ACEBench data not found at {acebench_dir()} (ASTRA_ACEBENCH_DIR)"


def write_results(results_dir: Path, category: str, records: Iterable[dict[str, Any]]) -> Path:
    """One category's result lines, where ACEBench keeps them: `results_dir/acebench/data_<category>_result.json`."""
    path = results_dir / "acebench" / f"data_{category}_result.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    return path


def load_category(category: str, *, root: Path | None = None, language: str = "en", limit: int | None = None) -> list[AceEntry]:
    """The entries of one category with their possible answers.

    Raises:
        FileNotFoundError: when the data directory or a category file is missing.
        ValueError: on an unknown category, a malformed line or an entry without an answer.
    """
    if category not in NORMAL_CATEGORIES + SPECIAL_CATEGORIES + AGENT_CATEGORIES:
        raise ValueError(f"unknown ACEBench category {category!r}")
    base = (root or acebench_dir()) / f"data_{language}"
    questions = read_jsonl(base / f"data_{category}.json").values
    answers = {row["id"]: row for row in read_jsonl(base / "possible_answer" / f"data_{category}.json").values}
    out = []
    for row in questions[:limit] if limit else questions:
        answer = answers.get(row["id"])
        if answer is None:
            raise ValueError(f"{base / f'data_{category}.json'}: entry {row['id']} has no possible answer")
        out.append(
            AceEntry(
                id=row["id"], category=category, question=row["question"], functions=row["function"],
                profile=row.get("profile"), time=row.get("time"), ground_truth=answer["ground_truth"],
                milestones=answer.get("mile_stone", []), initial_config=row.get("initial_config", {}),
                involved_classes=row.get("involved_classes", []),
            )
        )
    return out
