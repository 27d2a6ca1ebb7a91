"""Tools compiled from a world by code: five kinds, each a thin function over the runtime.

- `lookup`: `get_<entity>(<entity>)` by key or by name, every field of the row;
- `search`: `search_<entities>(<field>=...)` by non-key fields, the matching keys and names;
- `follow`: `list_<children>_by_<ref>(<parent>)`, the rows whose foreign key holds a parent;
- `compute`: `compute_<derived>(<entity>[, <argument>])`, a derived quantity from the rows;
- `vocabulary`: `list_<vocabulary>()`, an enum's values.

Descriptions come from the labels, in the environment's language. `environment_code` writes
the tools an environment exposes, with the rows they read, as one standard-library module.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from mcp_servers import ToolSpec, canonical_json
from synth.world._schema import Entity, FieldSpec, World, label_text

__all__ = ["ToolKind", "WorldTool", "compile_tools", "environment_code", "field_meta", "plural_name", "ref_short"]

ToolKind = Literal["lookup", "search", "follow", "compute", "vocabulary"]
_SEARCHABLE = frozenset({"name", "enum", "code", "date", "time", "integer"})
_RUNTIME = (Path(__file__).parent / "_runtime.py").read_text(encoding="utf-8")


def plural_name(name: str) -> str:
    """An English identifier's plural: 'category' -> 'categories', 'box' -> 'boxes', 'order' -> 'orders'."""
    if name.endswith("y") and name[-2:-1] not in tuple("aeiou"):
        return name[:-1] + "ies"
    if name.endswith(("s", "x", "z", "ch", "sh")):
        return name + "es"
    return name + "s"


def _plural_label(entity: Entity, language: str) -> str:
    if entity.plural is not None:
        return label_text(entity.plural, language)
    label = label_text(entity.label, language)
    return label if language == "zh" else plural_name(label.replace(" ", "_")).replace("_", " ")


def ref_short(field: FieldSpec) -> str:
    for suffix in ("_id", "_code", "_key", "_ref"):
        if field.name.endswith(suffix) and len(field.name) > len(suffix):
            return field.name[: -len(suffix)]
    return field.name


@dataclass(frozen=True, kw_only=True)
class WorldTool:
    """One compiled tool: its MCP spec, its kind, the function's source and the entities it reads."""

    spec: ToolSpec
    kind: ToolKind
    entity: str
    source: str
    reads: frozenset[str] = field(default_factory=frozenset)
    parameter: str | None = None
    """The parameter naming a row (lookup, follow, compute) — where a handle or a found key goes."""


