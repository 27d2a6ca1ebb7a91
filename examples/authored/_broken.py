"""One broken environment per verify finding code (the tests expect exactly that code).

`BROKEN` maps a directory name (`<code>` or `<code>.<variant>`) to `(code, fields, raw)`;
`raw=True` environments violate an `EnvSpec` invariant, so they are written as plain
env.json files that bypass `Environment.build`.
"""

from __future__ import annotations

import copy
from typing import Any

_TABLE = '''
CAPITALS = {"France": "Paris", "Kenya": "Nairobi", "Peru": "Lima", "Japan": "Tokyo"}
'''

_GOOD = _TABLE + '''

def capital(country: str) -> str:
    """The capital city of a country."""
    city = CAPITALS.get(country)
    return f"The capital of {country} is {city}." if city else f"Unknown country {country!r}."
'''

_SCHEMA = {"type": "object", "properties": {"country": {"type": "string"}}, "required": ["country"]}
_TOOL = {"name": "capital", "description": "The capital city of a country.", "input_schema": _SCHEMA}


def _fields(answer: str = "Paris", arguments: Any = None, tools: list[dict[str, Any]] | None = None,
            limits: dict[str, Any] | None = None) -> dict[str, Any]:
    fields = {
        "domain": "geography",
        "language": "en",
        "task": {"question": "What is the capital of France?", "answer": answer, "scenario": "single_hop"},
        "subtasks": [
            {"id": "s1", "question": "What is the capital of France?", "answer": answer,
             "golden_call": {"tool": "capital", "arguments": arguments or {"country": "France"}}},
        ],
        "tools": copy.deepcopy(tools or [_TOOL]),
    }
    if limits:
        fields["limits"] = limits
    return fields


def _with(body: str) -> str:
    return _TABLE + "\n\n" + body.strip() + "\n"


_BAD_SCHEMA = {**_TOOL, "input_schema": {"type": "object", "properties": {"country": {"type": "strng"}}}}
_SECOND_CAPITAL = {**_TOOL, "description": "Capital city lookup, second copy."}
_UNDEFINED_TOOL = {"name": "population", "description": "Population of a country.", "input_schema": _SCHEMA}
_CURRENCY_TOOL = {"name": "currency", "description": "Currency of a country.", "input_schema": _SCHEMA}

BROKEN: dict[str, tuple[str, dict[str, Any], bool]] = {
    "schema_invalid": (_GOOD, _fields(tools=[_BAD_SCHEMA]), True),
    "duplicate_tool_name": (_GOOD, _fields(tools=[_TOOL, _SECOND_CAPITAL]), True),
    "golden_call_invalid_args": (_GOOD, _fields(arguments={"country": 33}), True),
    "golden_call_error": (_with('''
def capital(country: str) -> str:
    """The capital city of a country."""
    return CAPITALS[country]["name"]
'''), _fields(), False),
    "answer_missing": (_with('''
def capital(country: str) -> str:
    """The capital city of a country."""
    return f"{country} is a country." if country in CAPITALS else "unknown"
'''), _fields(), False),
    "nondeterministic": (_with('''
import random


def capital(country: str) -> str:
    """The capital city of a country."""
    return f"{CAPITALS.get(country, 'unknown')} (ref {random.getrandbits(64):x})"
'''), _fields(), False),
    # Invisible to the static scan (the import name is built at run time): caught by replay.
    "nondeterministic.replay": (_with('''
_rng = __import__("".join(["ran", "dom"]))


def capital(country: str) -> str:
    """The capital city of a country."""
    return f"{CAPITALS.get(country, 'unknown')} (ref {_rng.getrandbits(64):x})"
'''), _fields(), False),
    "answer_not_distinctive": (_with('''
def capital(country: str) -> str:
    """The capital city of a country."""
    return "; ".join(f"{k}: {v}" for k, v in sorted(CAPITALS.items()))
'''), _fields(), False),
    "answer_not_distinctive.generic": (_with('''
def capital(country: str) -> str:
    """Whether the country is in the table."""
    return "yes" if country in CAPITALS else "no such country"
'''), _fields(answer="yes"), False),
    "timeout": (_with('''
import threading


def capital(country: str) -> str:
    """The capital city of a country, eventually."""
    threading.Event().wait(60)
    return CAPITALS[country]
'''), _fields(limits={"call_timeout_s": 0.5}), False),
    "crash": (_with('''
import os


def capital(country: str) -> str:
    """The capital city of a country."""
    os._exit(7)
'''), _fields(), False),
    "tool_missing": (_GOOD, _fields(tools=[_TOOL, _UNDEFINED_TOOL]), False),
    # The golden call is fine; `currency` cannot take the `country` its schema declares.
    "signature_mismatch": (_GOOD + '''

def currency(nation: str) -> str:
    """The currency of a country."""
    return {"France": "euro", "Japan": "yen"}.get(nation, "unknown")
''', _fields(tools=[_TOOL, _CURRENCY_TOOL]), False),
    "code_invalid": (_with('''
def capital(country: str) -> str
    return CAPITALS[country]
'''), _fields(), False),
    "output_schema_mismatch": (_with('''
def capital(country: str) -> dict:
    """The capital city of a country."""
    return {"country": country, "city": CAPITALS.get(country, "unknown")}
'''), _fields(tools=[{**_TOOL, "output_schema": {
        "type": "object", "properties": {"capital": {"type": "string"}}, "required": ["capital"]}}]), False),
    "output_too_large": (_with('''
def capital(country: str) -> str:
    """The capital city of a country, padded."""
    return CAPITALS.get(country, "unknown") + " " + "." * (2 << 20)
'''), _fields(), False),
}
