"""The tool runtime of a world environment: standard library only, deterministic.

This module's source is the first half of every world environment's `tools.py` (the sandbox
worker runs a module's text with nothing mounted, so the world's rows travel in the code as
`DATA`, and the id covers them). Each tool is a thin function that calls one of the five
kinds below: `_lookup` (by key or name), `_search` (by non-key fields), `_children` (follow a
relation back), `_compute` (a derived quantity) and `_vocabulary` (list a value list). A bad
argument gets an `{"error": ...}` a model can act on: what was not found, and how to find it.
"""

import datetime
import unicodedata

DATA: dict = {}
_MAX_RESULTS = 10
_TEXT = {
    "en": {
        "missing": "no {label} {value!r}",
        "find_with": "find {plural} with {tool}",
        "key_like": "{label} ids look like {example}",
        "ambiguous": "{count} {plural} are named {value!r} ({keys}); call {tool} with one of these ids",
        "not_a_value": "no {label} is {value!r}; {label} values are: {values}",
        "no_filter": "give at least one of: {names}",
        "not_number": "{name} must be a number, not {value!r}",
        "more": "{shown} of {count} shown; narrow the search",
        "then": "; ",
    },
    "zh": {
        "missing": "没有{label}“{value}”",
        "find_with": "可用 {tool} 查找{plural}",
        "key_like": "{label}编号形如 {example}",
        "ambiguous": "有{count}个{plural}名为“{value}”（{keys}）；请用其中一个编号调用 {tool}",
        "not_a_value": "{label}没有“{value}”这一项；可选值：{values}",
        "no_filter": "请至少提供以下之一：{names}",
        "not_number": "{name} 必须是数字，而不是“{value}”",
        "more": "共{count}条，显示{shown}条；请缩小查询范围",
        "then": "；",
    },
}


def _say(kind, **values):
    return _TEXT[DATA.get("lang", "en")][kind].format(**values)


def _norm(value):
    return " ".join(unicodedata.normalize("NFKC", str(value)).casefold().split())


def _number_text(number):
    number = float(number)
    return str(int(number)) if number == int(number) else f"{number:.2f}".rstrip("0").rstrip(".")


def _with_unit(number, unit):
    # Chinese writes a measure word against the number ("4座"); Latin units take a space, and one of a kind is singular.
    if "\u4e00" <= unit[0] <= "\u9fff":
        return f"{number}{unit}"
    if number == "1" and unit.endswith("s") and " " not in unit:
        unit = unit[:-3] + "y" if unit.endswith("ies") else unit[:-1]
    return f"{number} {unit}"


def show(field, value):
    """A stored value as a user reads it: 'USD 48.90', '12.5 kg', '3 stars'."""
    if value is None:
        return None
    kind = field["type"]
    if kind == "money":
        return f"{field.get('currency') or 'USD'} {float(value):.2f}"
    if kind in ("quantity", "duration", "integer") and field.get("unit"):
        return _with_unit(_number_text(value), field["unit"])
    if kind in ("quantity", "duration", "integer"):
        return _number_text(value)
    return str(value)


def _record(entity, row):
    fields = DATA["entities"][entity]["fields"]
    return {name: show(fields[name], row.get(name)) for name in fields}


def _brief(entity, row):
    table = DATA["entities"][entity]
    out = {"id": row[table["key"]]}
    if table.get("title"):
        out["name"] = row[table["title"]]
    return out


def _find(entity, value):
    """The row `value` names (its key, or its name): (row, None) or (None, error)."""
    table = DATA["entities"][entity]
    wanted = _norm(value)
    for row in table["rows"]:
        if _norm(row[table["key"]]) == wanted:
            return row, None
    if table.get("title"):
        named = [r for r in table["rows"] if _norm(r[table["title"]]) == wanted]
        if len(named) == 1:
            return named[0], None
        if named:
            keys = ", ".join(str(r[table["key"]]) for r in named)
            return None, _say("ambiguous", count=len(named), plural=table["plural"], value=value, keys=keys, tool=f"get_{entity}")
    hints = [_say("missing", label=table["label"], value=value)]
    search = table.get("search_tool")
    if search:
        hints.append(_say("find_with", plural=table["plural"], tool=search))
    else:
        hints.append(_say("key_like", label=table["label"], example=table["rows"][0][table["key"]]))
    return None, _say("then").join(hints)


def _lookup(entity, value):
    row, error = _find(entity, value)
    if error:
        return {"error": error}
    return _record(entity, row)


def _listing(entity, rows):
    plural_key = DATA["entities"][entity]["plural_key"]
    out = {"count": len(rows), plural_key: [_brief(entity, r) for r in rows[:_MAX_RESULTS]]}
    if len(rows) > _MAX_RESULTS:
        out["note"] = _say("more", shown=_MAX_RESULTS, count=len(rows))
    return out


def _matches(field, stored, wanted):
    if field["type"] in ("integer", "money", "quantity", "duration"):
        try:
            return float(stored) == float(wanted)
        except (TypeError, ValueError):
            return False
    return _norm(stored) == _norm(wanted)


def _search(entity, filters):
    table = DATA["entities"][entity]
    given = {name: value for name, value in filters.items() if value not in (None, "")}
    if not given:
        return {"error": _say("no_filter", names=", ".join(sorted(filters)))}
    for name, value in given.items():
        field = table["fields"][name]
        vocabulary = DATA["vocabularies"].get(field.get("vocabulary") or "")
        if vocabulary and field["type"] == "enum" and _norm(value) not in {_norm(v) for v in vocabulary}:
            return {"error": _say("not_a_value", label=field["label"], value=value, values=", ".join(vocabulary))}
    rows = [r for r in table["rows"] if all(_matches(table["fields"][n], r.get(n), v) for n, v in given.items())]
    return _listing(entity, rows)


def _children(child, via, parent, value):
    row, error = _find(parent, value)
    if error:
        return {"error": error}
    key = row[DATA["entities"][parent]["key"]]
    rows = [r for r in DATA["entities"][child]["rows"] if r.get(via) == key]
    return {DATA["entities"][parent]["key"]: key, **_listing(child, rows)}


def _days(start, end):
    return (datetime.date.fromisoformat(str(end)) - datetime.date.fromisoformat(str(start))).days


def _compute(name, value, argument=None):
    spec = DATA["derived"][name]
    entity = spec["entity"]
    row, error = _find(entity, value)
    if error:
        return {"error": error}
    fields = DATA["entities"][entity]["fields"]
    key = row[DATA["entities"][entity]["key"]]
    if spec["kind"] == "product":
        try:
            times = float(argument)
        except (TypeError, ValueError):
            return {"error": _say("not_number", name=spec["argument"], value=argument)}
        result = show(fields[spec["field"]], float(row[spec["field"]]) * times)
    elif spec["kind"] == "days_between":
        result = _with_unit(str(_days(row[spec["field"]], row[spec["field_to"]])), spec["unit"])
    else:
        rows = [r for r in DATA["entities"][spec["child"]]["rows"] if r.get(spec["via"]) == key]
        if spec["kind"] == "count":
            result = _with_unit(str(len(rows)), spec["unit"])
        else:
            child_field = DATA["entities"][spec["child"]]["fields"][spec["field"]]
            result = show(child_field, sum(float(r[spec["field"]] or 0) for r in rows))
    out = {DATA["entities"][entity]["key"]: key, name: result}
    if spec["kind"] == "product":
        out[spec["argument"]] = argument
    return out


def _vocabulary(name):
    return {name: list(DATA["vocabularies"][name])}
