"""A walk becomes an ordinary environment (`env.json` + `tools.py`), checked in process.

The environment exposes the walk's tools and a few more of the same world (its own in-world
distractors), chosen by the seed. `check_in_process` is verify's replay on the code path:
it runs the module in this process (the code is compiled from a schema, never written by a
model), replays the golden calls, and makes verify's one-argument perturbations, so a walk
whose answer would come back with another argument is dropped before the sandbox sees it.
"""

from __future__ import annotations

import json
import random
from typing import Any

from mcp_servers import (
    Environment,
    GoldenCall,
    Source,
    Subtask,
    Task,
    answer_in_output,
    golden_order,
    perturbations,
)
from synth.world._schema import World
from synth.world._tools import WorldTool, environment_code
from synth.world._walk import Walk

__all__ = ["build_environment", "check_in_process", "run_module"]


def run_module(code: str) -> dict[str, Any]:
    """The namespace of an executed tool module (world code only: compiled by this package)."""
    namespace: dict[str, Any] = {"__name__": "env_tools"}
    exec(compile(code, "tools.py", "exec"), namespace)  # noqa: S102 — code compiled from a schema here, not model-written
    return namespace


def _pick_tools(walk: Walk, tools: list[WorldTool], rng: random.Random, max_tools: int) -> list[WorldTool]:
    used = {s.tool for s in walk.steps}
    chosen = [t for t in tools if t.spec.name in used]
    touched = set().union(*(t.reads | {t.entity} for t in chosen))
    near = [t for t in tools if t.spec.name not in used and (t.reads | {t.entity}) & touched]
    rng.shuffle(near)
    keep = {t.spec.name for t in chosen} | {t.spec.name for t in near[: max(0, max_tools - len(chosen))]}
    return [t for t in tools if t.spec.name in keep]


def build_environment(world: World, walk: Walk, tools: list[WorldTool], *, rng: random.Random, max_tools: int = 6) -> Environment:
    """The environment of `walk`: its golden calls, answers and a tool module over the world's rows.

    Raises:
        pydantic.ValidationError: when the walk breaks the environment contract (a bug here).
    """
    exposed = _pick_tools(walk, tools, rng, max_tools)
    code = environment_code(world, walk.language, exposed)
    subtasks = [
        Subtask(id=s.id, question=s.question, answer=s.answer, depends_on=list(s.depends_on),
                golden_call=GoldenCall(tool=s.tool, arguments=s.arguments))
        for s in walk.steps
    ]  # fmt: skip
    return Environment.build(
        code,
        domain=world.domain,
        language=walk.language,
        source=Source(kind="world", ref=f"{world.name}:{walk.shape}"),
        task=Task(question=walk.question, answer=walk.answer, scenario=walk.scenario),
        subtasks=subtasks,
        tools=[t.spec for t in exposed],
    )


def check_in_process(env: Environment) -> list[tuple[str, str]]:
    """Verify's replay and perturbations, run in this process: `(code, message)` per problem (empty: it passes)."""
    namespace = run_module(env.code)
    problems: list[tuple[str, str]] = []
    order = golden_order(env.spec)
    for sub in order:
        call = sub.golden_call
        assert call is not None
        output = json.dumps(namespace[call.tool](**call.arguments), ensure_ascii=False, sort_keys=True)
        if '"error"' in output:
            problems.append(("golden_call_error", f"{sub.id}: {call.tool} returned {output[:160]}"))
            continue
        if not answer_in_output(sub.answer, output):
            problems.append(("answer_missing", f"{sub.id}: {sub.answer!r} is not in {call.tool}'s output"))
            continue
        tool = env.spec.tool(call.tool)
        assert tool is not None
        siblings = [s.golden_call.arguments for s in order if s.golden_call and s.golden_call.tool == call.tool and s.id != sub.id]
        for name, variant in perturbations(call.arguments, tool.input_schema, siblings):
            again = json.dumps(namespace[call.tool](**variant), ensure_ascii=False, sort_keys=True)
            if answer_in_output(sub.answer, again):
                problems.append(("answer_not_distinctive", f"{sub.id}: {sub.answer!r} also returned with {name} = {variant[name]!r}"))
    return problems
