"""The world model: a small relational database with a typed schema.

A `World` is entities (tables) with a key and typed fields, foreign keys between them
(fields of type `ref`), derived quantities computed from rows, and vocabularies (the value
lists of enums and names). Its rows may be given (a SQLite file) or filled by code from a
seed (`synth.world.fill_rows`). Every invariant is checked at construction, and an error
names the field path, so a world a model proposed can be sent back with what is wrong.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

__all__ = [
    "ANSWER_TYPES",
    "Derived",
    "Entity",
    "FieldSpec",
    "FieldType",
    "Label",
    "Language",
    "World",
    "label_text",
]

Language = Literal["en", "zh"]
FieldType = Literal["id", "code", "name", "enum", "integer", "money", "date", "time", "duration", "quantity", "text", "ref"]
ANSWER_TYPES: frozenset[str] = frozenset({"code", "name", "enum", "integer", "money", "date", "time", "duration", "quantity"})
"""Field types a task may ask for: free text is no value a user checks, and ids are found on the way."""

Identifier = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]{0,39}$")]
Label = str | dict[str, str]
"""A display label: one string in the world's first language, or one per language (`{"en": ..., "zh": ...}`)."""

_CJK = re.compile(r"[\u4e00-\u9fff]")
_NUMERIC_UNIT = re.compile(r"^[A-Za-z%°/²³.]{1,4}$")
"""Symbols ('kg', 'km/h', '%') read the same in every language; words ('seats') are labels."""


def _repeated(names: list[str]) -> list[str]:
    return sorted({n for n in names if names.count(n) > 1})


def label_text(label: Label, language: str) -> str:
    """The text of `label` in `language` (a plain string serves every language)."""
    if isinstance(label, str):
        return label
    return label.get(language) or next(iter(label.values()))


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FieldSpec(_Model):
    """One typed column of an entity."""

    name: Identifier = Field(description="Column name: lower snake case, a Python identifier.")
    label: Label = Field(description="What a user calls it ('check-in date', '入住日期').")
    type: FieldType = Field(description="id | code | name | enum | integer | money | date | time | duration | quantity | text | ref.")
    ref: Identifier | None = Field(default=None, description="For `ref`: the entity whose key this field holds (a foreign key).")
    vocabulary: Identifier | None = Field(default=None, description="For `enum` and `name`: the vocabulary the values come from.")
    faker: str | None = Field(default=None, description="For `name`, `code` and `text`: a Faker provider ('name', 'company', 'city', 'phone_number').")
    unit: Label | None = Field(default=None, description="For `quantity`, `duration` and `integer`: the unit written after the number ('kg', 'min', 'stars').")
    currency: str | None = Field(default=None, description="For `money`: the ISO code written before the amount ('USD', 'CNY').")
    min: float | None = Field(default=None, description="Smallest generated number (numbers) or year (dates).")
    max: float | None = Field(default=None, description="Largest generated number (numbers) or year (dates).")
    unique: bool = Field(default=False, description="Whether no two rows share the value (keys and names usually).")
    after: Identifier | None = Field(default=None, description="For `date`: a date field of the same entity this one follows by 1 to `max` (default 21) days.")

    @model_validator(mode="after")
    def _typed(self) -> FieldSpec:
        if self.type == "ref" and self.ref is None:
            raise ValueError(f"field {self.name!r} is a ref but names no entity in 'ref'")
        if self.type != "ref" and self.ref is not None:
            raise ValueError(f"field {self.name!r} has 'ref' but its type is {self.type!r}, not 'ref'")
        if self.type == "enum" and self.vocabulary is None:
            raise ValueError(f"field {self.name!r} is an enum but names no 'vocabulary'")
        if self.after is not None and self.type != "date":
            raise ValueError(f"field {self.name!r} has 'after' but is not a date")
        if self.type == "date" and any(y is not None and not 1900 <= y <= 2100 for y in (self.min, self.max)) and self.after is None:
            raise ValueError(f"field {self.name!r}: a date's min and max are years between 1900 and 2100, not {self.min} and {self.max}")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"field {self.name!r}: min {self.min} is above max {self.max}")
        return self


