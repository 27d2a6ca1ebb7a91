"""Stage 1: one server from each ingest source, normalized, and every drop reported with its reason."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest

from mcp_servers import ArenaServer, LocalSandbox, load_env, serve_app
from synth.exceptions import SchemaConversionError
from synth.sft import ingest, ingest_envs, ingest_file, ingest_mcp, to_openai_parameters

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"
FLIGHT_GATE = EXAMPLES / "envs" / "flight_gate"


def test_openai_schema_file() -> None:
    result = ingest_file(EXAMPLES / "tool_docs" / "travel_desk.json")
    assert not result.dropped
    (server,) = result.servers
    assert server.name == "travel_desk" and server.source.kind == "openai_schemas"
    assert not server.source.runnable, "doc-only servers are rolled out on the emulator"
    assert [t.name for t in server.tools] == ["search_flights", "get_flight_details", "book_flight", "get_booking", "cancel_booking"]
    tool = server.tool("book_flight").to_openai()
    assert tool["type"] == "function"
    assert tool["function"]["parameters"]["required"] == ["flight_id", "passenger_name"]


def test_astra_rows_keep_good_servers_and_report_drops() -> None:
    result = ingest_file(EXAMPLES / "tool_docs" / "astra_servers.jsonl")
    assert [s.name for s in result.servers] == ["city_library"]
    assert result.servers[0].domain == "Libraries" and result.servers[0].source.kind == "astra_rows"
    drops = {d.name: d for d in result.dropped}
    assert drops["tiny_calc"].reason == "too_few_tools"
    assert drops["mystery_box"].reason == "vague_description"
    assert drops["tiny_calc"].ref.endswith("astra_servers.jsonl:2"), "a drop names the file and line"
    assert {(i.tool, i.reason) for i in result.tool_issues} == {
        ("do_it", "vague_description"),
        ("run", "vague_description"),
        ("process", "vague_description"),
    }


def test_malformed_lines_and_unconvertible_schemas(tmp_path: Path) -> None:
    good = {"name": "notes", "description": "Personal notes.", "tools": [
        {"name": f"note_{i}", "description": f"Create, read or list personal notes (variant {i}).",
         "parameters": {"type": "object", "properties": {"text": {"$ref": "#/$defs/Text"}}, "$defs": {"Text": {"type": "string"}}}}
        for i in range(3)
    ]}
    bad_schema = {"name": "broken", "tools": [
        {"name": f"t{i}", "description": "Returns the weather forecast for a city.", "parameters": {"type": "array"}} for i in range(3)
    ]}
    path = tmp_path / "docs.jsonl"
    path.write_text(json.dumps(good) + "\n{not json\n" + json.dumps(bad_schema) + "\n")
    result = ingest_file(path)
    assert [s.name for s in result.servers] == ["notes"]
    text = result.servers[0].tools[0].parameters["properties"]["text"]
    assert text == {"type": "string"}, "local $refs are inlined"
    reasons = {d.ref.rsplit(":", 1)[1]: d.reason for d in result.dropped}
    assert reasons == {"2": "malformed_input", "3": "schema_unconvertible"}
    with pytest.raises(SchemaConversionError, match="recursive"):
        to_openai_parameters({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {"$ref": "#/$defs/A"}}})


def test_environments_grouped_by_domain() -> None:
    result = ingest_envs([EXAMPLES / "envs" / "flight_gate", EXAMPLES / "envs" / "hotel_booking", EXAMPLES / "envs" / "weather_forecast"])
    (server,) = result.servers
    assert server.source.kind == "env" and server.source.runnable
    assert len(server.source.envs) == 2 and server.domain == "travel"
    assert {t.name for t in server.tools} == {t.name for d in ("flight_gate", "hotel_booking") for t in load_env(EXAMPLES / "envs" / d).spec.tools}
    (drop,) = result.dropped
    assert drop.reason == "too_few_tools" and "weather" in drop.name


@pytest.mark.anyio
async def test_a_folder_of_tool_docs_is_read_file_by_file_and_an_empty_one_is_named(tmp_path: Path) -> None:
    result = await ingest([str(EXAMPLES / "tool_docs")])
    names = {"travel_desk", "city_library", "bank_desk", "pharmacy_counter", "rail_tickets", "table_booking", "tianqi_service"}
    assert {s.name for s in result.servers} == names, "no env.json below it: its .json/.jsonl files are the docs"
    assert {s.language for s in result.servers if s.name == "tianqi_service"} == {"zh"}
    empty = tmp_path / "nothing_here"
    empty.mkdir()
    (drop,) = (await ingest([str(empty)])).dropped
    assert drop.reason == "malformed_input" and drop.ref == str(empty) and "no .json/.jsonl tool docs" in drop.detail


@pytest.mark.anyio
async def test_live_server_over_stdio() -> None:
    with anyio.fail_after(120):
        result = await ingest_mcp(f"stdio:{sys.executable} -m astra_cli env serve {FLIGHT_GATE}", min_tools=2)
    (server,) = result.servers
    assert server.source.kind == "mcp_stdio"
    assert {t.name for t in server.tools} == {t.name for t in load_env(FLIGHT_GATE).spec.tools}


@pytest.mark.anyio
async def test_live_server_over_http_and_unreachable() -> None:
    env = load_env(FLIGHT_GATE)
    with anyio.fail_after(120):
        async with LocalSandbox() as sandbox, anyio.create_task_group() as tg:
            port = await tg.start(serve_app, ArenaServer([env], sandbox).app)
            url = f"http://127.0.0.1:{port}/envs/{env.spec.id}/mcp"
            result = await ingest([url, "http://127.0.0.1:9/nothing/mcp"], min_tools=2)
            tg.cancel_scope.cancel()
    (server,) = result.servers
    assert server.source.kind == "mcp_http" and server.source.ref == url
    assert [t.name for t in server.tools] == [t.name for t in env.spec.tools]
    (drop,) = result.dropped
    assert drop.reason == "unreachable" and drop.ref == "http://127.0.0.1:9/nothing/mcp"
