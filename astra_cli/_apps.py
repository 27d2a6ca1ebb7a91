"""The typer apps every command module registers on."""

from __future__ import annotations

import typer

app = typer.Typer(help="astra-mcp: tool environments as MCP servers, synthesis, training, evals.", no_args_is_help=True)
env_app = typer.Typer(help="Environments: schema, serve, emit, verify, synth, import.", no_args_is_help=True)
arena_app = typer.Typer(help="Serve many environments in one process.", no_args_is_help=True)
agent_app = typer.Typer(help="Run a model as an MCP client agent.", no_args_is_help=True)
model_app = typer.Typer(help="Serve models behind an OpenAI-compatible endpoint.", no_args_is_help=True)
sft_app = typer.Typer(help="SFT data synthesis and training.", no_args_is_help=True)
rl_app = typer.Typer(help="RL datasets and GRPO training.", no_args_is_help=True)
world_app = typer.Typer(help="Worlds: typed databases that environments are built from (schema, show, propose).", no_args_is_help=True)
judge_app = typer.Typer(help="Measure the LLM judges on good / planted-bad pairs.", no_args_is_help=True)

app.add_typer(env_app, name="env")
app.add_typer(arena_app, name="arena")
app.add_typer(agent_app, name="agent")
app.add_typer(model_app, name="model")
app.add_typer(sft_app, name="sft")
app.add_typer(rl_app, name="rl")
app.add_typer(judge_app, name="judge")
app.add_typer(world_app, name="world")
