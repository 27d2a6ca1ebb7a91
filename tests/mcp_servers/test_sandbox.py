"""The runtime contains hostile tool code while it keeps serving other sessions."""

from pathlib import Path

import anyio
import pytest

from mcp_servers import LocalSandbox, SandboxUnavailable
from mcp_servers._isolation import resolve_isolation

pytestmark = pytest.mark.anyio


async def _still_serves(sandbox: LocalSandbox, counter_env) -> None:
    other = await sandbox.open_session(counter_env)
    first = await other.call("add", {"amount": 2})
    second = await other.call("add", {"amount": 3})
    assert (first.structured, second.structured) == ({"total": 2}, {"total": 5})
    await other.aclose()


@pytest.fixture
async def sandbox():
    async with LocalSandbox(workers=1) as box:
        assert box.mechanism == "bwrap"
        yield box


async def test_sessions_are_isolated_and_stateful(sandbox, counter_env) -> None:
    a = await sandbox.open_session(counter_env)
    b = await sandbox.open_session(counter_env)
    assert (await a.call("add", {"amount": 5})).structured == {"total": 5}
    assert (await a.call("add", {"amount": 5})).structured == {"total": 10}
    assert (await b.call("add", {})).structured == {"total": 1}
    assert (await a.call("echo", {"text": "hi"})).text == "echo: hi"


async def test_arguments_are_validated_before_code_runs(sandbox, counter_env) -> None:
    session = await sandbox.open_session(counter_env)
    outcome = await session.call("add", {"amount": "five"})
    assert not outcome.ok and outcome.error_kind == "invalid_arguments"
    assert "amount" in outcome.text and "integer" in outcome.text
    outcome = await session.call("echo", {})
    assert outcome.error_kind == "invalid_arguments" and "'text' is a required property" in outcome.text
    outcome = await session.call("nope", {})
    assert outcome.error_kind == "unknown_tool" and "add, echo" in outcome.text


@pytest.mark.parametrize(
    ("tool", "args", "kind", "needle"),
    [
        ("connect", {}, "exception", "Network is unreachable"),
        ("fork_bomb", {}, "exception", "Resource temporarily unavailable"),
        ("memory_bomb", {}, "memory", "memory limit"),
        ("spin", {}, "timeout", "timed out after 2 s"),
        ("crash", {}, "crash", "crashed"),
        ("huge", {}, "oversized_output", "limit"),
        ("bad_type", {}, "exception", "must return str, dict or list"),
        ("read_outside", {"path": "/etc/passwd"}, "exception", "No such file"),
        ("read_outside", {"path": "/root/.bashrc"}, "exception", "No such file"),
    ],
)
async def test_hostile_code_is_contained(sandbox, hostile_env, counter_env, tool, args, kind, needle) -> None:
    keeper = await sandbox.open_session(counter_env)
    assert (await keeper.call("add", {"amount": 7})).ok
    hostile = await sandbox.open_session(hostile_env)
    with anyio.fail_after(30):
        outcome = await hostile.call(tool, args)
    assert not outcome.ok, outcome
    assert outcome.error_kind == kind, outcome
    assert needle in outcome.text
    # the session sharing the worker kept its state (restored by replay when the worker died)
    assert (await keeper.call("add", {"amount": 1})).structured == {"total": 8}
    await _still_serves(sandbox, counter_env)


async def test_writes_land_only_in_the_private_temp_dir(sandbox, hostile_env, counter_env) -> None:
    session = await sandbox.open_session(hostile_env)
    outcome = await session.call("write_outside", {})
    assert outcome.ok and outcome.text == "only the private temp dir is writable: private"
    for path in ("/usr/astra_pwned", "/etc/astra_pwned", "/root/astra_pwned", "/tmp/scratch.txt"):
        assert not Path(path).exists()
    await _still_serves(sandbox, counter_env)


async def test_signalling_the_parent_does_not_reach_the_host(sandbox, hostile_env, counter_env) -> None:
    session = await sandbox.open_session(hostile_env)
    await session.call("signal_parent", {})
    await _still_serves(sandbox, counter_env)


async def test_unsandboxed_mode_needs_explicit_consent() -> None:
    with pytest.raises(SandboxUnavailable, match="unsafe"):
        resolve_isolation("none")
    assert resolve_isolation("none", unsafe=True) == "none"


async def test_closed_sessions_release_their_namespace(sandbox, counter_env) -> None:
    session = await sandbox.open_session(counter_env)
    await session.call("add", {})
    await session.aclose()
    outcome = await session.call("add", {})
    assert not outcome.ok and "closed" in outcome.text