class Entity(_Model):
    """A table: a key, typed fields and (once filled) rows."""

    name: Identifier = Field(description="Singular, lower snake case: 'customer', 'booking'.")
    label: Label = Field(description="What a user calls one ('customer', '客户').")
    plural: Label | None = Field(default=None, description="Plural label (default: the label with an 's' in English).")
    key: Identifier = Field(description="The field that identifies a row (type id or code).")
    title: Identifier | None = Field(default=None, description="The field a user names a row by (default: the first unique name field).")
    fields: list[FieldSpec] = Field(min_length=1)
    rows: list[dict[str, Any]] | None = Field(default=None, description="The rows, when given (else filled from the seed).")
    row_count: int = Field(default=24, ge=2, le=500, description="How many rows code fills when none are given.")

    def field(self, name: str) -> FieldSpec | None:
        """The field called `name`, or None."""
        return next((f for f in self.fields if f.name == name), None)

    @property
    def title_field(self) -> FieldSpec | None:
        """The field rows are named by: `title`, else the first unique name field."""
        if self.title is not None:
            return self.field(self.title)
        return next((f for f in self.fields if f.type == "name" and f.unique), None)

    @model_validator(mode="after")
    def _keyed(self) -> Entity:
        names = [f.name for f in self.fields]
        if dupes := _repeated(names):
            raise ValueError(f"entity {self.name!r}: duplicate field names {dupes}")
        key = self.field(self.key)
        if key is None:
            raise ValueError(f"entity {self.name!r}: key {self.key!r} is not one of its fields {names}")
        if key.type not in {"id", "code"}:
            raise ValueError(f"entity {self.name!r}: key {self.key!r} must be of type id or code, not {key.type!r}")
        for f in self.fields:
            before = self.field(f.after) if f.after else None
            if f.after is not None and (before is None or before.type != "date" or before.after is not None):
                raise ValueError(f"entity {self.name!r}: field {f.name!r} follows {f.after!r}, which is not a date field of its own")
        if self.title is not None and self.field(self.title) is None:
            raise ValueError(f"entity {self.name!r}: title {self.title!r} is not one of its fields {names}")
        for i, row in enumerate(self.rows or []):
            unknown = sorted(set(row) - set(names))
            if unknown:
                raise ValueError(f"entity {self.name!r}: rows[{i}] has unknown columns {unknown}")
            if row.get(self.key) in (None, ""):
                raise ValueError(f"entity {self.name!r}: rows[{i}] has no key {self.key!r}")
        if self.rows is not None:
            keys = [str(r[self.key]) for r in self.rows]
            if len(set(keys)) != len(keys):
                raise ValueError(f"entity {self.name!r}: rows repeat a key")
        return self


class Derived(_Model):
    """A quantity computed from rows: a tool computes it, so a task can ask for it.

    Kinds: `product` (a numeric field times an argument: price x days), `count` (rows of `child`
    whose `via` field holds this row's key), `sum` (of `field` over those rows), `days_between`
    (from `field` to `field_to`, two date fields of one row).
    """

    name: Identifier = Field(description="Lower snake case: 'rental_cost'. The tool is compute_<name>.")
    label: Label = Field(description="What a user asks for ('rental cost', '租金').")
    kind: Literal["product", "count", "sum", "days_between"]
    entity: Identifier = Field(description="The entity whose row the quantity is about.")
    field: Identifier | None = Field(default=None, description="product: the numeric field of `entity`; sum: the numeric field of `child`; days_between: the start date.")
    field_to: Identifier | None = Field(default=None, description="days_between: the end date field of `entity`.")
    child: Identifier | None = Field(default=None, description="count and sum: the entity whose rows are counted or summed.")
    via: Identifier | None = Field(default=None, description="count and sum: the ref field of `child` that holds `entity`'s key.")
    argument: Identifier | None = Field(default=None, description="product: the name of the number argument ('days').")
    argument_label: Label | None = Field(default=None, description="product: what the argument counts ('days', '天').")
    argument_max: int = Field(default=14, ge=2, le=1000, description="product: the largest argument a task uses.")
    unit: Label | None = Field(default=None, description="count and days_between: the unit written after the number ('orders', '天').")


