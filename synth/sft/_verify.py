"""Chain verification: a schema-level dependency check, then an LLM coherence vote.

Dependency check: every required argument of every tool must be obtainable. Ordinary
arguments (a city, a date, a search phrase) can come from the user's query. Identifier-like
arguments (`*_id`, `*_ids`, `uuid`, `token`, `handle`, `format: uuid`) are values systems
mint: the chain's first tool may take them from the query (the user knows their order
number), but a later tool must get them from an earlier step — an argument an earlier tool
also took, or a value an earlier tool's documented output produces. A chain whose later
step needs an id nothing produces is not a real chain and is dropped.

Coherence vote: several independent judgements whether the chain forms one sensible task;
a strict majority of valid "coherent" votes is needed, and a vote that fails to parse counts
against the chain (fail closed). The prompt's example votes "not coherent", and a vote that
copies it is invalid (`copied_example`). The task sketches of the accepting votes are kept
and seed task generation.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from agent_sdk import SamplingSettings
from mcp_servers import CheckCode
from synth.core import PromptExample, ReplyCheck
from synth.sft._docs import ServerDoc, ToolDoc
from synth.sft._graph import tool_lines

CHECK_CODES: tuple[CheckCode, ...] = CheckCode.load_declarations(__name__)
"""The codes of a rejected chain (`check_dependencies`, `CoherenceVerdict.rejection`)."""

_ID_ARG = re.compile(r"(^|_)(id|ids|uuid|uuids|token|handle)$|[a-z](Id|Ids|ID|IDs|Uuid)$")


def is_identifier_arg(name: str, schema: dict[str, Any] | None = None) -> bool:
    """Whether an argument holds a system-minted identifier rather than user-known content."""
    if schema and schema.get("format") == "uuid":
        return True
    return bool(_ID_ARG.search(name))


def _entity(arg: str) -> str:
    base = re.sub(r"(_?(ids?|uuids?|tokens?|handles?)|(Ids?|IDs?|Uuid))$", "", arg)
    return base.casefold().strip("_")


def _variants(arg: str) -> set[str]:
    a = arg.casefold()
    return {a, a.removesuffix("s"), a + "s"}


def _output_names(schema: Any, parent: str = "") -> list[tuple[str, str]]:
    """(parent key, property name) for every property in an output schema, recursively."""
    out: list[tuple[str, str]] = []
    if isinstance(schema, dict):
        for key, sub in (schema.get("properties") or {}).items():
            out.append((parent, key.casefold()))
            out += _output_names(sub, key.casefold())
        if "items" in schema:
            out += _output_names(schema["items"], parent)
        for key in ("anyOf", "oneOf", "allOf"):
            for sub in schema.get(key, []) or []:
                out += _output_names(sub, parent)
    return out


def produces(tool: ToolDoc, arg: str) -> bool:
    """Whether `tool`'s documented output provides a value for argument `arg`.

    With an output schema: a property of the same name (singular/plural), or an `id` inside an
    object named after the entity, or a top-level `id` of a tool named after the entity.
    Without one: the description names the argument, or the tool is named after the entity
    and its description speaks of ids.
    """
    entity = _entity(arg)
    wanted = _variants(arg)
    name = tool.name.casefold()
    if tool.output_schema:
        for parent, prop in _output_names(tool.output_schema):
            if prop in wanted:
                return True
            if entity and prop in ("id", "uuid") and ((entity in parent) or (not parent and entity in name)):
                return True
        return False
    text = tool.description.casefold()
    if any(re.search(rf"\b{re.escape(v)}\b", text) or v.replace("_", " ") in text for v in wanted if len(v) > 2):
        return True
    return bool(entity) and entity in name and re.search(r"\b(ids?|identifiers?)\b", text) is not None


class DependencyVerdict(BaseModel):
    """Result of the schema-level dependency check."""

    ok: bool
    missing: list[str] = Field(default_factory=list, description="`tool.argument` values nothing can provide.")


def check_dependencies(server: ServerDoc, chain: Sequence[str]) -> DependencyVerdict:
    """Check that every required argument of every step can come from the query or an earlier step."""
    missing: list[str] = []
    known_args: set[str] = set()
    earlier: list[ToolDoc] = []
    for step, name in enumerate(chain):
        tool = server.tool(name)
        if tool is None:
            missing.append(f"{name}.(unknown tool)")
            continue
        props = tool.parameters.get("properties", {})
        for arg in tool.required:
            if step == 0 or not is_identifier_arg(arg, props.get(arg)):
                continue
            if _variants(arg) & known_args or any(produces(prev, arg) for prev in earlier):
                continue
            missing.append(f"{name}.{arg}")
        known_args |= {a.casefold() for a in props}
        earlier.append(tool)
    return DependencyVerdict(ok=not missing, missing=missing)


class ChainVote(BaseModel):
    """One judge's verdict on a chain."""

    coherent: bool = Field(description="Whether the tools, in this order, serve one realistic user task.")
    task: str = Field(default="", description="A one-sentence user task that needs exactly this chain (when coherent).")
    reason: str = Field(default="", description="Why.")


