"""Stage 2: the tool graph, its random-walk sampler (property-tested) and chain verification."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_sdk import FunctionModel
from synth.sft import ToolGraph, WalkConfig, check_dependencies, ingest_file, propose_graph, sample_chains, vote_coherence
from sft_world import assert_example_only_without_schema
from synth.sft._docs import ToolDoc

ROOT = Path(__file__).resolve().parents[3]
TRAVEL = ingest_file(ROOT / "examples" / "tool_docs" / "travel_desk.json").servers[0]
NODES = [f"t{i}" for i in range(6)]


@st.composite
def graphs(draw: st.DrawFn) -> ToolGraph:
    graph = ToolGraph(server_id="srv", nodes=NODES)
    pairs = draw(st.lists(st.tuples(st.sampled_from(NODES), st.sampled_from(NODES)), max_size=20))
    for a, b in pairs:
        graph.add_chain([a, b], weight=draw(st.floats(min_value=0.5, max_value=5)))
    return graph


@settings(max_examples=150, deadline=None)
@given(
    graph=graphs(),
    lo=st.integers(min_value=1, max_value=4),
    span=st.integers(min_value=0, max_value=3),
    acyclic=st.booleans(),
    seed=st.integers(min_value=0, max_value=10**6),
)
def test_walks_respect_edges_and_length_bounds(graph: ToolGraph, lo: int, span: int, acyclic: bool, seed: int) -> None:
    config = WalkConfig(chains_per_server=6, min_length=lo, max_length=lo + span, acyclic=acyclic, seed=seed)
    chains = sample_chains(graph, config)
    assert chains == sample_chains(graph, config), "seeded: the same draw twice"
    assert len(chains) <= 6 and len({tuple(c) for c in chains}) == len(chains)
    for chain in chains:
        assert lo <= len(chain) <= lo + span
        assert all(graph.has_edge(a, b) for a, b in zip(chain, chain[1:])), chain
        if acyclic:
            assert len(set(chain)) == len(chain)


def test_walks_follow_edge_weights() -> None:
    graph = ToolGraph(server_id="srv", nodes=["a", "b", "c"])
    graph.add_chain(["a", "b"], weight=9)
    graph.add_chain(["a", "c"], weight=1)
    firsts = Counter()
    for seed in range(400):
        for chain in sample_chains(graph, WalkConfig(chains_per_server=1, min_length=2, max_length=2, seed=seed)):
            firsts[chain[1]] += 1
    assert 0.8 <= firsts["b"] / sum(firsts.values()) <= 0.97, firsts


def test_dependency_check_rejects_a_chain_whose_id_is_never_produced() -> None:
    bad = check_dependencies(TRAVEL, ["search_flights", "cancel_booking"])
    assert not bad.ok and bad.missing == ["cancel_booking.booking_id"]
    assert check_dependencies(TRAVEL, ["search_flights", "book_flight", "cancel_booking"]).ok
    assert check_dependencies(TRAVEL, ["get_booking", "cancel_booking"]).ok, "an id the query gave step 1 stays known"
    assert check_dependencies(TRAVEL, ["cancel_booking"]).ok, "the first step may take ids from the query"


def test_dependency_check_reads_output_schemas() -> None:
    def tool(name: str, required: list[str], output: dict | None) -> ToolDoc:
        props = {r: {"type": "string"} for r in required}
        return ToolDoc(name=name, description=f"The {name} tool of the shop service.", parameters={"type": "object", "properties": props, "required": required}, output_schema=output)

    server = TRAVEL.model_copy(
        update={
            "tools": [
                tool("list_orders", ["customer"], {"type": "object", "properties": {"orders": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}}}}}}),
                tool("get_weather", ["city"], {"type": "object", "properties": {"temp": {"type": "number"}}}),
                tool("refund_order", ["order_id"], None),
            ]
        }
    )
    assert check_dependencies(server, ["list_orders", "refund_order"]).ok, "orders[].id provides order_id"
    verdict = check_dependencies(server, ["get_weather", "refund_order"])
    assert not verdict.ok and verdict.missing == ["refund_order.order_id"]


@pytest.mark.anyio
async def test_proposals_build_weighted_edges() -> None:
    proposals = {"chains": [
        {"task": "Book the cheapest flight to Rome", "tools": ["search_flights", "book_flight"]},
        {"task": "Book and then confirm a seat", "tools": ["search_flights(origin, destination, date)", "book_flight", "get_booking"]},
        {"task": "Fly there and teleport back", "tools": ["search_flights", "teleport"]},
    ]}
    unknown = {"chains": [{"task": "Teleport me to Rome today", "tools": ["teleport", "book_flight"]}]}
    model = FunctionModel.from_replies(json.dumps(unknown), json.dumps(proposals), json.dumps(proposals))
    graph, results = await propose_graph(model, TRAVEL, rounds=2, per_round=3)
    assert [r.ok for r in results] == [True, True]
    assert "unknown: ['teleport']" in model.requests[1].messages[-1].content, "a reply without one usable chain is fed back"
    assert graph.edges["search_flights"] == {"book_flight": 4.0}, "the chain through an unknown tool is never counted"
    assert graph.edges["book_flight"]["get_booking"] == 2.0
    assert graph.starts == {"search_flights": 4.0}


@pytest.mark.anyio
async def test_coherence_vote_needs_a_majority_and_counts_garbage_against() -> None:
    yes = json.dumps({"coherent": True, "task": "Find and book a flight", "reason": "connected"})
    no = json.dumps({"coherent": False, "reason": "unrelated steps"})
    accepted = await vote_coherence(FunctionModel.from_replies(yes, no, yes), TRAVEL, ["search_flights", "book_flight"], voters=3)
    assert accepted.ok and accepted.tasks == ["Find and book a flight", "Find and book a flight"]
    garbage = "I think it is fine"
    rejected = await vote_coherence(FunctionModel.from_replies(yes, garbage, garbage, garbage, no), TRAVEL, ["search_flights", "book_flight"], voters=3)
    assert not rejected.ok and (rejected.yes, rejected.no, rejected.invalid) == (1, 1, 1)


@pytest.mark.anyio
async def test_votes_copying_the_example_reject_the_chain_with_their_own_code() -> None:
    from synth.sft._verify import VOTE_EXAMPLE

    assert VOTE_EXAMPLE.value["coherent"] is False, "the example votes against: copying it never passes a chain"
    copied = json.dumps({"coherent": True, "task": "<the user's request>", "reason": "<one sentence>"})
    verdict = await vote_coherence(FunctionModel.from_replies(*[copied] * 9), TRAVEL, ["search_flights", "book_flight"], voters=3)
    assert not verdict.ok and verdict.invalid == 3 and verdict.invalid_codes == {"copied_example": 3}
    assert verdict.rejection == "vote_copied_example"
    honest = json.dumps({"coherent": False, "task": "", "reason": "booking needs no search"})
    mixed = await vote_coherence(FunctionModel.from_replies(honest, honest, *[copied] * 3), TRAVEL, ["search_flights", "book_flight"], voters=3)
    assert mixed.rejection == "incoherent", "honest no votes outnumber the copy"


def test_proposal_schema_names_only_the_servers_tools() -> None:
    from synth.sft._graph import proposals_schema

    schema = proposals_schema([t.name for t in TRAVEL.tools], n=5)
    tools = schema["properties"]["chains"]["items"]["properties"]["tools"]
    assert tools["items"]["enum"] == sorted(t.name for t in TRAVEL.tools) and tools["minItems"] == 2
    assert schema["properties"]["chains"]["maxItems"] == 5


@pytest.mark.anyio
async def test_graph_and_vote_prompts_show_their_example_only_when_the_schema_is_not_enforced() -> None:
    from synth.sft._graph import PROPOSE_EXAMPLE
    from synth.sft._verify import VOTE_EXAMPLE

    stages = [
        (PROPOSE_EXAMPLE, lambda m: propose_graph(m, TRAVEL, rounds=1)),
        (VOTE_EXAMPLE, lambda m: vote_coherence(m, TRAVEL, ["search_flights", "book_flight"], voters=1)),
    ]
    await assert_example_only_without_schema(stages)
