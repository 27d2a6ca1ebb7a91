"""`astra checks`: the catalogue of every check's codes (`synth.catalogue`)."""

from __future__ import annotations

from typing import Annotated

import typer

from astra_cli._apps import app


@app.command("checks")
def checks(
    family: Annotated[list[str] | None, typer.Option("--family", metavar="NAME", help="Only this family of checks (repeatable).")] = None,
    markdown: Annotated[bool, typer.Option("--markdown", help="Print the docs page (docs/checks.md) instead.")] = False,
) -> None:
    """Print every code a check can emit, with its meaning and a failing example, by family."""
    from synth.catalogue import FAMILIES, load_catalogue

    unknown = [f for f in family or [] if f not in FAMILIES]
    if unknown:
        raise typer.BadParameter(f"{unknown}: families are {', '.join(FAMILIES)}", param_hint="--family")
    if markdown and family:
        raise typer.BadParameter("the docs page holds every family: leave out --family", param_hint="--markdown")
    catalogue = load_catalogue()
    typer.echo(catalogue.markdown() if markdown else catalogue.text(family), nl=False)