class CoherenceVerdict(BaseModel):
    """Outcome of the coherence vote."""

    ok: bool
    yes: int
    no: int
    invalid: int
    tasks: list[str] = Field(default_factory=list, description="Task sketches from the accepting votes.")
    reasons: list[str] = Field(default_factory=list)
    invalid_codes: dict[str, int] = Field(default_factory=dict, description="Invalid votes per reason code (copied_example, ...).")

    @property
    def rejection(self) -> str | None:
        """The reason code of a failed vote, None when the chain passed.

        `model_error` (the endpoint failed: retry later) and `context_overflow` (the prompt
        cannot fit) come first; `vote_copied_example` when copies outnumber honest "no" votes;
        else `incoherent`.
        """
        if self.ok:
            return None
        for code in ("model_error", "context_overflow"):
            if self.invalid_codes.get(code):
                return code
        if self.invalid_codes.get("copied_example", 0) > self.no:
            return "vote_copied_example"
        return "incoherent"


_VOTE = """Server "{name}": {description}
Tools:
{tools}

Proposed tool chain (called in this order): {chain}

Would a real user have ONE task that needs exactly these tools in this order, each call using what the earlier ones returned?
coherent: false if a step is unnecessary, the order is unnatural or the steps do not connect; true otherwise.
task: that user's request in one sentence. reason: one sentence. Then coherent.{format}"""

VOTE_EXAMPLE = PromptExample({"coherent": False, "task": "<the user's request>", "reason": "<one sentence>"})
"""The vote format: it votes against the chain, so copying it never passes one."""

VOTE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "task": {"type": "string", "maxLength": 300},
        "reason": {"type": "string", "minLength": 1, "maxLength": 300},
        "coherent": {"type": "boolean"},
    },
    "required": ["task", "reason", "coherent"],
    "additionalProperties": False,
}


async def vote_coherence(model: object, server: ServerDoc, chain: Sequence[str], *, voters: int = 3, max_tokens: int = 400) -> CoherenceVerdict:
    """Ask `voters` independent judgements; accept on a strict majority of valid 'coherent' votes."""
    prompt = _VOTE.format(
        name=server.name, description=server.description, tools=tool_lines(server), chain=" -> ".join(chain), format=VOTE_EXAMPLE.format_section(model)
    )
    yes = no = invalid = 0
    tasks: list[str] = []
    reasons: list[str] = []
    codes: Counter[str] = Counter()
    for v in range(voters):
        guard = ReplyCheck(VOTE_EXAMPLE)
        result = await guard.ask(
            model, f"{prompt}\nYou are reviewer {v + 1} of {voters}; judge independently.", ChainVote,
            settings=SamplingSettings(temperature=0.7, max_tokens=max_tokens), schema=VOTE_SCHEMA,
        )  # fmt: skip
        if result.value is None:
            invalid += 1
            codes[str(result.reason_code)] += 1
            reasons.append(f"vote {v}: {result.reason_code}: {result.detail[:200]}")
        elif result.value.coherent:
            yes += 1
            if result.value.task.strip():
                tasks.append(result.value.task.strip())
        else:
            no += 1
            reasons.append(f"vote {v}: {result.value.reason[:200]}")
    return CoherenceVerdict(ok=yes * 2 > voters, yes=yes, no=no, invalid=invalid, tasks=tasks, reasons=reasons, invalid_codes=dict(codes))
