"""Start the arena, then veRL's trainer against it (`astra rl train --engine verl`)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import anyio

from rl.datasets import load_envs
from rl.verl._config import VerlRecipe, check_recipe, require_gpu, verl_command


async def launch_verl(recipe: VerlRecipe, envs_dir: Path, workdir: Path, *, host: str = "127.0.0.1", port: int = 0) -> int:
    """Serve `envs_dir` as an arena and run veRL's trainer until it exits; returns its exit code.

    `recipe.arena_url` is replaced by the address of the arena started here. With several
    nodes, bind `host` to an address the rollout workers reach.

    Raises:
        TrainingSetupError: when no GPU is visible, or veRL's `validate_config` rejects the recipe
            (checked here, before the arena starts, rather than in the trainer process).
    """
    from mcp_servers import SandboxConfig, serve_arena

    require_gpu()
    check_recipe(recipe, workdir / "agent_loops.yaml")
    envs = load_envs(envs_dir)
    # Every rollout worker of the node calls into this one arena: a worker per core unless ASTRA_SANDBOX_WORKERS says otherwise.
    workers = None if os.environ.get("ASTRA_SANDBOX_WORKERS") else max(2, os.cpu_count() or 2)
    async with serve_arena(envs, SandboxConfig.from_env(workers=workers), host=host, port=port) as arena:
        recipe = recipe.model_copy(update={"arena_url": arena.base_url})
        command = verl_command(recipe, workdir)
        env = {**os.environ, "ASTRA_ARENA_URL": recipe.arena_url}
        process = await anyio.run_process(command, stdout=None, stderr=None, check=False, env=env)
    return process.returncode


def print_command(recipe: VerlRecipe, workdir: Path) -> str:
    """The veRL command line the launcher would run (for `--dry-run`), once veRL's `validate_config` accepts it.

    Raises:
        TrainingSetupError: when veRL rejects the recipe.
    """
    check_recipe(recipe, workdir / "agent_loops.yaml")
    return subprocess.list2cmdline(verl_command(recipe, workdir))
