"""`astra demo`: the main job, end to end on the embedded default with no network.

Verify the bundled environments, serve them from an arena, serve the embedded model
(vLLM on the CPU, the transformers backend as fallback), run the model as an MCP client
agent on every environment concurrently (the loop's evaluation, `astra_loop.evaluate`: one
greedy episode each, or with `--episodes k` the sampled protocol with intervals), score each
episode with the F1 reward, write the trajectories and print a table. With `--compare` a second
model (the trained student the project ships, by default) plays the same environments and seeds
after it, one model server at a time, and a third table gives the paired difference of each
metric with its 95% interval.
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
    from agent_sdk import Trajectory
    from astra_loop import EpisodeScore, EvalProtocol, EvalResult
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


async def _play(
    policy: str | None, backend: str, envs_dir: Path, envs: list[Any], protocol: EvalProtocol, concurrency: int, max_turns: int,
    console: Console, sandbox: Any,
) -> tuple[EvalResult, list[Trajectory]]:
    """Serve `policy` and play every environment by `protocol` (the loop's evaluation); its scores and trajectories."""
    from agent_sdk import STUDENT, SamplingSettings, VllmOptions, model_from_target
    from astra_loop import evaluate

    settings = SamplingSettings(temperature=protocol.temperature, top_p=protocol.top_p, max_tokens=256)
    played: list[Trajectory] = []
    async with model_from_target(
        policy, backend=backend, settings=settings, max_concurrency=concurrency,  # type: ignore[arg-type]
        vllm_options=VllmOptions(), announce=lambda line: console.print(line, markup=False),
    ) as model:  # fmt: skip
        columns = (TextColumn(f"episodes of {policy or STUDENT.target}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=console) as progress:
            task = progress.add_task("episodes", total=len(envs) * len(protocol.seeds if protocol.temperature else [None]))

            def scored(score: EpisodeScore, trajectory: Trajectory) -> None:
                trajectory.metadata["reward"] = score.model_dump(include={"reward", "n", "n_hat", "recall", "answer_correct", "c"})
                played.append(trajectory)
                progress.advance(task)

            result = await evaluate(
                model, envs_dir, label="demo", target=policy or STUDENT.target, max_turns=max_turns, concurrency=concurrency,
                protocol=protocol, envs=envs, on_episode=scored, sandbox=sandbox,
            )  # fmt: skip
    played.sort(key=lambda t: (str(t.metadata.get("env_id")), t.metadata.get("seed") or 0))
    return result, played


async def _run_demo(
    envs_dir: Path, policy: str | None, backend: str, out: Path, concurrency: int, max_turns: int, episodes: int, console: Console,
    compare: str | None = None,
) -> float:
    from agent_sdk import write_trajectories_jsonl
    from astra_loop import EvalProtocol
    from mcp_servers import SandboxConfig, load_env, serve_arena, verify_paths

    started = time.monotonic()
    # one greedy episode per environment, or the loop's sampled protocol: k seeds at temperature 0.6, top-p 0.95
    protocol = EvalProtocol.greedy() if episodes == 1 else EvalProtocol(episodes=episodes)
    async with SandboxConfig.from_env().build() as sandbox:
        report = await verify_paths([envs_dir], sandbox=sandbox)
        console.print(report.table())
        envs = [load_env(Path(r.path)) for r in report.envs if r.passed and r.path]
        if not envs:
            raise typer.Exit(1)
        async with serve_arena(envs, sandbox) as arena:
            console.print(f"arena: {len(envs)} environments at {arena.base_url}/envs/<env_id>/mcp")
            console.print(await _golden_table(arena, envs))
        runs = [(policy, out)]
        if compare:
            runs.append((compare, out.with_name(f"{out.stem}-compared{out.suffix}")))
        results = []
        for target, path in runs:
            result, played = await _play(target, backend, envs_dir, envs, protocol, concurrency, max_turns, console, sandbox)
            path.parent.mkdir(parents=True, exist_ok=True)
            write_trajectories_jsonl(played, path)
            results.append(result)
    (out.parent / "eval.json").write_text(results[0].model_dump_json(indent=2) + "\n", encoding="utf-8")
    languages = {env.path.name: (env.spec.language, env.spec.task.scenario) for env in envs}
    for result in results:
        console.print(_episode_table(result, languages) if episodes == 1 else _sampled_table(result, languages))
    result = results[0]
    mean = result.mean_reward
    summary: dict[str, Any] = {"mean_reward": mean, "episodes": len(result.scores), "trajectories": str(out)}
    if episodes > 1:
        summary |= {metric: result.interval(metric).model_dump() for metric in ("reward", "recall", "answer_correct")}
    if compare:
        (out.parent / "eval-compared.json").write_text(results[1].model_dump_json(indent=2) + "\n", encoding="utf-8")
        console.print(_compare_table(results[0], results[1]))
        summary["compare"] = _compare_summary(results[0], results[1])
    summary["wall_s"] = round(time.monotonic() - started, 1)
    console.print(f"mean reward {mean:.3f} over {len(result.scores)} episodes in {summary['wall_s']} s; trajectories: {out}")
    (out.parent / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return mean


def _compare_summary(base: EvalResult, other: EvalResult) -> dict[str, Any]:
    from astra_loop.evaluate import METRICS, paired_difference

    return {
        "model": other.model, "mean_reward": other.mean_reward,
        "difference": {metric: paired_difference(base, other, metric).model_dump() for metric in METRICS},
    }


def _compare_table(base: EvalResult, other: EvalResult) -> Table:
    """Both models' means and the paired difference (same environments, same seeds) with its 95% interval."""
    from astra_loop.evaluate import METRICS, paired_difference

    table = Table(title=f"{other.model} against {base.model}: same environments, same seeds")
    for column in ("metric", base.model, other.model, "difference (95% CI, paired)"):
        table.add_column(column, no_wrap=True)
    names = {"reward": "F1", "recall": "subtask recall", "answer_correct": "answer correctness", "c": "calls per episode"}
    for metric in METRICS:
        diff = paired_difference(base, other, metric)
        before, after = base.env_means(metric).get("mean", 0.0), other.env_means(metric).get("mean", 0.0)
        table.add_row(names[metric], f"{before:.3f}", f"{after:.3f}", f"{diff.mean:+.3f} [{diff.low:+.3f}, {diff.high:+.3f}]")
    return table


def _episode_table(result: EvalResult, languages: dict[str, tuple[str, str]]) -> Table:
    table = Table(title="astra demo: embedded model as an MCP agent on the example environments")
    for column in ("env", "lang", "scenario", "turns", "calls", "n_hat/n", "reward", "stop"):
        table.add_column(column, no_wrap=True)
    for s in result.scores:
        table.add_row(s.env, *languages[s.env], str(s.turns), str(s.c), f"{s.n_hat}/{s.n}", f"{s.reward:.2f}", str(s.stop_reason))
    return table


def _sampled_table(result: EvalResult, languages: dict[str, tuple[str, str]]) -> Table:
    """Per environment the means over its seeded episodes; last, the means with their 95% bootstrap intervals."""
    from astra_loop.evaluate import METRICS
    table = Table(title=f"astra demo: {result.protocol.episodes} sampled episodes per environment (T={result.protocol.temperature}, top-p {result.protocol.top_p})")
    for column in ("env", "lang", "scenario", "F1", "recall", "answer", "calls"):
        table.add_column(column, no_wrap=True)
    means = {metric: result.env_means(metric) for metric in METRICS}
    for env in sorted(means["reward"].keys() - {"mean"}):
        table.add_row(env, *languages[env], *(f"{means[m][env]:.2f}" for m in ("reward", "recall", "answer_correct")), f"{means['c'][env]:.1f}")
    overall = [result.interval(m) for m in METRICS]
    table.add_row("all (95% CI)", "", "", *(f"{i.mean:.3f} [{i.low:.3f}, {i.high:.3f}]" for i in overall[:3]), f"{overall[3].mean:.1f}")
    return table


@app.command("demo")
def demo(
    envs: Annotated[Path, typer.Option(help="Directory of environments.")] = _EXAMPLES,
    policy: PolicyOption = None,
    backend: BackendOption = "auto",
    out: Annotated[Path, typer.Option(help="Where to write trajectories JSONL.")] = Path("runs/demo/trajectories.jsonl"),
    concurrency: Annotated[int, typer.Option(help="Episodes in flight at once.")] = 16,
    max_turns: Annotated[int, typer.Option(help="Model requests per episode.")] = 6,
    episodes: Annotated[
        int, typer.Option(min=1, help="Episodes per environment: 1 plays greedily; k > 1 plays the loop's sampled protocol (k seeds, T 0.6, top-p 0.95) and prints 95% intervals.")
    ] = 1,
    compare: Annotated[
        bool, typer.Option("--compare", help="Also play --trained on the same environments and seeds, and print the paired difference with its 95% interval.")
    ] = False,
    trained: Annotated[str, typer.Option(help="The model --compare plays beside --policy (default: the trained student the project ships).")] = "student-trained",
) -> None:
    """Verify the examples, serve them and the embedded model, run the agent, score with F1 (with --compare, beside the trained student)."""
    check_backend(backend)
    # Wide enough for the results table even when the output is piped.
    console = Console(width=max(Console().width, 110))
    from agent_sdk import AgentSdkError
    from mcp_servers import McpServersError

    try:
        anyio.run(lambda: _run_demo(envs, policy, backend, out, concurrency, max_turns, episodes, console, trained if compare else None))
    except (AgentSdkError, McpServersError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
