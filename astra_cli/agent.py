"""`astra agent run`: a model as an MCP client agent on one question, pretty-printed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from astra_cli._apps import agent_app
from astra_cli._model_options import ApiKeyOption, BackendOption, PolicyOption, check_backend

_MAX_SHOWN = 600


@agent_app.command("run")
def run(
    question: Annotated[str | None, typer.Argument(help="The task. Default: the task of the environment given with --server.")] = None,
    server: Annotated[
        list[str],
        typer.Option("--server", "-s", help="MCP server: environment directory, Streamable HTTP URL or stdio command line. Repeatable."),
    ] = [],  # noqa: B006 (typer reads the default, never mutates it)
    policy: PolicyOption = None,
    model_name: Annotated[str | None, typer.Option(help="Model name to request at the --policy URL.")] = None,
    api_key: ApiKeyOption = None,
    backend: BackendOption = "local",
    max_turns: Annotated[int, typer.Option(min=1, help="Most model requests.")] = 16,
    temperature: Annotated[float | None, typer.Option(help="Sampling temperature.")] = 0.0,
    max_tokens: Annotated[int, typer.Option(min=1, help="Most new tokens per model request.")] = 512,
    timeout: Annotated[float, typer.Option(help="Per tool call timeout in seconds.")] = 30.0,
    allow: Annotated[list[str], typer.Option(help="Only expose tools matching this glob. Repeatable.")] = [],  # noqa: B006
    deny: Annotated[list[str], typer.Option(help="Hide tools matching this glob. Repeatable.")] = [],  # noqa: B006
    system_prompt: Annotated[str | None, typer.Option(help="System prompt (default: a short built-in one).")] = None,
    json_out: Annotated[Path | None, typer.Option("--json", help="Also write the trajectory as JSON here.")] = None,
) -> None:
    """Run a model as an MCP client agent on QUESTION and print the trajectory."""
    import anyio

    from agent_sdk import DEFAULT_SYSTEM_PROMPT, Agent, SamplingSettings, Toolbox, model_from_target
    from agent_sdk.exceptions import AgentSdkError
    from mcp_servers import EnvLoadError

    console = Console()
    if not server:
        raise typer.BadParameter("give at least one --server", param_hint="--server")
    spec = _single_env_spec(server)
    if question is None:
        if spec is None:
            raise typer.BadParameter("give a QUESTION (or one environment directory as --server)", param_hint="QUESTION")
        question = spec.task.question
    settings = SamplingSettings(temperature=temperature, max_tokens=max_tokens)
    check_backend(backend)
    async def main() -> Any:
        async with model_from_target(
            policy, model_name=model_name, api_key=api_key, backend=backend, settings=settings,  # type: ignore[arg-type]
            announce=lambda line: console.print(line, style="dim", markup=False),
        ) as chat_model:  # fmt: skip
            toolbox = Toolbox(server, timeout_s=timeout, allow=allow or None, deny=deny)
            agent = Agent(chat_model, toolbox, system_prompt=system_prompt or DEFAULT_SYSTEM_PROMPT, max_turns=max_turns, settings=settings)
            return await agent.run(question)

    try:
        trajectory = anyio.run(main)
    except (AgentSdkError, EnvLoadError) as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(1) from exc
    _print(console, trajectory)
    if spec is not None:
        from rl.reward import f1_reward

        parts = f1_reward(trajectory, spec)
        console.print(f"F1 reward on {spec.id}: [bold]{parts.reward:.3f}[/bold] (n={parts.n}, n_hat={parts.n_hat}, c={parts.c})")
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(trajectory.model_dump_json(indent=2) + "\n")
        console.print(f"trajectory written to {json_out}")


def _single_env_spec(servers: list[str]) -> Any:
    """The spec when the only server is one environment directory (so its reward can be shown)."""
    if len(servers) != 1 or not Path(servers[0]).is_dir():
        return None
    from mcp_servers import find_envs, load_env

    dirs = find_envs(servers[0])
    return load_env(dirs[0]).spec if len(dirs) == 1 else None


def _short(text: str | None) -> str:
    text = text or ""
    return text if len(text) <= _MAX_SHOWN else text[:_MAX_SHOWN] + f"… ({len(text) - _MAX_SHOWN} more chars)"


def _print(console: Console, trajectory: Any) -> None:
    console.print(Panel(trajectory.task, title="task", title_align="left"))
    for step in trajectory.steps:
        message = trajectory.messages[step.message_index]
        head = f"turn {step.turn} · model {step.model_latency_s:.2f}s · {step.usage.completion_tokens} tokens"
        if message.content and step.calls:
            console.print(Text(f"{head}\n{_short(message.content)}", style="dim"))
        else:
            console.print(Text(head, style="dim"))
        for record in step.calls:
            call, result = record.call, record.result
            args = json.dumps(call.arguments, ensure_ascii=False)
            repaired = f" [yellow](repaired: {', '.join(record.repair.fixes) or 'failed'})[/yellow]" if record.repair else ""
            console.print(f"  [cyan]→ {call.name}[/cyan]({_escape(args)}){repaired}")
            style = "green" if result.ok else "red"
            label = "ok" if result.ok else result.error_kind or "error"
            console.print(f"    [{style}]{label}[/{style}] {result.latency_s * 1000:.0f} ms: {_escape(_short(result.observation()))}")
    if trajectory.final_answer is not None:
        console.print(Panel(_escape(trajectory.final_answer), title="answer", title_align="left", border_style="green"))
    table = Table(show_header=False, box=None)
    for key, value in (
        ("stop", trajectory.stop_reason + (f" ({trajectory.error})" if trajectory.error else "")),
        ("model", trajectory.model or "?"),
        ("turns", str(trajectory.turns)),
        ("tool calls", f"{len(trajectory.tool_calls)} ({sum(not r.result.ok for r in trajectory.tool_calls)} failed)"),
        ("repairs", str(len(trajectory.repairs))),
        ("tokens", f"{trajectory.usage.prompt_tokens} prompt + {trajectory.usage.completion_tokens} completion"),
        ("wall", f"{trajectory.wall_s:.2f}s"),
    ):
        table.add_row(key, value)
    console.print(table)


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)
