"""`read_jsonl`: the one reader of JSONL files in the project.

Every problem names its file and line. The caller chooses what a problem does: `stop` raises
`JsonlError` at the first one (a file this project wrote, where a bad line means corruption);
`collect` returns the problems beside the good rows, so the rest of the input still runs
(pipeline input, docs/design.md §8). Blank lines are skipped; every other line must hold a JSON object.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from agent_sdk.exceptions import JsonlError

__all__ = ["JsonlContent", "JsonlProblem", "JsonlRow", "OnProblem", "format_validation_error", "read_jsonl"]

T = TypeVar("T")

OnProblem = Literal["stop", "collect"]
"""What a bad line does: raise `JsonlError` (`stop`), or become a `JsonlProblem` (`collect`)."""


@dataclass(frozen=True, kw_only=True)
class JsonlProblem:
    """One line of a JSONL file that could not be used (a record, not an exception)."""

    file: str
    """The file, as given to the reader."""
    line: int
    """The 1-based line number."""
    message: str
    """What is wrong with the line."""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


@dataclass(frozen=True, kw_only=True)
class JsonlRow(Generic[T]):
    """One usable line: its value and where it came from."""

    file: str
    """The file, as given to the reader."""
    line: int
    """The 1-based line number."""
    value: T
    """The parsed object (the `parse` result, or the JSON object)."""

    @property
    def ref(self) -> str:
        """`file:line`, for provenance fields."""
        return f"{self.file}:{self.line}"


@dataclass(frozen=True, kw_only=True)
class JsonlContent(Generic[T]):
    """What `read_jsonl` read: the usable rows and, with `collect`, the problems, both in file order."""

    rows: list[JsonlRow[T]] = field(default_factory=list)
    problems: list[JsonlProblem] = field(default_factory=list)

    @property
    def values(self) -> list[T]:
        """The rows' values."""
        return [row.value for row in self.rows]


def read_jsonl(
    path: str | Path,
    parse: type[T] | Callable[[dict[str, Any]], T] | None = None,
    *,
    on_problem: OnProblem = "stop",
    limit: int | None = None,
) -> JsonlContent[T]:
    """Read a JSONL file of objects, each turned into a value by `parse`.

    Args:
        path: the file.
        parse: a pydantic model to validate each object against, or a function of the object
            that raises `ValueError`, `KeyError` or `TypeError` (a `ValidationError` included)
            for an unusable one; None keeps the objects as they are.
        on_problem: `stop` raises at the first bad line; `collect` returns the bad lines as
            problems while the other lines still load.
        limit: read only the first `limit` non-blank lines.

    Raises:
        FileNotFoundError: when `path` does not exist.
        JsonlError: with `stop`, naming the file and line of the first bad line.
    """
    convert = _converter(parse)
    content: JsonlContent[T] = JsonlContent()
    seen = 0
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, 1):
            if not raw.strip():
                continue
            seen += 1
            if limit is not None and seen > limit:
                break
            try:
                value = convert(_object(raw))
            except (ValueError, KeyError, TypeError) as exc:
                problem = JsonlProblem(file=str(path), line=number, message=_describe(exc))
                if on_problem == "stop":
                    raise JsonlError(problem.file, problem.line, problem.message) from exc
                content.problems.append(problem)
                continue
            content.rows.append(JsonlRow(file=str(path), line=number, value=value))
    return content


def format_validation_error(exc: ValidationError, limit: int = 8) -> str:
    """A compact `field.path: message` list (at most `limit` items), short enough to show a user or a model."""
    lines = []
    for err in exc.errors()[:limit]:
        loc = ".".join(str(p) for p in err["loc"]) or "(root)"
        lines.append(f"{loc}: {err['msg']}")
    more = len(exc.errors()) - limit
    if more > 0:
        lines.append(f"... and {more} more")
    return "; ".join(lines)


def _converter(parse: type[T] | Callable[[dict[str, Any]], T] | None) -> Callable[[dict[str, Any]], Any]:
    if parse is None:
        return lambda data: data
    if isinstance(parse, type) and issubclass(parse, BaseModel):
        return parse.model_validate
    return parse


def _object(raw: bytes) -> dict[str, Any]:
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text: {exc.reason}") from exc
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON: {exc.msg} (column {exc.colno})") from exc
    if not isinstance(data, dict):
        raise TypeError(f"expected a JSON object, got {type(data).__name__}")
    return data


def _describe(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return format_validation_error(exc)
    if isinstance(exc, KeyError):
        return f"missing field {exc.args[0]!r}" if exc.args else "missing field"
    return str(exc) or type(exc).__name__
