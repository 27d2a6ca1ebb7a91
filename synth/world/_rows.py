"""Rows from code: a world's schema and seed give the same rows every time.

Names, addresses, phones and companies come from Faker in the world's first language
(`en_US` or `zh_CN`); enum and name values from the world's vocabularies; numbers from the
declared ranges; references from the keys of the rows they point at (parents are filled
first). Nothing here asks a model for a value.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from typing import Any

from faker import Faker

from synth.world._schema import Entity, FieldSpec, World

__all__ = ["fill_rows", "key_prefix"]

_LOCALES = {"en": "en_US", "zh": "zh_CN"}
_FAKER_BY_FIELD = (
    (re.compile(r"phone|mobile|tel|电话|手机"), "phone_number"),
    (re.compile(r"email|邮箱|邮件"), "email"),
    (re.compile(r"address|street|地址"), "street_address"),
    (re.compile(r"city|town|城市"), "city"),
    (re.compile(r"company|vendor|supplier|manufacturer|brand|airline|carrier"), "company"),
)
_DEFAULT_RANGE = {"integer": (1, 500), "money": (5, 900), "quantity": (1, 100), "duration": (10, 240)}


def key_prefix(entity: Entity) -> str:
    """The letters an entity's generated keys start with: 'customer' -> 'CUS', 'room_type' -> 'RT'."""
    parts = entity.name.split("_")
    letters = "".join(p[0] for p in parts) if len(parts) > 1 else entity.name[:3]
    return letters.upper()


def _order(world: World) -> list[Entity]:
    """Entities with the ones they point at first (a cycle is filled in declaration order)."""
    done: list[str] = []
    pending = [e.name for e in world.entities]
    while pending:
        ready = [n for n in pending if all(f.ref in done or f.ref == n for f in world.entity(n).fields if f.ref)]  # type: ignore[union-attr]
        pick = ready[0] if ready else pending[0]
        done.append(pick)
        pending.remove(pick)
    return [world.entity(n) for n in done]  # type: ignore[misc]


def _faker_kind(field: FieldSpec) -> str | None:
    """The Faker provider a field's name or label asks for ('phone', '手机号' -> phone_number), if any."""
    text = f"{field.name} {' '.join(field.label.values()) if isinstance(field.label, dict) else field.label}"
    return next((provider for pattern, provider in _FAKER_BY_FIELD if pattern.search(text)), None)


def _faker_provider(field: FieldSpec) -> str:
    return field.faker or _faker_kind(field) or "name"


def _fake(fake: Faker, provider: str) -> str:
    method = getattr(fake, provider, None)
    if not callable(method):
        raise ValueError(f"Faker has no provider {provider!r}")
    return str(method())


def _number(rng: random.Random, field: FieldSpec) -> float:
    low, high = _DEFAULT_RANGE.get(field.type, (1, 100))
    low = field.min if field.min is not None else low
    high = field.max if field.max is not None else high
    if field.type == "money":
        return round(rng.uniform(low, high), 2)
    if field.type == "quantity" and high - low < 20:
        return round(rng.uniform(low, high), 1)
    return float(rng.randint(int(low), int(high)))


_BIRTH = re.compile(r"birth|born|生日|出生")


def _date(rng: random.Random, field: FieldSpec) -> str:
    labels = " ".join(field.label.values()) if isinstance(field.label, dict) else field.label
    born = _BIRTH.search(f"{field.name} {labels}")  # a birth date is decades back, not next year
    start = dt.date(int(field.min) if field.min else 1950 if born else 2025, 1, 1)
    end = dt.date(int(field.max) if field.max else 2006 if born else 2026, 12, 31)
    return (start + dt.timedelta(days=rng.randint(0, (end - start).days))).isoformat()


class _Filler:
    def __init__(self, world: World) -> None:
        self.world = world
        self.rng = random.Random(world.seed)
        self.fake = Faker(_LOCALES[world.languages[0]])
        self.fake.seed_instance(world.seed)
        self.keys: dict[str, list[str]] = {}

    def rows(self, entity: Entity) -> list[dict[str, Any]]:
        count = entity.row_count
        for f in entity.fields:
            if f.type == "name" and f.unique and f.vocabulary:
                count = min(count, len(self.world.vocabularies[f.vocabulary]))
        self.columns: dict[str, list[Any]] = {}
        for f in sorted(entity.fields, key=lambda f: f.after is not None):
            self.columns[f.name] = self.column(entity, f, count)
        columns = {f.name: self.columns[f.name] for f in entity.fields}
        rows = [{name: values[i] for name, values in columns.items()} for i in range(count)]
        self.keys[entity.name] = [str(r[entity.key]) for r in rows]
        return rows

    def column(self, entity: Entity, field: FieldSpec, count: int) -> list[Any]:
        rng = self.rng
        if field.type in {"id", "code"} and (field.name == entity.key or field.unique):
            prefix = key_prefix(entity) if field.type == "id" else "".join(rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(2))
            start = rng.randint(100, 899) * 10
            return [f"{prefix}-{start + i}" for i in range(count)]
        if field.type == "ref":
            keys = self.keys.get(field.ref or "") or [f"{field.ref}-{i}" for i in range(count)]
            return [rng.choice(keys) for _ in range(count)]
        if field.vocabulary:
            values = list(self.world.vocabularies[field.vocabulary])
            if field.unique:
                rng.shuffle(values)
                return values[:count]
            return [rng.choice(values) for _ in range(count)]
        if field.type in {"name", "text", "code"}:
            provider = field.faker or (_faker_provider(field) if field.type != "code" or _faker_kind(field) else "bothify")
            return self.unique_fakes(provider, count, field.unique)
        if field.type in {"integer", "duration"}:
            return [int(_number(rng, field)) for _ in range(count)]
        if field.type in {"money", "quantity"}:
            return [_number(rng, field) for _ in range(count)]
        if field.type == "date" and field.after:
            starts = self.columns[field.after]
            span = int(field.max) if field.max and field.max < 1000 else 21
            return [(dt.date.fromisoformat(s) + dt.timedelta(days=rng.randint(1, span))).isoformat() for s in starts]
        if field.type == "date":
            return [_date(rng, field) for _ in range(count)]
        if field.type == "time":
            return [f"{rng.randint(6, 22):02d}:{rng.choice((0, 10, 15, 20, 30, 40, 45, 50)):02d}" for _ in range(count)]
        return [_fake(self.fake, "name") for _ in range(count)]

    def unique_fakes(self, provider: str, count: int, unique: bool) -> list[str]:
        if provider == "bothify":
            make = lambda: self.fake.bothify("??-####").upper()
        else:
            make = lambda: _fake(self.fake, provider)
        out: list[str] = []
        seen: set[str] = set()
        for _ in range(count * 20):
            value = make()
            if unique and value in seen:
                continue
            seen.add(value)
            out.append(value)
            if len(out) == count:
                return out
        raise ValueError(f"Faker's {provider!r} gave fewer than {count} distinct values")


def fill_rows(world: World) -> World:
    """`world` with rows for every entity that has none, made from `world.seed` alone.

    Raises:
        ValueError: when a field names a Faker provider that does not exist.
    """
    filler = _Filler(world)
    filled: dict[str, list[dict[str, Any]]] = {}
    for entity in _order(world):
        if entity.rows is not None:
            filler.keys[entity.name] = [str(r[entity.key]) for r in entity.rows]
            continue
        filled[entity.name] = filler.rows(entity)
    entities = [e.model_copy(update={"rows": filled[e.name]}) if e.name in filled else e for e in world.entities]
    return World.model_validate({**world.model_dump(), "entities": [e.model_dump() for e in entities]})
