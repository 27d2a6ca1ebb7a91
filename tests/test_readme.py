"""Every `astra ...` command README.md shows exists, with the options it uses; its local links resolve.

Commands are read from fenced code blocks (in `console` blocks only the `$ ` lines) and from inline
code spans, split at `&&`, `;`, `|` and `&`; `.venv/bin/astra` counts as `astra`.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import typer

from astra_cli import app

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
_INLINE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_SEPARATORS = {"&&", "||", ";", "|", "&"}


def _shell_lines(text: str) -> list[str]:
    """The command lines of README's code blocks and inline code, continuation lines joined."""
    lines: list[str] = []
    for match in _FENCE.finditer(text):
        language, body = match.group(1), match.group(2).replace("\\\n", " ")
        for line in body.splitlines():
            if language == "console":
                if line.startswith("$ "):
                    lines.append(line[2:])
            elif language in ("", "bash", "sh", "shell"):
                lines.append(line)
    prose = _FENCE.sub("", text)
    lines += [span for span in _INLINE.findall(prose) if re.match(r"(\.venv/bin/)?astra ", span)]
    return lines


def _astra_commands(line: str) -> list[list[str]]:
    """The argument lists of the `astra` commands on one shell line."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    commands: list[list[str]] = [[]]
    for token in lexer:
        if token in _SEPARATORS:
            commands.append([])
        else:
            commands[-1].append(token)
    return [argv[1:] for argv in commands if argv and argv[0] in ("astra", ".venv/bin/astra")]


def readme_commands() -> list[list[str]]:
    """Every `astra` command README.md shows, as its arguments after `astra` (lines naming no astra skipped)."""
    lines = _shell_lines(README.read_text(encoding="utf-8"))
    return [argv for line in lines if re.search(r"(^|[\s/])astra\s", line) for argv in _astra_commands(line)]


def _problem(argv: list[str]) -> str | None:
    """Why `astra *argv` would not parse as a command and options of the app, or None."""
    command: Any = typer.main.get_command(app)
    path = ["astra"]
    rest = list(argv)
    while hasattr(command, "commands") and rest and not rest[0].startswith("-"):
        name = rest.pop(0)
        if name not in command.commands:
            return f"`{' '.join(path)}` has no command {name!r} (it has {sorted(command.commands)})"
        command, path = command.commands[name], [*path, name]
    if hasattr(command, "commands") and not rest:
        return None  # a group alone prints its help
    options = {"--help"} | {opt for param in command.params for opt in (*param.opts, *param.secondary_opts) if opt.startswith("-")}
    for token in rest:
        if token == "--":
            break
        if token.startswith("-") and token != "-" and not re.fullmatch(r"-\d.*", token):
            option = token.split("=", 1)[0]
            if option not in options:
                return f"`{' '.join(path)}` has no option {option} (it has {sorted(options)})"
    return None


def test_readme_shows_the_tour_commands() -> None:
    shown = {" ".join(argv[:2]) for argv in readme_commands()}
    assert {"env verify", "env serve", "arena serve", "agent run", "loop --out", "env synth"} <= shown


@pytest.mark.parametrize("argv", readme_commands(), ids=lambda argv: " ".join(["astra", *argv])[:80])
def test_readme_command_exists(argv: list[str]) -> None:
    problem = _problem(argv)
    assert problem is None, f"README.md shows `astra {' '.join(argv)}`, but {problem}"


def test_problem_names_a_missing_command_and_option() -> None:
    assert _problem(["env", "verify", "examples/envs"]) is None
    assert _problem(["env", "verfy", "x"]) is not None
    assert _problem(["env", "verify", "x", "--no-such-option"]) is not None
    assert _problem(["loop", "--out=runs/loop", "--redo", "grpo"]) is None


@pytest.mark.parametrize("page", ["README.md", "docs/results.md"])
def test_local_links_resolve(page: str) -> None:
    path = ROOT / page
    targets = [t for t in _LINK.findall(path.read_text(encoding="utf-8")) if not re.match(r"[a-z]+:", t)]
    missing = [t for t in targets if not (path.parent / t.split("#", 1)[0]).exists()]
    assert not missing, f"{page} links to files that do not exist: {missing}"
