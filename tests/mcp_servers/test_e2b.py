"""The e2b backend runs the same worker remotely; only with E2B_API_KEY (never in CI here)."""

import os

import pytest

from mcp_servers import SandboxConfig, SandboxUnavailable


def test_e2b_is_refused_clearly_without_a_key(monkeypatch) -> None:
    monkeypatch.delenv("E2B_API_KEY", raising=False)
    with pytest.raises(SandboxUnavailable, match="E2B_API_KEY"):
        SandboxConfig(backend="e2b").build()


def test_backend_comes_from_the_environment(monkeypatch) -> None:
    monkeypatch.setenv("ASTRA_SANDBOX", "e2b")
    monkeypatch.setenv("ASTRA_SANDBOX_WORKERS", "3")
    config = SandboxConfig.from_env()
    assert (config.backend, config.workers) == ("e2b", 3)
    assert SandboxConfig.from_env(backend="local").backend == "local"


@pytest.mark.e2b
@pytest.mark.anyio
@pytest.mark.skipif(not os.environ.get("E2B_API_KEY"), reason="needs E2B_API_KEY")
async def test_e2b_sandbox_runs_tools_isolated(counter_env, hostile_env) -> None:
    async with SandboxConfig(backend="e2b", workers=1).build() as sandbox:
        a = await sandbox.open_session(counter_env)
        b = await sandbox.open_session(counter_env)
        assert (await a.call("add", {"amount": 2})).structured == {"total": 2}
        assert (await b.call("add", {})).structured == {"total": 1}
        hostile = await sandbox.open_session(hostile_env)
        assert (await hostile.call("connect", {})).error_kind == "exception"
        assert (await hostile.call("spin", {})).error_kind == "timeout"
        assert (await a.call("add", {"amount": 1})).structured == {"total": 3}
