"""Evaluation protocols: fixed entry ids per benchmark category, stored as JSON in evals/protocols/."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from agent_sdk import UserError

__all__ = ["PROTOCOLS_DIR", "Protocol", "load_protocol"]

PROTOCOLS_DIR = Path(__file__).resolve().parents[1] / "protocols"
"""Named protocols: `--protocol sampled` reads `PROTOCOLS_DIR / "sampled.json"`."""


class Protocol(BaseModel):
    """A fixed subset of the benchmarks, so that two models (or two runs) play the same entries."""

    name: str
    description: str = Field(description="What the subset is for and how its ids were drawn.")
    entries: dict[str, list[str]] = Field(description="`benchmark:category` -> entry ids, played in this order.")
    source: str = Field(default="", description="The file it was read from.")

    def ids(self, benchmark: str, category: str) -> list[str] | None:
        """The ids of `benchmark:category`, or None when the protocol leaves the category out."""
        return self.entries.get(f"{benchmark}:{category}")


@lru_cache(maxsize=8)
def load_protocol(name_or_path: str) -> Protocol | None:
    """None for `full` (every entry); else the protocol named `name_or_path` in `PROTOCOLS_DIR`, or that file.

    Raises:
        UserError: when there is no such protocol or its file is not a valid protocol.
    """
    if name_or_path == "full":
        return None
    named = PROTOCOLS_DIR / f"{name_or_path}.json"
    path = named if named.is_file() else Path(name_or_path).expanduser()
    if not path.is_file():
        known = ", ".join(["full", *sorted(p.stem for p in PROTOCOLS_DIR.glob("*.json"))])
        raise UserError(f"--protocol {name_or_path!r}: no such protocol or file (known: {known})")
    try:
        protocol = Protocol.model_validate_json(path.read_text(encoding="utf-8"))
    except ValidationError as exc:
        raise UserError(f"{path}: not a valid protocol: {exc}") from exc
    return protocol.model_copy(update={"source": str(path)})
