"""docs/cli.md is what scripts/cli_docs.py generates from the `astra` app now."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def _cli_docs() -> ModuleType:
    """scripts/cli_docs.py as a module (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location("cli_docs", ROOT / "scripts" / "cli_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_page_matches_the_app() -> None:
    from astra_cli import app

    cli_docs = _cli_docs()
    committed = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert committed == cli_docs.render(app), (
        f"docs/cli.md is out of date with the astra commands: regenerate it with `{cli_docs.REGENERATE}`"
    )


def test_page_is_plain_and_machine_independent() -> None:
    from astra_cli import app

    page = _cli_docs().render(app)
    assert "## astra env verify" in page
    assert not any(box in page for box in "╭╰│─"), "rich boxes leaked into the page"
    assert str(ROOT) not in page, "a default shows this checkout's absolute path"
