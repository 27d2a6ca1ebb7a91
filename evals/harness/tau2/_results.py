"""tau2's native results file (`Results`: info, tasks, simulations), as `tau2 view` loads it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["write_results"]


def write_results(
    path: Path,
    domain: str,
    tasks: Sequence[Any],
    simulations: Sequence[dict[str, Any]],
    *,
    agent: str,
    user: str | None,
    trials: int,
    solo_mode: bool,
    max_exchanges: int,
) -> Path:
    """Save the episodes of one domain as a tau2 `Results` JSON file and return its path."""
    from tau2.data_model.simulation import AgentInfo, Info, Results, UserInfo
    from tau2.registry import registry

    env = registry.get_env_constructor(domain)(solo_mode=solo_mode)
    info = Info(
        git_commit="",
        num_trials=trials,
        max_steps=max_exchanges,
        max_errors=0,
        user_info=UserInfo(implementation="none (solo)" if solo_mode else "astra-mcp ChatModel user simulator", llm=user),
        agent_info=AgentInfo(implementation="astra-mcp agent over MCP (agent_sdk Toolbox)", llm=agent),
        environment_info=env.get_info(),
    )
    results = Results.model_validate(
        {"info": info.model_dump(mode="json"), "tasks": [t.model_dump(mode="json") for t in tasks],
         "simulations": list(simulations)}
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    results.save(path)
    return path
