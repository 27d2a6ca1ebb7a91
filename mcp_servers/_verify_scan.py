"""Static scan of an environment's tool module for `verify`: syntax, nondeterminism,
tools that are not defined, and tool functions whose signature disagrees with the schema."""

from __future__ import annotations

import ast

from mcp_servers._spec import Environment, ToolSpec
from mcp_servers._verify_checks import Finding

_NONDETERMINISTIC_MODULES = frozenset(
    {"time", "random", "uuid", "secrets", "socket", "urllib", "urllib3", "requests", "httpx", "aiohttp", "ssl"}
)
_NONDETERMINISTIC_ATTRS = {
    "datetime": frozenset({"now", "today", "utcnow"}),
    "date": frozenset({"today"}),
    "os": frozenset({"urandom", "getrandom"}),
}
_ATTR_NAMES = frozenset().union(*_NONDETERMINISTIC_ATTRS.values())
# hash() of a str and id() of anything differ between worker processes.
_NONDETERMINISTIC_BUILTINS = frozenset({"hash", "id"})


def _banned_module(name: str) -> bool:
    return name.split(".")[0] in _NONDETERMINISTIC_MODULES or name == "http.client" or name.startswith("http.client.")


def _hits(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [f"imports {a.name}" for a in node.names if _banned_module(a.name)]
    if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
        hits = [f"imports from {node.module}"] if _banned_module(node.module) else []
        if node.module == "http" and any(a.name == "client" for a in node.names):
            hits.append("imports http.client")
        attrs = _NONDETERMINISTIC_ATTRS.get(node.module, frozenset())
        return hits + [f"imports {node.module}.{a.name}" for a in node.names if a.name in attrs]
    if isinstance(node, ast.Attribute) and node.attr in _ATTR_NAMES:
        base = node.value.attr if isinstance(node.value, ast.Attribute) else getattr(node.value, "id", None)
        if node.attr in _NONDETERMINISTIC_ATTRS.get(base or "", ()):
            return [f"uses {base}.{node.attr}"]
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name) and func.id in _NONDETERMINISTIC_BUILTINS:
            return [f"calls {func.id}(), which differs between processes"]
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        target = node.args[0].value if node.args and isinstance(node.args[0], ast.Constant) else None
        if name in {"__import__", "import_module"} and isinstance(target, str) and _banned_module(target):
            return [f"imports {target} dynamically"]
    return []


def _nondeterminism(tree: ast.Module, filename: str) -> list[Finding]:
    hits = sorted({(node.lineno, what) for node in ast.walk(tree) for what in _hits(node)})  # type: ignore[attr-defined]
    return [
        Finding(code="nondeterministic", message=f"{filename}:{line}: {what} (clock, randomness and network are not deterministic)")
        for line, what in hits
    ]


def _top_level(body: list[ast.stmt]) -> tuple[set[str], dict[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Names bound at module level, and the plain function definitions among them (last one wins)."""
    names: set[str] = set()
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
            functions[node.name] = node
            continue
        bound: set[str] = set()
        if isinstance(node, ast.ClassDef):
            bound = {node.name}
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound = {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            blocks = [getattr(node, "body", []), getattr(node, "orelse", []), getattr(node, "finalbody", [])]
            blocks += [h.body for h in getattr(node, "handlers", [])]
            for block in blocks:
                inner, _ = _top_level(block)
                bound |= inner
        names |= bound
        for name in bound:
            functions.pop(name, None)  # rebound by something we cannot read statically
    return names, functions


def _signature_problems(func: ast.FunctionDef | ast.AsyncFunctionDef, tool: ToolSpec) -> list[str]:
    args = func.args
    properties = tool.input_schema.get("properties", {})
    declared = set(properties) if isinstance(properties, dict) else set()
    required = set(tool.input_schema.get("required", []))
    positional = args.posonlyargs + args.args
    first_default = len(positional) - len(args.defaults)
    accepted = {a.arg for a in args.args + args.kwonlyargs}
    no_default = {a.arg for a in positional[:first_default] if a in args.args}
    no_default |= {a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is None}
    problems = [
        f"positional-only parameter {a.arg!r} has no default and cannot be passed by keyword"
        for a in positional[:first_default] if a in args.posonlyargs
    ]
    if args.kwarg is None:
        problems += [f"does not accept {name!r}, which input_schema declares" for name in sorted(declared - accepted)]
    problems += [f"parameter {name!r} has no default but input_schema does not require it" for name in sorted(no_default - required)]
    return problems


def scan_code(env: Environment) -> tuple[list[Finding], bool]:
    """Static findings on the tool module; the flag says whether the module parses at all."""
    filename = env.spec.entry
    try:
        tree = ast.parse(env.code, filename=filename)
    except SyntaxError as exc:
        return [Finding(code="code_invalid", message=f"{filename}:{exc.lineno}: {exc.msg}")], False
    findings = _nondeterminism(tree, filename)
    names, functions = _top_level(tree.body)
    for tool in env.spec.tools:
        if tool.name not in names:
            findings.append(Finding(code="tool_missing", tool=tool.name, message=f"{filename} defines no top-level {tool.name!r}"))
        elif tool.name in functions:
            func = functions[tool.name]
            for problem in _signature_problems(func, tool):
                findings.append(Finding(code="signature_mismatch", tool=tool.name,
                                        message=f"{filename}:{func.lineno}: {tool.name}() {problem}"))
    return findings, True