class World(_Model):
    """A typed world: the source of every fact, tool and answer of its environments.

    Raises:
        pydantic.ValidationError: naming the field path when an invariant fails (a ref to an
            unknown entity, an enum without its vocabulary, a label missing a language, ...).
    """

    name: Identifier = Field(description="Lower snake case, unique within a corpus: 'car_rental'.")
    domain: str = Field(min_length=1, description="The domain in words ('Car rental', '在线预订').")
    languages: list[Language] = Field(default_factory=lambda: ["en"], min_length=1, description="Languages tasks are written in; every label covers each.")
    description: str = Field(default="", description="One sentence on what the world is.")
    seed: int = Field(default=0, description="Seed of the filled rows: the same seed gives the same rows.")
    entities: list[Entity] = Field(min_length=1)
    derived: list[Derived] = Field(default_factory=list)
    vocabularies: dict[Identifier, list[str]] = Field(default_factory=dict, description="Named value lists for enum and name fields.")

    def entity(self, name: str) -> Entity | None:
        """The entity called `name`, or None."""
        return next((e for e in self.entities if e.name == name), None)

    @property
    def relations(self) -> list[tuple[Entity, FieldSpec, Entity]]:
        """Every foreign key: (entity holding it, the ref field, the entity it points to)."""
        out = []
        for e in self.entities:
            for f in e.fields:
                target = self.entity(f.ref) if f.ref else None
                if target is not None:
                    out.append((e, f, target))
        return out

    @model_validator(mode="after")
    def _consistent(self) -> World:
        names = [e.name for e in self.entities]
        if dupes := _repeated(names):
            raise ValueError(f"duplicate entity names {dupes}")
        for i, e in enumerate(self.entities):
            for j, f in enumerate(e.fields):
                where = f"entities[{i}].fields[{j}] ({e.name}.{f.name})"
                if f.ref is not None and self.entity(f.ref) is None:
                    raise ValueError(f"{where}: ref {f.ref!r} is not an entity of this world {names}")
                if f.vocabulary is not None and f.vocabulary not in self.vocabularies:
                    raise ValueError(f"{where}: vocabulary {f.vocabulary!r} is not in 'vocabularies' {sorted(self.vocabularies)}: "
                                     f"add it with its values, or name one of those")
                if f.vocabulary is not None and not self.vocabularies[f.vocabulary] and e.rows is None:
                    raise ValueError(f"{where}: vocabulary {f.vocabulary!r} is empty")
        for i, d in enumerate(self.derived):
            self._check_derived(i, d)
        self._check_labels()
        return self

    def _check_derived(self, i: int, d: Derived) -> None:
        where = f"derived[{i}] ({d.name})"
        entity = self.entity(d.entity)
        if entity is None:
            raise ValueError(f"{where}: entity {d.entity!r} is not an entity of this world")
        numeric = {"integer", "money", "quantity", "duration"}
        if d.kind == "product":
            f = entity.field(d.field or "")
            if f is None or f.type not in numeric:
                raise ValueError(f"{where}: product needs 'field', a numeric field of {d.entity!r}")
            if d.argument is None:
                raise ValueError(f"{where}: product needs 'argument', the name of the number it multiplies by")
        elif d.kind in {"count", "sum"}:
            child = self.entity(d.child or "")
            via = child.field(d.via or "") if child else None
            if child is None or via is None or via.ref != d.entity:
                raise ValueError(f"{where}: {d.kind} needs 'child', an entity, and 'via', its ref field pointing at {d.entity!r}")
            if d.kind == "sum":
                f = child.field(d.field or "")
                if f is None or f.type not in numeric:
                    raise ValueError(f"{where}: sum needs 'field', a numeric field of {d.child!r}")
        else:
            for name in (d.field, d.field_to):
                f = entity.field(name or "")
                if f is None or f.type != "date":
                    raise ValueError(f"{where}: days_between needs 'field' and 'field_to', two date fields of {d.entity!r}")

    def _check_labels(self) -> None:
        labelled: list[tuple[str, Label | None]] = []
        for i, e in enumerate(self.entities):
            labelled += [(f"entities[{i}].label", e.label), (f"entities[{i}].plural", e.plural)]
            labelled += [(f"entities[{i}].fields[{j}].label", f.label) for j, f in enumerate(e.fields)]
            labelled += [(f"entities[{i}].fields[{j}].unit", f.unit) for j, f in enumerate(e.fields) if f.unit is not None and not _NUMERIC_UNIT.match(label_text(f.unit, "en"))]
        for i, d in enumerate(self.derived):
            labelled += [(f"derived[{i}].label", d.label), (f"derived[{i}].argument_label", d.argument_label), (f"derived[{i}].unit", d.unit)]
        for where, label in labelled:
            if label is None:
                continue
            for language in self.languages:
                if isinstance(label, dict) and language not in label and len(self.languages) > 1:
                    raise ValueError(f"{where}: no label in {language!r} (the world's languages are {self.languages})")
                text = label_text(label, language)
                if language == "zh" and not _CJK.search(text):
                    raise ValueError(f"{where}: {text!r} is not Chinese, but the world is written in Chinese")
                if language == "en" and _CJK.search(text):
                    raise ValueError(f"{where}: {text!r} is not English, but the world is written in English")
