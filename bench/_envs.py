"""Shared fixtures for the benchmarks: a tiny stateful environment written to a temp dir."""

from __future__ import annotations

from pathlib import Path

from mcp_servers import Environment

CODE = '''
STATE = {"n": 0}


def bump(step: int = 1) -> dict:
    STATE["n"] += step
    return {"n": STATE["n"]}
'''

SCHEMA = {"type": "object", "properties": {"step": {"type": "integer"}}}


def bench_env() -> Environment:
    """A one-tool stateful environment."""
    return Environment.build(
        CODE,
        domain="bench",
        source={"kind": "authored", "ref": "bench"},
        task={"question": "Bump once.", "answer": "n is 1", "scenario": "single_hop"},
        subtasks=[{"id": "s1", "question": "Bump.", "answer": "1", "golden_call": {"tool": "bump", "arguments": {}}}],
        tools=[{"name": "bump", "description": "Increment the counter.", "input_schema": SCHEMA}],
    )


def write_bench_env(root: Path) -> Path:
    """Write the environment under `root` and return its directory."""
    return bench_env().write(root / "bench-env")


def bump_directly(step: int = 1) -> dict:
    """The same tool as plain Python, for the SDK baseline server."""
    bump_directly.n = getattr(bump_directly, "n", 0) + step  # type: ignore[attr-defined]
    return {"n": bump_directly.n}  # type: ignore[attr-defined]
