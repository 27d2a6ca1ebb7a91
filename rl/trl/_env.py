"""TRL environments backed by arena MCP sessions.

TRL's GRPOTrainer (environment mode) exposes every public function of an environment's class
as a tool (all but `reset` and `get_reward`), reading each one's signature, type hints and
Google-style docstring, and calls `reset(**row)` before each rollout. Our tools are MCP tools
known only from their JSON Schemas, so for each environment (its own tools plus its sample's
distractors) we build a class whose methods carry a signature and docstring derived from those
schemas; each call goes through the rollout's `McpEpisode`, so the arena runs the real code and
the call is recorded for the F1 reward. Everything else on the class is private — scoring
included — so the policy is offered exactly the episode's tools. TRL is synchronous: the MCP
sessions live on an anyio blocking portal (an event loop in a helper thread, which TRL forces
on us), shared with the in-process arena.

Calls arrive parsed by `agent_sdk.parse_tool_calls` (`rl.trl._parsing`); a call whose arguments
needed repair carries its `ArgumentRepair` under `REPAIR_KEY`, which the episode records.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from anyio.from_thread import BlockingPortal

from agent_sdk import ArgumentRepair, Trajectory
from mcp_servers import Environment, ToolSpec
from rl._episode import McpEpisode
from rl.datasets import RlTask
from rl.reward import RewardParts
from rl.trl._parsing import REPAIR_KEY

_PY_TYPES: dict[str, Any] = {
    "string": str, "integer": int, "number": float, "boolean": bool, "array": list[Any], "object": dict[str, Any],
}
_RESERVED = {"reset", "get_reward"}


def _annotation(prop: dict[str, Any]) -> Any:
    kind = prop.get("type")
    if isinstance(kind, list):
        kinds = [_PY_TYPES[k] for k in kind if k in _PY_TYPES]
        if not kinds:
            return str
        union = kinds[0]
        for k in kinds[1:]:
            union = union | k
        return union
    return _PY_TYPES.get(kind, str) if isinstance(kind, str) else str


def _arg_doc(name: str, prop: dict[str, Any]) -> str:
    text = prop.get("description") if isinstance(prop.get("description"), str) else ""
    detail = {k: v for k, v in prop.items() if k not in ("description", "type")}
    if detail:
        text = (text + " " if text else "") + "(JSON Schema: " + json.dumps(detail, sort_keys=True) + ")"
    return " ".join((text or name.replace("_", " ")).split())


def tool_method(tool: ToolSpec) -> Callable[..., str]:
    """A method standing for an MCP tool: its signature and docstring describe the input schema."""
    props: dict[str, Any] = tool.input_schema.get("properties") or {}
    required = set(tool.input_schema.get("required") or [])

    def method(self: McpToolEnv, **arguments: Any) -> str:
        return self._call(tool.name, arguments)

    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    ordered = sorted(props, key=lambda name: name not in required)
    for name in ordered:
        default = inspect.Parameter.empty if name in required else None
        params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=_annotation(props[name])))
    method.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    method.__annotations__ = {p.name: p.annotation for p in params[1:]} | {"return": str}
    method.__name__ = method.__qualname__ = tool.name
    args = "".join(f"\n    {name}: {_arg_doc(name, props[name])}" for name in ordered)
    summary = " ".join(tool.description.split())
    method.__doc__ = summary + (f"\n\nArgs:{args}" if args else "") + "\n\nReturns:\n    The tool's output."
    return method


@dataclass(kw_only=True)
class EnvStats:
    """What one environment instance did over its lifetime (TRL reuses instances across rollouts)."""

    episodes: int = 0
    """Rollouts started (each one MCP session)."""
    calls: int = 0
    """Tool calls made (each one recorded for the reward, unparsable arguments included)."""
    argument_repairs: int = 0
    """Calls whose arguments were not strict JSON (repaired, or unparsable)."""
    unparsable_arguments: int = 0
    """Calls whose arguments could not be parsed even after repair (answered with an error)."""


@dataclass(kw_only=True)
class _Rollout:
    """A finished rollout: its trajectory (the recorded calls) and its F1 reward."""

    trajectory: Trajectory
    reward: RewardParts


class McpToolEnv:
    """Base of the generated environment classes: one MCP session per rollout.

    Its only public function is `reset` (TRL requires it); the generated subclasses add one
    public method per tool. State lives in private attributes, so no tool name can shadow it.

    Args:
        portal: the blocking portal whose event loop owns the MCP sessions.
        arena_url: base URL of the arena.
        call_timeout_s: limit per tool call.
    """

    def __init__(self, portal: BlockingPortal, arena_url: str, *, call_timeout_s: float = 30.0) -> None:
        self._portal = portal
        self._arena_url = arena_url
        self._call_timeout_s = call_timeout_s
        self._context: Any = None
        self._episode: McpEpisode | None = None
        self._rollout: _Rollout | None = None
        self._stats = EnvStats()

    def reset(self, **row: Any) -> None:
        """Start a rollout of `row` (a TRL row from `prepare`): a fresh MCP session."""
        self._close()
        task = RlTask.from_trl(row)
        self._context = self._portal.wrap_async_context_manager(
            McpEpisode(self._arena_url, task, call_timeout_s=self._call_timeout_s)
        )
        self._episode = self._context.__enter__()
        self._rollout = None
        self._stats.episodes += 1
        return None

    def _call(self, name: str, arguments: dict[str, Any]) -> str:
        if self._episode is None:
            return "Error: no open episode (reset was not called)"
        episode = self._episode
        note = arguments.pop(REPAIR_KEY, None)
        repair = ArgumentRepair.model_validate(note) if note is not None else None
        turn = len(episode.records) + 1
        text = self._portal.call(lambda: episode.call(name, arguments, turn=turn, repair=repair))
        recorded = episode.records[-1].repair
        self._stats.calls += 1
        self._stats.argument_repairs += recorded is not None
        self._stats.unparsable_arguments += recorded is not None and not recorded.ok
        return text

    def _finish(self) -> _Rollout | None:
        """Score the rollout (F1 reward with its parts) and close its session; None if none was started."""
        if self._episode is not None and self._rollout is None:
            trajectory = self._episode.trajectory()
            self._rollout = _Rollout(trajectory=trajectory, reward=self._episode.reward())
        self._close()
        return self._rollout

    def _close(self) -> None:
        if self._context is not None:
            context, self._context, self._episode = self._context, None, None
            context.__exit__(None, None, None)


def env_stats(env: McpToolEnv) -> EnvStats:
    """What `env` did so far: rollouts, calls and argument repairs."""
    return env._stats


def env_class(env: Environment, distractors: Sequence[ToolSpec]) -> type[McpToolEnv]:
    """A `McpToolEnv` subclass whose methods are the env's tools plus its distractors."""
    own = {t.name for t in env.spec.tools}
    tools = list(env.spec.tools) + [t for t in distractors if t.name not in own]
    methods = {t.name: tool_method(t) for t in tools if t.name not in _RESERVED and not t.name.startswith("_")}
    return type(f"Env_{env.spec.id.replace('-', '_')}", (McpToolEnv,), methods)


