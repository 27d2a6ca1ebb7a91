"""BFCL multi-turn entries and their ground truth, loaded by bfcl-eval's own loaders."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

__all__ = ["CATEGORIES", "BfclEntry", "Category", "load_entries"]

Category = Literal["multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context"]
CATEGORIES: tuple[Category, ...] = (
    "multi_turn_base",
    "multi_turn_miss_func",
    "multi_turn_miss_param",
    "multi_turn_long_context",
)


class BfclEntry(BaseModel):
    """One test entry as bfcl-eval prepares it, plus its ground truth."""

    id: str
    category: Category
    question: list[list[dict[str, Any]]] = Field(description="Per turn, the user messages (empty on a reveal turn).")
    initial_config: dict[str, Any] = Field(default_factory=dict)
    involved_classes: list[str]
    function: list[dict[str, Any]] = Field(description="Function docs visible from the first turn.")
    missed_function: dict[str, list[dict[str, Any]]] = Field(
        default_factory=dict, description="Turn index (as a string) -> docs revealed at that turn (miss_func)."
    )
    ground_truth: list[list[str]] = Field(description="Per turn, the ground-truth calls as Python call strings.")
    raw: dict[str, Any] = Field(description="The entry exactly as bfcl-eval loaded it (what its checker reads).")

    @property
    def long_context(self) -> bool:
        """Whether backends load the long-context variant of their state (bfcl-eval's rule)."""
        return "long_context" in self.category or "composite" in self.category


def load_entries(category: Category, *, limit: int | None = None, ids: set[str] | None = None) -> list[BfclEntry]:
    """The entries of `category` in dataset order (first `limit`, or those in `ids`).

    Raises:
        ValueError: on an unknown category or an entry without ground truth.
    """
    if category not in CATEGORIES:
        raise ValueError(f"unknown BFCL multi-turn category {category!r}; expected one of {', '.join(CATEGORIES)}")
    from bfcl_eval.utils import load_dataset_entry, load_ground_truth_entry

    entries = load_dataset_entry(category, include_prereq=False)
    truth = {e["id"]: e["ground_truth"] for e in load_ground_truth_entry(category)}
    out: list[BfclEntry] = []
    for raw in entries:
        if ids is not None and raw["id"] not in ids:
            continue
        if raw["id"] not in truth:
            raise ValueError(f"BFCL {category}: entry {raw['id']} has no ground truth")
        out.append(
            BfclEntry(
                id=raw["id"],
                category=category,
                question=raw["question"],
                initial_config=raw.get("initial_config", {}),
                involved_classes=raw["involved_classes"],
                function=raw["function"],
                missed_function=raw.get("missed_function", {}),
                ground_truth=truth[raw["id"]],
                raw=raw,
            )
        )
        if limit is not None and len(out) >= limit:
            break
    return out
