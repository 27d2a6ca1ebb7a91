"""Where worlds come from: a SQLite file, a world file (JSON or YAML), or a list of domains.

`read_sources` sorts the paths a user passes into worlds ready to build and domains still to
propose. A bad world file is refused with one line per problem, naming the file and the field
path; a directory is read for the worlds it holds (`*.json`, `*.yaml`, `*.yml`, `*.sqlite`, `*.db`),
and a domain list (`*.jsonl`) only when it is named as a file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from synth.world._schema import World
from synth.world._sqlite import world_from_sqlite

__all__ = ["WorldSources", "load_world_file", "read_domains", "read_sources"]

_SQLITE = {".sqlite", ".sqlite3", ".db"}
_WORLD_FILES = {".json", ".yaml", ".yml"}


@dataclass
class WorldSources:
    """Worlds read from files, domains that still need a model, and tables a database had to leave out."""

    worlds: list[World] = field(default_factory=list)
    domains: list[str] = field(default_factory=list)
    skipped_tables: dict[str, dict[str, str]] = field(default_factory=dict)


def load_world_file(path: str | Path) -> World:
    """Read and validate a world file.

    Raises:
        ValueError: one line per problem, `FILE: field.path: message`.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
        raw: Any = yaml.safe_load(text) if path.suffix in {".yaml", ".yml"} else json.loads(text)
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot read: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: line {exc.lineno} column {exc.colno}: invalid JSON: {exc.msg}") from exc
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: invalid YAML: {exc}") from exc
    if not isinstance(raw, dict):
        raise ValueError(f"{path}: (root): expected an object with 'name', 'domain' and 'entities', got {type(raw).__name__}")
    try:
        return World.model_validate(raw)
    except ValidationError as exc:
        lines = []
        for err in exc.errors():
            loc = ".".join(str(p) for p in err["loc"]) or "(root)"
            lines.append(f"{path}: {loc}: {err['msg'].removeprefix('Value error, ')}")
        raise ValueError("\n".join(lines)) from exc


def read_domains(path: str | Path, limit: int | None = None) -> list[str]:
    """The domains of a JSONL file of `{"domain": ...}` rows (ASTRA's domain lists), first `limit` only.

    Raises:
        ValueError: naming the line that is not such a row.
    """
    path = Path(path)
    domains: list[str] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{number}: invalid JSON: {exc.msg}") from exc
        domain = row.get("domain") if isinstance(row, dict) else None
        if not isinstance(domain, str) or not domain.strip():
            raise ValueError(f'{path}:{number}: expected a row {{"domain": "..."}}')
        if domain not in domains:
            domains.append(domain.strip())
        if limit is not None and len(domains) >= limit:
            break
    return domains


def _files(path: Path) -> list[Path]:
    if path.is_dir():  # a folder holds worlds; a domain list is named as a file (a folder of proposals keeps its log)
        return sorted(p for p in path.iterdir() if p.is_file() and p.suffix in _SQLITE | _WORLD_FILES)
    if not path.exists():
        raise ValueError(f"{path}: no such file or directory")
    return [path]


def read_sources(paths: list[Path], *, row_cap: int = 40, limit: int | None = None) -> WorldSources:
    """Sort `paths` into worlds (SQLite and world files) and domains (JSONL domain lists).

    Raises:
        ValueError: naming the file and field of the first bad input.
    """
    sources = WorldSources()
    for path in paths:
        for file in _files(path):
            if file.suffix in _SQLITE:
                read = world_from_sqlite(file, row_cap=row_cap)
                sources.worlds.append(read.world)
                if read.skipped:
                    sources.skipped_tables[str(file)] = read.skipped
            elif file.suffix in _WORLD_FILES:
                sources.worlds.append(load_world_file(file))
            elif file.suffix == ".jsonl":
                sources.domains += [d for d in read_domains(file, limit) if d not in sources.domains]
            else:
                raise ValueError(f"{file}: not a world source (a .sqlite/.db file, a .json/.yaml world file, or a .jsonl domain list)")
    return sources
