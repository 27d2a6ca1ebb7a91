"""Toolbox over Streamable HTTP against a real arena: isolation, distractors, server restart."""

from __future__ import annotations

import anyio
import pytest

from agent_sdk import Toolbox
from mcp_servers import ArenaServer, LocalSandbox, load_env, serve_app

pytestmark = pytest.mark.anyio

BOOK = {"hotel": "harbor-view", "room_type": "suite", "check_in": "2025-09-14", "nights": 3, "guest": "Ana Silva"}


async def test_arena_sessions_are_isolated_and_distractors_callable(helpers):
    hotel = load_env(helpers.EXAMPLE_ENVS / "hotel_booking")
    weather = load_env(helpers.EXAMPLE_ENVS / "weather_forecast")
    async with LocalSandbox() as sandbox, anyio.create_task_group() as tg:
        port = await tg.start(serve_app, ArenaServer([hotel, weather], sandbox).app)
        base = f"http://127.0.0.1:{port}/envs/{hotel.spec.id}/mcp"
        url = f"{base}?distractors={weather.spec.id}.get_forecast"
        async with Toolbox(url) as first:
            assert sorted(t.name for t in first.tools) == ["book_room", "get_booking", "get_forecast"]
            assert first.tools[0].server == hotel.spec.id
            booked = await first.call_tool("book_room", BOOK)
            assert "HB-DE3C01" in booked.text
            found = await first.call_tool("get_booking", {"confirmation": "HB-DE3C01"})
            forecast = await first.call_tool("get_forecast", {"city": "Oslo", "date": "2025-06-14"})
        async with Toolbox(base) as second:
            fresh = await second.call_tool("get_booking", {"confirmation": "HB-DE3C01"})
        tg.cancel_scope.cancel()
    assert found.ok and found.structured["total"] == "CAD 867.00"
    assert forecast.ok and "light rain" in forecast.text.lower()
    assert "no booking" in fresh.text  # a new session is a fresh environment instance


class _Arena:
    """A restartable arena server task (its own cancel scope, so stopping it stops nothing else)."""

    def __init__(self, app, port: int = 0) -> None:
        self.app, self.port = app, port
        self.scope = anyio.CancelScope()
        self.stopped = anyio.Event()

    async def run(self, *, task_status) -> None:
        with self.scope:
            await serve_app(self.app, "127.0.0.1", self.port, task_status=task_status)
        self.stopped.set()

    async def stop(self) -> None:
        self.scope.cancel()
        await self.stopped.wait()


async def test_reconnects_after_the_http_server_restarts(helpers):
    weather = load_env(helpers.EXAMPLE_ENVS / "weather_forecast")
    args = {"city": "Oslo", "date": "2025-06-14"}
    async with LocalSandbox() as sandbox, anyio.create_task_group() as tg:
        first = _Arena(ArenaServer([weather], sandbox).app)
        port = await tg.start(first.run)
        url = f"http://127.0.0.1:{port}/envs/{weather.spec.id}/mcp"
        with anyio.fail_after(30):
            async with Toolbox(url, timeout_s=10) as box:
                assert (await box.call_tool("get_forecast", args)).ok
                await first.stop()
                # The server is gone: the call fails as data and the episode goes on.
                lost = await box.call_tool("get_forecast", args)
                second = _Arena(ArenaServer([weather], sandbox).app, port)
                await tg.start(second.run)
                back = await box.call_tool("get_forecast", args)
                reconnects = box.reconnects
                await second.stop()
    assert not lost.ok and lost.error_kind == "transport"
    assert back.ok and "light rain" in back.text.lower()
    assert reconnects == 1
