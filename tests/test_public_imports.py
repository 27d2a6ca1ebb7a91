"""Packages use each other through their public API only (each package's `__init__` `__all__`).

A module or name starting with `_` is private to its top-level package: importing it from
another package, from `bench/` or from `evals/` fails here. Tests may reach inside (they
mirror the source tree and test internals).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("mcp_servers", "agent_sdk", "synth", "rl", "recipe", "astra_cli")
IMPORTERS = (*PACKAGES, "bench", "evals")


def private_imports(source: str, where: str, owner: str) -> list[str]:
    """`where:line: import` for each import in `source` (code of `owner`) of another package's private module or name."""
    found = []
    for node in ast.walk(ast.parse(source, where)):
        if isinstance(node, ast.Import):
            targets = [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            targets = [(node.module, alias.name) for alias in node.names]
        else:
            continue
        for module, name in targets:
            top, *inner = module.split(".")
            if top not in PACKAGES or top == owner:
                continue
            if any(part.startswith("_") for part in inner) or (name or "").startswith("_"):
                found.append(f"{where}:{node.lineno}: {module}{'.' + name if name else ''}")
    return found


def test_no_package_imports_another_packages_private_modules() -> None:
    problems = [
        problem
        for owner in IMPORTERS
        for path in sorted((REPO / owner).rglob("*.py"))
        for problem in private_imports(path.read_text(encoding="utf-8"), str(path.relative_to(REPO)), owner)
    ]
    assert problems == [], "import these through the package's public API (add them to its __all__):\n" + "\n".join(problems)


@pytest.mark.parametrize(
    ("source", "owner", "expected"),
    [
        ("from rl.verl._config import VerlRecipe\n", "astra_cli", ["rl.verl._config.VerlRecipe"]),
        ("import agent_sdk._serve\n", "bench", ["agent_sdk._serve"]),
        ("from synth.env import _schemas\n", "recipe", ["synth.env._schemas"]),
        ("from rl._episode import McpEpisode\n", "rl", []),
        ("from rl.verl import VerlRecipe\nfrom harness._parallel import play_trials\n", "evals", []),
    ],
)
def test_the_check_sees_private_modules_and_names_across_packages(source: str, owner: str, expected: list[str]) -> None:
    assert [p.split(": ", 1)[1] for p in private_imports(source, "probe.py", owner)] == expected
