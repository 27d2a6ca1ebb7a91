"""Import rules of the tree.

- Packages use each other through their public API only (each package's `__init__` `__all__`):
  a module or name starting with `_` is private to its top-level package, and importing it from
  another package, from `bench/` or from `evals/` fails here. Tests may reach inside (they
  mirror the source tree and test internals).
- No module imports itself back through others, not even for type checking: a cycle means two
  modules are one concept, or one of them reaches for what it should be given.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("mcp_servers", "agent_sdk", "synth", "rl", "astra_loop", "astra_cli")
IMPORTERS = (*PACKAGES, "bench", "evals")


def _imports(source: str, where: str) -> Iterator[tuple[ast.stmt, str, str | None]]:
    """(statement, module, imported name or None) of every absolute import, `TYPE_CHECKING` blocks included."""
    for node in ast.walk(ast.parse(source, where)):
        if isinstance(node, ast.Import):
            yield from ((node, alias.name, None) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield from ((node, node.module, alias.name) for alias in node.names)


def private_imports(source: str, where: str, owner: str) -> list[str]:
    """`where:line: import` for each import in `source` (code of `owner`) of another package's private module or name."""
    found = []
    for node, module, name in _imports(source, where):
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
        ("from synth.env import _schemas\n", "astra_loop", ["synth.env._schemas"]),
        ("from rl._episode import McpEpisode\n", "rl", []),
        ("from rl.verl import VerlRecipe\nfrom harness._parallel import play_trials\n", "evals", []),
    ],
)
def test_the_check_sees_private_modules_and_names_across_packages(source: str, owner: str, expected: list[str]) -> None:
    assert [p.split(": ", 1)[1] for p in private_imports(source, "probe.py", owner)] == expected


def import_cycle(sources: dict[str, str]) -> list[str]:
    """One cycle of the import graph of `sources` (dotted module name -> code), or [] when it has none."""
    graph: dict[str, set[str]] = {}
    for module, source in sources.items():
        graph[module] = set()
        for _, target, name in _imports(source, module):
            submodule = f"{target}.{name}" if name else None
            found = submodule if submodule in sources else target if target in sources else None
            if found is not None and found != module:
                graph[module].add(found)
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(module: str) -> list[str]:
        state[module] = "open"
        path.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == "open":
                return path[path.index(target):] + [target]
            if target not in state and (cycle := visit(target)):
                return cycle
        state[module] = "done"
        path.pop()
        return []

    for module in sorted(graph):
        if module not in state and (cycle := visit(module)):
            return cycle
    return []


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_the_packages_import_graph_has_no_cycle() -> None:
    sources = {_module_name(p): p.read_text(encoding="utf-8") for top in PACKAGES for p in sorted((REPO / top).rglob("*.py"))}
    assert import_cycle(sources) == []


def test_the_cycle_check_sees_a_type_checking_cycle() -> None:
    sources = {
        "pkg._a": "from pkg._b import write\n",
        "pkg._b": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg._a import Thing\n",
        "pkg._c": "from pkg import _a\n",
    }
    assert import_cycle(sources) == ["pkg._a", "pkg._b", "pkg._a"]
    assert import_cycle({k: v for k, v in sources.items() if k != "pkg._b"}) == []


def test_every_package_imports_from_outside_the_checkout(tmp_path) -> None:
    # Installed dependencies ship top-level directories of their own (transferqueue, a veRL
    # dependency, installs a `recipe/` namespace): a package of ours by such a name is shadowed
    # for every console script, while tests run from the checkout still find it.
    code = "import importlib, sys; print([importlib.import_module(p).__file__ for p in sys.argv[1:]])"
    found = subprocess.run([sys.executable, "-c", code, *PACKAGES], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    files = ast.literal_eval(found)
    assert all(f is not None and Path(f).resolve().is_relative_to(REPO) for f in files), dict(zip(PACKAGES, files))
