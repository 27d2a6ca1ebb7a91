"""`astra env schema|serve|emit` and `astra arena serve`."""

from __future__ import annotations

import json

import typer

from astra_cli._apps import env_app


@env_app.command("schema")
def schema() -> None:
    """Print the JSON Schema of env.json (EnvSpec)."""
    from mcp_servers import EnvSpec

    typer.echo(json.dumps(EnvSpec.model_json_schema(), indent=2))
