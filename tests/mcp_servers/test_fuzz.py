"""Fuzzed arguments never produce a protocol error or a dead server."""

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client

from mcp_servers import LocalSandbox, build_env_server

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=10,
)
arguments = st.dictionaries(st.sampled_from(["amount", "text", "extra", ""]), json_values, max_size=3)


@pytest.mark.anyio
async def test_fuzzed_arguments_get_results_not_protocol_errors(counter_env) -> None:
    async with LocalSandbox(workers=1) as sandbox:
        server = build_env_server(counter_env, sandbox)
        async with Client(server, mode="legacy") as client:
            seen: list[tuple[str, dict]] = []

            @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
            @given(tool=st.sampled_from(["add", "echo", "missing"]), args=arguments)
            def collect(tool: str, args: dict) -> None:
                seen.append((tool, args))

            collect()
            errors = 0
            with anyio.fail_after(120):
                for tool, args in seen:
                    result = await client.call_tool(tool, args)
                    assert result.content, (tool, args)
                    errors += bool(result.is_error)
                    if result.is_error:
                        assert result.meta["astra/error_kind"] in {"invalid_arguments", "unknown_tool", "exception"}
                assert (await client.call_tool("echo", {"text": "alive"})).content[0].text == "echo: alive"
            assert errors > 0 and errors < len(seen)