class _Compiler:
    def __init__(self, world: World, language: str) -> None:
        self.world, self.lang = world, language
        self.zh = language == "zh"

    def label(self, value: Any) -> str:
        return label_text(value, self.lang)

    def names_row(self, entity: Entity) -> str:
        key = entity.field(entity.key)
        title = entity.title_field
        key_label = self.label(key.label) if key else "id"
        if title is None:
            return f"{self.label(entity.label)}的{key_label}" if self.zh else f"The {self.label(entity.label)}'s {key_label}."
        if self.zh:
            return f"{self.label(entity.label)}的{key_label}或{self.label(title.label)}"
        return f"The {self.label(entity.label)}'s {key_label} or {self.label(title.label)}."

    def fields_text(self, entity: Entity) -> str:
        labels = [self.label(f.label) for f in entity.fields if f.name != entity.key]
        return "、".join(labels) if self.zh else ", ".join(labels)

    def lookup(self, entity: Entity) -> WorldTool:
        name, label = entity.name, self.label(entity.label)
        if self.zh:
            doc = f"按编号{'或名称' if entity.title_field else ''}查询一个{label}：{self.fields_text(entity)}。"
        else:
            by = " or name" if entity.title_field else ""
            doc = f"Look up a {label} by its id{by}: {self.fields_text(entity)}."
        schema = {"type": "object", "properties": {name: {"type": "string", "description": self.names_row(entity)}}, "required": [name]}
        source = f"def get_{name}({name}: str) -> dict:\n    return _lookup({name!r}, {name})\n"
        return WorldTool(spec=ToolSpec(name=f"get_{name}", description=doc, input_schema=schema), kind="lookup", entity=name,
                         source=source, reads=frozenset({name}), parameter=name)  # fmt: skip

    def search(self, entity: Entity) -> WorldTool | None:
        fields = [f for f in entity.fields if f.type in _SEARCHABLE and f.name not in {entity.key}]
        if not fields:
            return None
        plural = plural_name(entity.name)
        labels = [self.label(f.label) for f in fields]
        if self.zh:
            doc = f"筛选{'、'.join(labels)}等于给定值的全部{_plural_label(entity, self.lang)}，返回匹配的数量和编号。"
        else:
            doc = f"Find every {self.label(entity.label)} whose {' or '.join(labels)} equals the value given (a filter); returns how many match and their ids."
        props = {f.name: {"type": "integer" if f.type == "integer" else "string", "description": self.label(f.label)} for f in fields}
        params = ", ".join(f"{f.name}: {'int' if f.type == 'integer' else 'str'} | None = None" for f in fields)
        filters = ", ".join(f"{f.name!r}: {f.name}" for f in fields)
        source = f"def search_{plural}({params}) -> dict:\n    return _search({entity.name!r}, {{{filters}}})\n"
        spec = ToolSpec(name=f"search_{plural}", description=doc, input_schema={"type": "object", "properties": props})
        return WorldTool(spec=spec, kind="search", entity=entity.name, source=source, reads=frozenset({entity.name}))

    def follow(self, child: Entity, via: FieldSpec, parent: Entity) -> WorldTool:
        plural = plural_name(child.name)
        tool = f"list_{plural}_by_{ref_short(via)}"
        if self.zh:
            doc = f"列出{self.label(via.label)}为给定{self.label(parent.label)}的{_plural_label(child, self.lang)}（编号和名称）。"
        else:
            doc = f"List the {_plural_label(child, self.lang)} whose {self.label(via.label)} is the given {self.label(parent.label)}: their ids and names."
        schema = {"type": "object", "properties": {parent.name: {"type": "string", "description": self.names_row(parent)}}, "required": [parent.name]}
        source = f"def {tool}({parent.name}: str) -> dict:\n    return _children({child.name!r}, {via.name!r}, {parent.name!r}, {parent.name})\n"
        return WorldTool(spec=ToolSpec(name=tool, description=doc, input_schema=schema), kind="follow", entity=parent.name,
                         source=source, reads=frozenset({child.name, parent.name}), parameter=parent.name)  # fmt: skip

    def compute(self, index: int) -> WorldTool:
        d = self.world.derived[index]
        entity = self.world.entity(d.entity)
        assert entity is not None
        props: dict[str, Any] = {entity.name: {"type": "string", "description": self.names_row(entity)}}
        required = [entity.name]
        params = f"{entity.name}: str"
        call = f"_compute({d.name!r}, {entity.name})"
        what = self.label(d.label)
        if self.zh:
            doc = f"计算一个{self.label(entity.label)}的{what}。"
        else:
            doc = f"Compute the {what} of a {self.label(entity.label)}."
        if d.kind == "product" and d.argument:
            arg_label = self.label(d.argument_label or d.argument)
            props[d.argument] = {"type": "integer", "minimum": 1, "description": arg_label}
            required.append(d.argument)
            params += f", {d.argument}: int"
            call = f"_compute({d.name!r}, {entity.name}, {d.argument})"
            doc = f"计算一个{self.label(entity.label)}按{arg_label}数的{what}。" if self.zh else f"Compute the {what} of a {self.label(entity.label)} for a number of {arg_label}."
        reads = {entity.name} | ({d.child} if d.child else set())
        source = f"def compute_{d.name}({params}) -> dict:\n    return {call}\n"
        spec = ToolSpec(name=f"compute_{d.name}", description=doc, input_schema={"type": "object", "properties": props, "required": required})
        return WorldTool(spec=spec, kind="compute", entity=entity.name, source=source, reads=frozenset(reads), parameter=entity.name)

    def vocabulary(self, name: str, field: FieldSpec) -> WorldTool:
        label = self.label(field.label)
        doc = f"列出{label}的全部可选值。" if self.zh else f"List every possible {label}."
        source = f"def list_{name}() -> dict:\n    return _vocabulary({name!r})\n"
        spec = ToolSpec(name=f"list_{name}", description=doc, input_schema={"type": "object", "properties": {}})
        return WorldTool(spec=spec, kind="vocabulary", entity=name, source=source)


