"""TRL environments backed by arena MCP sessions.

TRL's GRPOTrainer (environment mode) exposes an environment's public methods as tools,
reading each one's signature, type hints and Google-style docstring, and calls `reset(**row)`
before each rollout. Our tools are MCP tools known only from their JSON Schemas, so for each
environment (its own tools plus its sample's distractors) we build a class whose methods
carry a signature and docstring derived from those schemas; each call goes through the
rollout's `McpEpisode`, so the arena runs the real code and the call is recorded for the F1
reward. TRL is synchronous: the MCP sessions live on an anyio blocking portal (an event
loop in a helper thread, which TRL forces on us), shared with the in-process arena.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Sequence
from typing import Any

from anyio.from_thread import BlockingPortal

from mcp_servers import Environment, ToolSpec
from rl._episode import McpEpisode
from rl.datasets import RlTask

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


class McpToolEnv:
    """Base of the generated environment classes: one MCP session per rollout.

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
        self.episode: McpEpisode | None = None
        self.last_reward: Any = None
        self.episodes = 0
        """Rollouts started on this instance (each one MCP session)."""
        self.calls = 0
        """Tool calls made through this instance."""

    def reset(self, **row: Any) -> None:
        """Start a rollout of `row` (a TRL row from `prepare`): a fresh MCP session."""
        self._close()
        task = RlTask.from_trl(row)
        self._context = self._portal.wrap_async_context_manager(
            McpEpisode(self._arena_url, task, call_timeout_s=self._call_timeout_s)
        )
        self.episode = self._context.__enter__()
        self.last_reward = None
        self.episodes += 1
        return None

    def _call(self, name: str, arguments: dict[str, Any]) -> str:
        if self.episode is None:
            return "Error: no open episode (reset was not called)"
        episode = self.episode
        self.calls += 1
        return self._portal.call(lambda: episode.call(name, arguments, turn=len(episode.records) + 1))

    def finish(self) -> Any:
        """Score the rollout (F1 reward with its parts) and close its session."""
        if self.episode is not None and self.last_reward is None:
            self.last_reward = self.episode.reward()
        self._close()
        return self.last_reward

    def _close(self) -> None:
        if self._context is not None:
            context, self._context, self.episode = self._context, None, None
            context.__exit__(None, None, None)


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
    """TRL reward function: each rollout's F1 reward from its MCP session (closing the session)."""
    rewards = []
    parts = []
    for env in environments or []:
        result = env.finish()
        parts.append(result)
        rewards.append(float(result.reward) if result is not None else 0.0)
    if log_metric is not None and parts:
        scored = [p for p in parts if p is not None]
        if scored:
            log_metric("f1/calls", sum(p.c for p in scored) / len(scored))
            log_metric("f1/solved", sum(p.n_hat for p in scored) / len(scored))
            log_metric("f1/recall", sum(p.recall for p in scored) / len(scored))
    return rewards
