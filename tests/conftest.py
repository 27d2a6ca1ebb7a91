"""Suite-wide fixtures: the anyio backend, and no real model endpoint for any test.

Every test runs under an `agent_sdk.RequestGuard`: an HTTP request to a server that neither
the test process nor one of its children started (a remote API, `$ASTRA_LLM_BASE_URL`, a model
server someone runs on this machine) fails the test. Models in tests are
`agent_sdk.FunctionModel`s; fake OpenAI servers and arenas that tests start stay reachable.
Tests marked `e2b` talk to e2b's cloud and run unguarded.
"""

from collections.abc import Iterator

import pytest

from agent_sdk import RequestGuard


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture(autouse=True)
def own_servers_only(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail the test if it sent an HTTP request to a server it did not start."""
    if request.node.get_closest_marker("e2b") is not None:
        yield
        return
    with RequestGuard():
        yield
