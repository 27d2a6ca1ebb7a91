"""`astra demo`: the main job, end to end on the embedded default with no network.

Verify the bundled environments, serve them from an arena, serve the embedded model
(vLLM on the CPU, the transformers backend as fallback), run the model as an MCP client
agent on every environment concurrently, score each episode with the F1 reward, write the
trajectories and print a table.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import anyio
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from astra_cli._apps import app
from astra_cli._model_options import BackendOption, PolicyOption, check_backend

if TYPE_CHECKING:
    from mcp_servers import RunningArena

_EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "envs"


async def _golden_table(arena: RunningArena, envs: list[Any]) -> Table:
    """One golden call per environment, made over MCP through the arena."""
    from mcp import Client

    table = Table(title="arena: a golden call per environment, over MCP")
    for column in ("env", "tools", "subtasks", "golden call", "output"):
        table.add_column(column, overflow="fold")
    for env in envs:
        subtask = next(s for s in env.spec.subtasks if s.golden_call is not None)
        call = subtask.golden_call
        async with Client(arena.url(env.spec.id)) as client:
            result = await client.call_tool(call.tool, call.arguments)
        output = result.content[0].text if result.content else ""
        args = json.dumps(call.arguments, ensure_ascii=False)
        table.add_row(env.path.name, str(len(env.spec.tools)), str(len(env.spec.subtasks)), f"{call.tool}({args})", output[:120])
    return table


async def _episode(arena: RunningArena, env: Any, model: Any, max_turns: int) -> dict[str, Any]:
    from agent_sdk import Agent, Toolbox
    from rl.reward import f1_reward

    toolbox = Toolbox(arena.url(env.spec.id), timeout_s=env.spec.limits.call_timeout_s + 5)
    trajectory = await Agent(model, toolbox, max_turns=max_turns).run(env.spec.task.question, metadata={"env_id": env.spec.id})
    parts = f1_reward(trajectory, env.spec)
    trajectory.metadata["reward"] = parts.model_dump()
    return {"env": env, "trajectory": trajectory, "reward": parts}


async def _run_demo(envs_dir: Path, policy: str | None, backend: str, out: Path, concurrency: int, max_turns: int, console: Console) -> float:
    from agent_sdk import SamplingSettings, VllmOptions, model_from_target, write_trajectories_jsonl
    from mcp_servers import SandboxConfig, load_env, serve_arena, verify_paths

    started = time.monotonic()
    async with SandboxConfig.from_env().build() as sandbox:
        report = await verify_paths([envs_dir], sandbox=sandbox)
        console.print(report.table())
        envs = [load_env(Path(r.path)) for r in report.envs if r.passed and r.path]
        if not envs:
            raise typer.Exit(1)
        async with serve_arena(envs, sandbox) as arena:
            console.print(f"arena: {len(envs)} environments at {arena.base_url}/envs/<env_id>/mcp")
            console.print(await _golden_table(arena, envs))
            settings = SamplingSettings(temperature=0.0, max_tokens=256)
            async with model_from_target(
                policy, backend=backend, settings=settings, max_concurrency=concurrency,  # type: ignore[arg-type]
                vllm_options=VllmOptions(), announce=lambda line: console.print(line, markup=False),
            ) as model:  # fmt: skip
                results: list[dict[str, Any]] = []
                limiter = anyio.CapacityLimiter(concurrency)
                columns = (TextColumn("episodes"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
                with Progress(*columns, console=console) as progress:
                    task = progress.add_task("episodes", total=len(envs))

                    async def one(env: Any) -> None:
                        async with limiter:
                            results.append(await _episode(arena, env, model, max_turns))
                        progress.advance(task)

                    async with anyio.create_task_group() as episodes:
                        for env in envs:
                            episodes.start_soon(one, env)
    results.sort(key=lambda r: r["env"].path.name)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_trajectories_jsonl([r["trajectory"] for r in results], out)
    table = Table(title="astra demo: embedded model as an MCP agent on the example environments")
    for column in ("env", "lang", "scenario", "turns", "calls", "n_hat/n", "reward", "stop"):
        table.add_column(column, no_wrap=True)
    for r in results:
        env, traj, parts = r["env"], r["trajectory"], r["reward"]
        table.add_row(
            env.path.name, env.spec.language, env.spec.task.scenario, str(traj.turns), str(len(traj.tool_calls)),
            f"{parts.n_hat}/{parts.n}", f"{parts.reward:.2f}", str(traj.stop_reason),
        )
    console.print(table)
    mean = sum(r["reward"].reward for r in results) / len(results)
    summary = {"mean_reward": mean, "episodes": len(results), "wall_s": round(time.monotonic() - started, 1), "trajectories": str(out)}
    console.print(f"mean reward {mean:.3f} over {len(results)} episodes in {summary['wall_s']} s; trajectories: {out}")
    (out.parent / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return mean


@app.command("demo")
def demo(
    envs: Annotated[Path, typer.Option(help="Directory of environments.")] = _EXAMPLES,
    policy: PolicyOption = None,
    backend: BackendOption = "auto",
    out: Annotated[Path, typer.Option(help="Where to write trajectories JSONL.")] = Path("runs/demo/trajectories.jsonl"),
    concurrency: Annotated[int, typer.Option(help="Episodes in flight at once.")] = 16,
    max_turns: Annotated[int, typer.Option(help="Model requests per episode.")] = 6,
) -> None:
    """Verify the examples, serve them and the embedded model, run the agent, score with F1."""
    check_backend(backend)
    # Wide enough for the results table even when the output is piped.
    console = Console(width=max(Console().width, 110))
    from agent_sdk import AgentSdkError
    from mcp_servers import McpServersError

    try:
        anyio.run(lambda: _run_demo(envs, policy, backend, out, concurrency, max_turns, console))
    except (AgentSdkError, McpServersError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