def compile_tools(world: World, language: str) -> list[WorldTool]:
    """Every tool of `world`, described in `language`, in a stable order (names unique)."""
    c = _Compiler(world, language)
    tools: list[WorldTool] = []
    for entity in world.entities:
        tools.append(c.lookup(entity))
        if (search := c.search(entity)) is not None:
            tools.append(search)
    for child, via, parent in world.relations:
        tools.append(c.follow(child, via, parent))
    tools += [c.compute(i) for i in range(len(world.derived))]
    seen_vocab: set[str] = set()
    for entity in world.entities:
        for f in entity.fields:
            if f.type == "enum" and f.vocabulary and f.vocabulary not in seen_vocab:
                seen_vocab.add(f.vocabulary)
                tools.append(c.vocabulary(f.vocabulary, f))
    unique: dict[str, WorldTool] = {}
    for tool in tools:
        unique.setdefault(tool.spec.name, tool)
    return list(unique.values())


def _table(world: World, entity: Entity, language: str, tools: list[WorldTool]) -> dict[str, Any]:
    search = next((t.spec.name for t in tools if t.kind == "search" and t.entity == entity.name), None)
    fields = {f.name: field_meta(f, language) for f in entity.fields}
    title = entity.title_field
    return {
        "key": entity.key,
        "title": title.name if title else None,
        "label": label_text(entity.label, language),
        "plural": _plural_label(entity, language),
        "plural_key": plural_name(entity.name),
        "search_tool": search,
        "fields": fields,
        "rows": entity.rows or [],
    }


def field_meta(field: FieldSpec, language: str) -> dict[str, Any]:
    """A field as the runtime reads it: type, label and unit in `language`, currency, vocabulary, ref."""
    meta: dict[str, Any] = {"type": field.type, "label": label_text(field.label, language)}
    if field.unit is not None:
        meta["unit"] = label_text(field.unit, language)
    for attr in ("currency", "vocabulary", "ref"):
        if getattr(field, attr) is not None:
            meta[attr] = getattr(field, attr)
    return meta


def environment_code(world: World, language: str, tools: list[WorldTool]) -> str:
    """The `tools.py` of an environment exposing `tools`: the runtime, the rows they read, the tools."""
    reads = sorted(set().union(*(t.reads for t in tools)))
    derived = {}
    for d in world.derived:
        if f"compute_{d.name}" in {t.spec.name for t in tools}:
            spec = d.model_dump(exclude_none=True, include={"kind", "entity", "field", "field_to", "child", "via", "argument"})
            spec["unit"] = label_text(d.unit, language) if d.unit is not None else ""
            derived[d.name] = spec
    vocabularies = sorted({f.vocabulary for name in reads for f in world.entity(name).fields if f.vocabulary})  # type: ignore[union-attr]
    vocabularies += [t.entity for t in tools if t.kind == "vocabulary" and t.entity not in vocabularies]
    data = {
        "lang": language,
        "entities": {name: _table(world, world.entity(name), language, tools) for name in reads},  # type: ignore[arg-type]
        "derived": derived,
        "vocabularies": {v: world.vocabularies.get(v, []) for v in sorted(set(vocabularies))},
    }
    literal = json.dumps(canonical_json(data), ensure_ascii=False)
    header = f'"""Tools over the {world.name} world ({world.domain}): compiled from its schema and rows."""\n\n'
    body = _RUNTIME.split('"""', 2)[2].lstrip("\n")
    wrappers = "\n\n".join(t.source for t in tools)
    return f"{header}import json\n{body}\nDATA = json.loads({literal})\n\n\n{wrappers}"
