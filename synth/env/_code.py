"""Tool code: static checks and module rendering.

Whether a tool's output holds an answer is decided by `mcp_servers.answer_in_output`, the
rule `verify` and the reward use, so synthesis never keeps a tool that verify rejects.

Static checks catch, before the sandbox runs anything, what `verify` would reject anyway:
syntax errors, a missing function, non-standard-library imports and reads of time, randomness,
the environment or the network (nondeterministic by construction).
"""

from __future__ import annotations

import ast
import sys
import textwrap
from collections.abc import Sequence

from mcp_servers import CheckCode
from synth.exceptions import CodeProblem

CHECK_CODES: tuple[CheckCode, ...] = CheckCode.load_declarations(__name__)
"""The codes of the static check (it also raises the `verify` codes `nondeterministic` and `signature_mismatch`)."""

NONDETERMINISTIC_MODULES = frozenset({"random", "time", "uuid", "secrets", "os", "threading", "multiprocessing"})
"""Modules whose use makes output depend on the clock, entropy or the host."""
FORBIDDEN_MODULES = frozenset(
    {"socket", "urllib", "http", "ssl", "requests", "subprocess", "ftplib", "smtplib", "asyncio", "ctypes", "shutil", "pathlib", "importlib"}
)
"""Network, process and filesystem access: never needed by a data-backed tool."""
_NONDETERMINISTIC_CALLS = frozenset({"now", "today", "utcnow", "urandom", "getrandbits", "random", "time_ns", "perf_counter"})


def check_code(code: str, function: str, parameters: Sequence[str]) -> None:
    """Statically check generated tool code.

    Raises:
        CodeProblem: with a code of `CHECK_CODES`, or the verify code `signature_mismatch` or
            `nondeterministic`, and a message fit to feed back to the model.
    """
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        raise CodeProblem("syntax_error", f"the code does not parse: line {exc.lineno}: {exc.msg}") from exc
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    if function not in funcs:
        raise CodeProblem("missing_function", f"the code defines no top-level function `{function}`")
    args = funcs[function].args
    accepted = {a.arg for a in args.args + args.kwonlyargs}
    missing = [p for p in parameters if p not in accepted]
    if missing and args.kwarg is None:
        raise CodeProblem("signature_mismatch", f"`{function}` must accept the keyword argument(s) {missing}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for name in names:
                top = name.split(".")[0]
                if top == "__future__":
                    raise CodeProblem("forbidden_import", "do not use `from __future__` imports")
                if top in NONDETERMINISTIC_MODULES:
                    raise CodeProblem("nondeterministic", f"imports `{top}`: output must not depend on time, randomness or the host")
                if top in FORBIDDEN_MODULES or top not in sys.stdlib_module_names:
                    raise CodeProblem("forbidden_import", f"imports `{top}`: use only pure standard-library modules (json, math, re, ...)")
        elif isinstance(node, ast.Global | ast.Nonlocal):
            raise CodeProblem("forbidden_import", "do not use `global`/`nonlocal`: keep data in module-level constants")
        elif isinstance(node, ast.Call):
            target = node.func
            name = target.attr if isinstance(target, ast.Attribute) else target.id if isinstance(target, ast.Name) else ""
            if name in _NONDETERMINISTIC_CALLS:
                raise CodeProblem("nondeterministic", f"calls `{name}()`: output must not depend on the clock or randomness")
            if name in {"open", "exec", "eval", "__import__", "input"}:
                raise CodeProblem("forbidden_import", f"calls `{name}()`: tools must not read files or run code")


def render_module(tools: Sequence[tuple[str, str, str]], header: str = "") -> str:
    """One `tools.py` from per-tool sources: `(tool_name, function, code)` each.

    Each tool's source runs inside its own builder function, so helpers and data of two tools
    never clash and a renamed tool simply binds another name; module state stays per session
    because the runtime executes the module afresh for every session.
    """
    header = " ".join(header.replace('"', "'").replace("\\", "/").split())
    parts = [f'"""{header}"""\n' if header else ""]
    for name, function, code in tools:
        body = textwrap.indent(code.strip() + f"\nreturn {function}\n", "    ")
        parts.append(f"\ndef _build_{name}():\n{body}\n\n{name} = _build_{name}()\n")
    return "".join(parts).lstrip("\n")
