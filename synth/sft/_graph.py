"""Stage 2: the tool graph — LLM-proposed chains become weighted edges; walks sample chains.

Per server, a model proposes plausible tasks with the tool sequence each needs; every pair
of consecutive tools becomes a directed edge weighted by how often it was proposed, and
first tools become weighted start nodes. Chains are then drawn by seeded, weighted,
length-bounded random walks (optionally acyclic) instead of enumerating every path.
Verification of the drawn chains lives in `_verify`.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agent_sdk import SamplingSettings
from synth.core import PromptExample, ReplyCheck, StructuredResult
from synth.core.values import parameter_kind
from synth.sft._docs import ServerDoc


class ToolGraph(BaseModel):
    """Directed, weighted graph of tool successions for one server."""

    server_id: str
    nodes: list[str] = Field(description="Tool names.")
    edges: dict[str, dict[str, float]] = Field(default_factory=dict, description="edges[a][b]: weight of a -> b.")
    starts: dict[str, float] = Field(default_factory=dict, description="Weight of each tool as a chain's first step.")

    def add_chain(self, chain: Sequence[str], weight: float = 1.0) -> None:
        """Count one proposed chain: its first tool as a start, each consecutive pair as an edge."""
        if not chain:
            return
        self.starts[chain[0]] = self.starts.get(chain[0], 0.0) + weight
        for a, b in zip(chain, chain[1:], strict=False):
            if a == b:
                continue
            row = self.edges.setdefault(a, {})
            row[b] = row.get(b, 0.0) + weight

    def has_edge(self, a: str, b: str) -> bool:
        """Whether a -> b is an edge."""
        return b in self.edges.get(a, {})

    @property
    def edge_count(self) -> int:
        """Number of distinct directed edges."""
        return sum(len(row) for row in self.edges.values())


class WalkConfig(BaseModel):
    """How chains are sampled from a graph."""

    model_config = ConfigDict(frozen=True)

    chains_per_server: int = Field(default=8, ge=1, description="Distinct chains to draw per server (at most).")
    min_length: int = Field(default=2, ge=1)
    max_length: int = Field(default=4, ge=1)
    acyclic: bool = Field(default=True, description="Never revisit a tool within one chain.")
    seed: int = 0
    attempts_per_chain: int = Field(default=20, ge=1, description="Walks tried per wanted chain before giving up.")


def _pick(rng: random.Random, weights: dict[str, float]) -> str:
    names = sorted(weights)
    return rng.choices(names, weights=[weights[n] for n in names], k=1)[0]


def sample_chains(graph: ToolGraph, config: WalkConfig) -> list[list[str]]:
    """Distinct chains drawn by weighted random walks, each within [min_length, max_length].

    Each walk draws a target length uniformly, starts at a start node (by start weight,
    falling back to nodes with outgoing edges), follows outgoing edges by weight, and stops
    at the target length or a dead end; walks shorter than `min_length` are discarded.
    Deterministic for a given graph and seed.

    Raises:
        ValueError: when min_length > max_length.
    """
    if config.min_length > config.max_length:
        raise ValueError(f"min_length {config.min_length} > max_length {config.max_length}")
    rng = random.Random(config.seed)
    starts = {n: w for n, w in graph.starts.items() if w > 0 and n in graph.nodes}
    if not starts:
        starts = {a: sum(row.values()) for a, row in graph.edges.items() if row}
    if config.min_length == 1 and not starts:
        starts = {n: 1.0 for n in graph.nodes}
    if not starts:
        return []
    seen: set[tuple[str, ...]] = set()
    chains: list[list[str]] = []
    for _ in range(config.chains_per_server * config.attempts_per_chain):
        if len(chains) >= config.chains_per_server:
            break
        target = rng.randint(config.min_length, config.max_length)
        walk = [_pick(rng, starts)]
        while len(walk) < target:
            options = {b: w for b, w in graph.edges.get(walk[-1], {}).items() if w > 0 and not (config.acyclic and b in walk)}
            if not options:
                break
            walk.append(_pick(rng, options))
        key = tuple(walk)
        if len(walk) >= config.min_length and key not in seen:
            seen.add(key)
            chains.append(walk)
    return chains


class ProposedChain(BaseModel):
    """One plausible task and the tools it needs, in order."""

    task: str = Field(min_length=8, description="A realistic user request.")
    tools: list[str] = Field(min_length=1, description="Tool names in the order they would be called.")


class ChainProposals(BaseModel):
    """A batch of proposed tasks with their tool chains."""

    chains: list[ProposedChain] = Field(min_length=1)


_PROPOSE = """You design realistic tasks for an AI assistant that uses the tools of the server "{name}".
{description}
Tools:
{tools}