def environment_factories(
    tasks: Sequence[RlTask], envs: dict[str, Environment], portal: BlockingPortal, arena_url: str, *, call_timeout_s: float = 30.0
) -> dict[str, Callable[[], McpToolEnv]]:
    """`{env_id: factory}` for GRPOTrainer's multi-environment mode (rows select by `environment`)."""
    factories: dict[str, Callable[[], McpToolEnv]] = {}
    for task in tasks:
        if task.env_id in factories:
            continue
        distractors = []
        for ref in task.distractors:
            source_id, _, name = ref.partition(".")
            tool = envs[source_id].spec.tool(name) if source_id in envs else None
            if tool is not None:
                distractors.append(tool)
        cls = env_class(envs[task.env_id], distractors)
        factories[task.env_id] = lambda cls=cls: cls(portal, arena_url, call_timeout_s=call_timeout_s)
    return factories


def f1_reward_func(environments: Sequence[McpToolEnv] | None = None, log_metric: Any = None, **_: Any) -> list[float]:
    """TRL reward function: each rollout's F1 reward from its MCP session (closing the session).

    Also logs, averaged per rollout, the F1 parts and what the parser made of the policy's
    text: `tools/parsed_calls` (calls that reached the episode), `tools/argument_repairs`
    (calls whose arguments were not strict JSON) and `tools/unparsable_arguments`.
    """
    rollouts = [env._finish() for env in environments or []]
    rewards = [float(r.reward.reward) if r is not None else 0.0 for r in rollouts]
    scored = [r for r in rollouts if r is not None]
    if log_metric is not None and scored:
        per_rollout = {
            "f1/calls": [r.reward.c for r in scored],
            "f1/solved": [r.reward.n_hat for r in scored],
            "f1/recall": [r.reward.recall for r in scored],
            "tools/parsed_calls": [len(r.trajectory.tool_calls) for r in scored],
            "tools/argument_repairs": [len(r.trajectory.repairs) for r in scored],
            "tools/unparsable_arguments": [sum(not x.ok for x in r.trajectory.repairs) for r in scored],
        }
        for name, values in per_rollout.items():
            log_metric(name, sum(values) / len(values))
    return rewards
