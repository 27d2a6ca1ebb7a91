"""A user's SQLite file as a world: tables, keys, foreign keys and types read by introspection.

Labels come from the column names ("check_in_date" -> "check in date"); the rows are used as
they are, capped per table: evenly spaced rows in key order, then every row a kept row points
at, so foreign keys resolve. Types are read from the declared affinity and the values: ISO
dates and times, a text column with few distinct values is an enum (its values the vocabulary),
a unique text column names the rows. A table without a single-column primary key is skipped
and said so; numbers keep no invented unit or currency.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

from synth.world._schema import Entity, FieldSpec, World

__all__ = ["SqliteWorld", "world_from_sqlite"]

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TIME = re.compile(r"^\d{2}:\d{2}(:\d{2})?$")
_CODE_NAME = re.compile(r"(^|_)(id|code|iata|icao|ident|sku|iso|abbr|abbreviation)(_|$)", re.IGNORECASE)
_ENUM_MAX = 16


def _identifier(name: str) -> str:
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()
    snake = re.sub(r"[^a-z0-9_]+", "_", snake).strip("_") or "field"
    if not snake[0].isalpha():
        snake = "t_" + snake
    return snake[:40]


def _singular(name: str) -> str:
    if name.endswith("ies") and len(name) > 4:
        return name[:-3] + "y"
    if name.endswith(("ses", "xes", "ches", "shes")):
        return name[:-2]
    if name.endswith("s") and not name.endswith("ss") and len(name) > 3:
        return name[:-1]
    return name


def _label(name: str) -> str:
    return _identifier(name).replace("_", " ")


class SqliteWorld:
    """What introspection found: the world, and the tables it had to leave out (with why)."""

    def __init__(self, world: World, skipped: dict[str, str]) -> None:
        self.world = world
        self.skipped = skipped


def _field(column: str, declared: str, values: list[Any], *, is_key: bool, ref: str | None, title_taken: bool) -> FieldSpec:
    name, label = _identifier(column), _label(column)
    present = [v for v in values if v not in (None, "")]
    texts = [str(v) for v in present]
    if ref is not None:
        return FieldSpec(name=name, label=label, type="ref", ref=ref)
    if is_key:
        return FieldSpec(name=name, label=label, type="code" if texts and not all(t.isdigit() for t in texts) else "id", unique=True)
    affinity = declared.upper()
    if present and all(isinstance(v, int) for v in present) and ("INT" in affinity or not affinity):
        return FieldSpec(name=name, label=label, type="integer")
    if present and all(isinstance(v, int | float) for v in present):
        return FieldSpec(name=name, label=label, type="quantity")
    if texts and all(_DATE.match(t) for t in texts):
        return FieldSpec(name=name, label=label, type="date")
    if texts and all(_TIME.match(t) for t in texts):
        return FieldSpec(name=name, label=label, type="time")
    distinct = set(texts)
    unique = len(distinct) == len(texts) and len(texts) > 1
    if _CODE_NAME.search(column):
        return FieldSpec(name=name, label=label, type="code", unique=unique)
    if not unique and len(distinct) <= _ENUM_MAX and len(texts) >= 2 * len(distinct):
        return FieldSpec(name=name, label=label, type="enum", vocabulary=name)
    long_text = texts and sum(len(t) for t in texts) / len(texts) > 60
    return FieldSpec(name=name, label=label, type="text" if long_text else "name", unique=unique and not title_taken)


def _tables(db: sqlite3.Connection) -> list[str]:
    rows = db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").fetchall()
    return [r[0] for r in rows]


def _capped(db: sqlite3.Connection, table: str, key: str, cap: int) -> list[dict[str, Any]]:
    cursor = db.execute(f'SELECT * FROM "{table}" ORDER BY "{key}"')
    columns = [d[0] for d in cursor.description]
    rows = [dict(zip(columns, r, strict=True)) for r in cursor.fetchall()]
    step = max(1, len(rows) // cap)
    return rows[::step][:cap]


def world_from_sqlite(path: str | Path, *, name: str | None = None, row_cap: int = 40, domain: str | None = None) -> SqliteWorld:
    """Read the SQLite file at `path` as a world (English labels from the names).

    Raises:
        ValueError: naming the file when it is not a SQLite database or has no usable table.
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such file")
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        tables = _tables(db)
    except sqlite3.DatabaseError as exc:
        raise ValueError(f"{path}: not a SQLite database ({exc})") from exc
    skipped: dict[str, str] = {}
    keys: dict[str, str] = {}
    for table in tables:
        pk = [r[1] for r in db.execute(f'PRAGMA table_info("{table}")').fetchall() if r[5]]
        if len(pk) != 1:
            skipped[table] = "no single-column primary key" if not pk else f"a composite primary key {pk}"
            continue
        keys[table] = pk[0]
    fks: dict[str, dict[str, str]] = {t: {} for t in keys}
    for table in keys:
        for fk in db.execute(f'PRAGMA foreign_key_list("{table}")').fetchall():
            parent, column, target = fk[2], fk[3], fk[4]
            if parent in keys and (target in (None, keys[parent])):
                fks[table][column] = parent
    rows = {t: _capped(db, t, keys[t], row_cap) for t in keys}
    for _ in range(len(keys)):  # pull in every row a kept row points at
        grew = False
        for table, refs in fks.items():
            for column, parent in refs.items():
                have = {r[keys[parent]] for r in rows[parent]}
                wanted = sorted({r[column] for r in rows[table] if r.get(column) is not None} - have, key=str)
                for value in wanted:
                    found = db.execute(f'SELECT * FROM "{parent}" WHERE "{keys[parent]}" = ?', (value,))
                    columns = [d[0] for d in found.description]
                    rows[parent] += [dict(zip(columns, r, strict=True)) for r in found.fetchall()]
                    grew = True
        if not grew:
            break
    entities = []
    vocabularies: dict[str, list[str]] = {}
    for table in keys:
        info = db.execute(f'PRAGMA table_info("{table}")').fetchall()
        fields: list[FieldSpec] = []
        for _, column, declared, *_ in info:
            values = [r.get(column) for r in rows[table]]
            ref = _singular(_identifier(fks[table][column])) if column in fks[table] else None
            title_taken = any(f.type == "name" and f.unique for f in fields)
            f = _field(column, declared or "", values, is_key=column == keys[table], ref=ref, title_taken=title_taken)
            if f.type == "enum":
                vocabularies[f"{_singular(_identifier(table))}_{f.name}"] = sorted({str(v) for v in values if v not in (None, "")})
                f = f.model_copy(update={"vocabulary": f"{_singular(_identifier(table))}_{f.name}"})
            fields.append(f)
        renamed = {column: f.name for (_, column, *_), f in zip(info, fields, strict=True)}
        entity_rows = [{renamed[c]: (str(v) if isinstance(v, bytes) else v) for c, v in r.items()} for r in rows[table]]
        name_ = _singular(_identifier(table))
        entities.append(Entity(name=name_, label=_label(name_), key=renamed[keys[table]], fields=fields, rows=entity_rows))
    db.close()
    if not entities:
        raise ValueError(f"{path}: no table with a single-column primary key ({skipped})")
    world_name = _identifier(name or path.stem)
    world = World(name=world_name, domain=domain or _label(world_name), languages=["en"], entities=entities, vocabularies=vocabularies,
                  description=f"Read from the SQLite file {path.name}.")  # fmt: skip
    return SqliteWorld(world, skipped)