Propose {n} different, realistic user tasks that each need SEVERAL of these tools in sequence, later calls using what earlier calls returned (ids, names, values). For each task give the exact tool names in call order, only names listed above.{format}"""

PROPOSE_EXAMPLE = PromptExample({"chains": [{"task": "<a user task>", "tools": ["<tool name>", "<tool name>"]}]})
"""The proposal format: placeholders only."""


def proposals_schema(names: Sequence[str], n: int) -> dict[str, Any]:
    """Up to `n` chains of two to six of the server's tool names."""
    chain = {
        "type": "object",
        "properties": {
            "task": {"type": "string", "minLength": 8, "maxLength": 300},
            "tools": {"type": "array", "items": {"enum": sorted(names)}, "minItems": 2, "maxItems": 6},
        },
        "required": ["task", "tools"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {"chains": {"type": "array", "items": chain, "minItems": 1, "maxItems": max(1, n)}},
        "required": ["chains"],
        "additionalProperties": False,
    }


class ChainInput(BaseModel):
    """A required argument of a chain that no earlier step of it returns: the user states its value."""

    tool: str
    name: str
    description: str = ""


def chain_inputs(server: ServerDoc, chain: Sequence[str]) -> list[ChainInput]:
    """The required arguments of `chain` the user must give, first use of each name first.

    An argument of a later step is returned by an earlier one when its name (`train_no`) or its id word
    (the `code` of `from_code`) is in an earlier step's description or output schema, or its own
    description names an earlier step ("An account_id from list_accounts"). The teacher wrote "Can I
    freeze my credit card?" for list_accounts -> get_transactions -> freeze_card, and its agent
    then called with the customer number of the tool's own example: 9 of 18 judged trajectories
    called with an id nobody gave.
    """
    inputs: dict[str, ChainInput] = {}
    earlier: list[str] = []
    for name in chain:
        tool = server.tool(name)
        if tool is None:
            continue
        props = tool.parameters.get("properties") or {}
        for arg in tool.required:
            schema = props.get(arg) if isinstance(props.get(arg), dict) else {}
            description = str(schema.get("description") or "")
            if arg in inputs or _returned(arg, description, earlier):
                continue
            inputs[arg] = ChainInput(tool=name, name=arg, description=description)
        earlier.append(f"{tool.name} {tool.description} {json.dumps(tool.output_schema or {})}")
    return list(inputs.values())


def _returned(arg: str, description: str, earlier: Sequence[str]) -> bool:
    words = [arg, arg.rsplit("_", 1)[-1]] if parameter_kind(arg) == "id" else [arg]
    named = [text.split(" ", 1)[0] for text in earlier]
    return any(re.search(rf"\b{re.escape(w)}", text, re.IGNORECASE) for w in words for text in earlier) or any(
        re.search(rf"\b{re.escape(n)}\b", description) for n in named
    )


def tool_lines(server: ServerDoc) -> str:
    """The tools of `server` as compact `name(args): description` lines for prompts."""
    lines = []
    for tool in server.tools:
        props = tool.parameters.get("properties", {})
        args = ", ".join(f"{k}{'*' if k in tool.required else ''}" for k in props)
        lines.append(f"- {tool.name}({args}): {tool.description}")
    return "\n".join(lines)


async def propose_graph(
    model: object,
    server: ServerDoc,
    *,
    rounds: int = 2,
    per_round: int = 5,
    max_tokens: int = 800,
) -> tuple[ToolGraph, list[StructuredResult[ChainProposals]]]:
    """Ask the model `rounds` times for task/chain proposals and count them into a graph.

    A chain naming a tool the server lacks is never counted (a trailing "(args)" after a
    real name is tolerated). A reply with no valid chain of two or more tools is fed back
    as an error and retried, then counted as a failed round. Returns the graph and every
    round's result (failed rounds included, for stats).
    """
    names = {t.name for t in server.tools}

    def usable(chain: ProposedChain) -> list[str] | None:
        tools = [re.sub(r"\(.*\)$", "", t).strip() for t in chain.tools]
        return tools if len(tools) >= 2 and all(t in names for t in tools) else None

    def check(value: ChainProposals) -> str | None:
        if any(usable(c) for c in value.chains):
            return None
        unknown = sorted({t for c in value.chains for t in c.tools if t not in names})
        return f"no chain of two or more known tools (unknown: {unknown}); use only: {sorted(names)}"

    graph = ToolGraph(server_id=server.id, nodes=sorted(names))
    results = []
    for r in range(rounds):
        prompt = _PROPOSE.format(
            name=server.name, description=server.description, tools=tool_lines(server), n=per_round,
            format=PROPOSE_EXAMPLE.format_section(model, "replace every <...>"),
        )
        prompt += f"\n(Batch {r + 1} of {rounds}: make these different from other batches.)"
        guard = ReplyCheck(PROPOSE_EXAMPLE, check=check)
        result = await guard.ask(
            model, prompt, ChainProposals, settings=SamplingSettings(temperature=0.8, max_tokens=max_tokens), schema=proposals_schema(names, per_round)
        )
        results.append(result)
        for chain in result.value.chains if result.value is not None else []:
            tools = usable(chain)
            if tools is not None:
                graph.add_chain(tools)
    return graph, results
