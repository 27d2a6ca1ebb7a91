"""Write docs/cli.md: the help of `astra` and of every subcommand, as plain text.

Usage: .venv/bin/python scripts/cli_docs.py [--check]

The page is generated from the typer app's click command tree, so it is what `astra ... --help`
prints, minus rich's boxes: each command's help goes through click's plain formatter at a fixed
width, which keeps the page the same on every machine and terminal. `--check` writes nothing and
exits 1 when the committed page differs from what the app generates now (tests/test_cli_docs.py
does the same).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer

WIDTH = 100
"""Columns the help is wrapped to, whatever the terminal: the page must not depend on it."""

ROOT = Path(__file__).resolve().parent.parent
"""The checkout: defaults under it are shown relative to it, so the page is the same in every checkout."""

PAGE = ROOT / "docs" / "cli.md"
"""Where the page is committed."""

REGENERATE = ".venv/bin/python scripts/cli_docs.py"
"""The one-liner that rewrites the page (quoted by the staleness test)."""


def _context(command: Any, name: str, parent: Any = None) -> Any:
    """A click context for `command` invoked as `name` under `parent`, wrapping help at `WIDTH`."""
    return command.context_class(command, info_name=name, parent=parent, terminal_width=WIDTH, max_content_width=WIDTH)


def _commands(command: Any, ctx: Any) -> Iterator[tuple[Any, Any]]:
    """`command` and every visible subcommand below it, depth first in registration order.

    The commands are the click objects typer builds (typer ships its own copy of click, so they
    are typed `Any` here rather than as the `click` package's classes).
    """
    yield command, ctx
    if hasattr(command, "list_commands"):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                yield from _commands(sub, _context(sub, name, ctx))


def _plain_help(command: Any, ctx: Any) -> str:
    """`command`'s help through click's plain formatter, defaults inside the checkout shown relative to it.

    Typer draws rich boxes unless a command's markup mode is None; a default such as
    `examples/envs` is resolved to an absolute path at import, which differs per checkout.
    """
    command.rich_markup_mode = None  # this command object was built for the page alone
    for param in command.params:
        if isinstance(param.default, (str, Path)) and Path(param.default).is_absolute():
            with contextlib.suppress(ValueError):
                param.default = type(param.default)(Path(param.default).relative_to(ROOT))
    formatter = ctx.make_formatter()
    command.format_help(ctx, formatter)
    return "\n".join(line.rstrip() for line in formatter.getvalue().rstrip().splitlines())


def render(app: typer.Typer, prog: str = "astra") -> str:
    """The whole page for `app`, invoked as `prog`: a contents list, then one section per command."""
    root = typer.main.get_command(app)
    entries = list(_commands(root, _context(root, prog)))
    lines = [
        "# Command line reference",
        "",
        f"Generated from the `{prog}` app by `{REGENERATE}`; do not edit by hand.",
        "`tests/test_cli_docs.py` fails when a command's help no longer matches this page.",
        "",
    ]
    for command, ctx in entries[1:]:
        depth = ctx.command_path.count(" ") - 1
        anchor = ctx.command_path.replace(" ", "-")
        lines.append(f"{'  ' * depth}- [`{ctx.command_path}`](#{anchor})")
    for command, ctx in entries:
        lines += ["", f"## {ctx.command_path}", "", "```text", _plain_help(command, ctx), "```"]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    """Write the page, or with `--check` only compare it; the exit status says whether it was current."""
    from astra_cli import app

    page = render(app)
    if "--check" in argv:
        current = PAGE.exists() and PAGE.read_text(encoding="utf-8") == page
        if not current:
            print(f"{PAGE} is out of date: run {REGENERATE}", file=sys.stderr)
        return 0 if current else 1
    PAGE.write_text(page, encoding="utf-8")
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
