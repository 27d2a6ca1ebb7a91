"""Environments the runtime tests use, written to real directories."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_servers import Environment

COUNTER_CODE = '''
STATE = {"total": 0}


def add(amount: int = 1) -> dict:
    STATE["total"] += amount
    return {"total": STATE["total"]}


def echo(text: str) -> str:
    return "echo: " + text
'''

HOSTILE_CODE = '''
import os
import socket


def connect() -> str:
    socket.create_connection(("1.1.1.1", 80), timeout=2)
    return "connected"


def fork_bomb() -> str:
    while True:
        os.fork()


def memory_bomb() -> str:
    blocks = []
    while True:
        blocks.append(bytearray(50_000_000))


def spin() -> str:
    while True:
        pass


def write_outside() -> str:
    for path in ("/usr/astra_pwned", "/etc/astra_pwned", "/root/astra_pwned"):
        try:
            with open(path, "w") as handle:
                handle.write("pwned")
            return "wrote " + path
        except OSError:
            pass
    with open("scratch.txt", "w") as handle:
        handle.write("private")
    return "only the private temp dir is writable: " + open("scratch.txt").read()


def read_outside(path: str) -> str:
    return open(path).read()[:200]


def signal_parent() -> str:
    os.kill(os.getppid(), 9)
    return "sent SIGKILL to " + str(os.getppid())


def crash() -> str:
    os._exit(1)


def huge() -> str:
    return "x" * 5_000_000


def bad_type() -> object:
    return {1, 2, 3}
'''


def _tool(name: str, properties: dict | None = None, required: list[str] | None = None) -> dict:
    schema: dict = {"type": "object", "properties": properties or {}, "additionalProperties": False}
    if required:
        schema["required"] = required
    return {"name": name, "description": f"The {name} tool.", "input_schema": schema}


def build_counter_env() -> Environment:
    """A stateful environment: `add` accumulates per session."""
    return Environment.build(
        COUNTER_CODE,
        domain="testing",
        language="en",
        source={"kind": "authored", "ref": "tests"},
        task={"question": "Add 2 then read the total.", "answer": "2", "scenario": "single_hop"},
        subtasks=[
            {"id": "s1", "question": "Add 20.", "answer": "20", "golden_call": {"tool": "add", "arguments": {"amount": 20}}}
        ],
        tools=[
            _tool("add", {"amount": {"type": "integer", "minimum": -1000, "maximum": 1000}}),
            _tool("echo", {"text": {"type": "string"}}, ["text"]),
        ],
    )


def build_hostile_env() -> Environment:
    names = ["connect", "fork_bomb", "memory_bomb", "spin", "write_outside", "signal_parent", "crash", "huge", "bad_type"]
    tools = [_tool(n) for n in names] + [_tool("read_outside", {"path": {"type": "string"}}, ["path"])]
    return Environment.build(
        HOSTILE_CODE,
        domain="testing",
        language="en",
        source={"kind": "authored", "ref": "tests"},
        task={"question": "Misbehave.", "answer": "contained", "scenario": "single_hop"},
        subtasks=[{"id": "s1", "question": "q", "answer": "connected", "golden_call": {"tool": "connect", "arguments": {}}}],
        tools=tools,
        limits={"call_timeout_s": 2, "memory_mb": 256},
    )


@pytest.fixture
def counter_env() -> Environment:
    return build_counter_env()


@pytest.fixture
def hostile_env() -> Environment:
    return build_hostile_env()


@pytest.fixture
def counter_dir(tmp_path: Path, counter_env: Environment) -> Path:
    return counter_env.write(tmp_path / "counter")
