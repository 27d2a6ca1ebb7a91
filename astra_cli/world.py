"""`astra world schema|propose|show` and the world path of `astra env synth --world`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from astra_cli import _model_options as opts
from astra_cli._apps import world_app


@world_app.command("schema")
def schema(out: Annotated[Path | None, typer.Option("--out", help="Write the schema here instead of printing it.")] = None) -> None:
    """The JSON Schema of a world file."""
    from synth.world import World

    text = json.dumps(World.model_json_schema(), indent=2, ensure_ascii=False) + "\n"
    if out is None:
        typer.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")


@world_app.command("show")
def show(
    source: Annotated[Path, typer.Argument(help="A world file (.json/.yaml) or a SQLite file.")],
    rows: Annotated[int, typer.Option("--rows", help="Rows shown per entity.")] = 3,
) -> None:
    """Print a world's entities, relations, derived quantities and first rows (filled from its seed)."""
    from synth.world import fill_rows
    from synth.world.sources import read_sources

    try:
        found = read_sources([source])
    except ValueError as exc:
        raise opts.fail(str(exc)) from exc
    for world in found.worlds:
        world = fill_rows(world)
        typer.echo(f"{world.name} ({world.domain}; {', '.join(world.languages)}; seed {world.seed})")
        for e in world.entities:
            typer.echo(f"  {e.name} [{len(e.rows or [])} rows] key {e.key}: " + ", ".join(f"{f.name}:{f.type}" for f in e.fields))
            for row in (e.rows or [])[:rows]:
                typer.echo(f"    {json.dumps(row, ensure_ascii=False)}")
        for child, via, parent in world.relations:
            typer.echo(f"  {child.name}.{via.name} -> {parent.name}")
        for d in world.derived:
            typer.echo(f"  derived {d.name}: {d.kind} of {d.entity}")


async def _propose(choice: opts.ModelChoice, domains: list[str], out: Path, concurrency: int) -> list[Any]:
    from synth.world.proposals import propose_worlds

    def progress(r: Any) -> None:
        status = f"world {r.world.name}" if r.world else f"refused: {r.reason} {r.detail[:120]}"
        typer.echo(f"{r.domain}: {status} ({r.calls} calls, {r.tokens} tokens, {r.seconds:.0f} s)")

    async with opts.open_model(choice) as llm:
        return await propose_worlds(llm, domains, out, concurrency=concurrency, on_result=progress)


@world_app.command("propose")
def propose(
    inputs: Annotated[list[Path], typer.Argument(help="JSONL domain lists ({\"domain\": ...} rows, e.g. data/astra/knowledge/en/domains.jsonl).")],
    out: Annotated[Path, typer.Option("--out", help="Folder for the world files, proposals.jsonl and the response cache.")],
    limit: Annotated[int | None, typer.Option("--limit", help="Only the first N domains of each list.")] = None,
    concurrency: Annotated[int, typer.Option("--concurrency", help="Requests in flight.")] = 2,
    base_url: opts.BaseUrlOption = None,
    model: opts.ModelOption = None,
    api_key: opts.ApiKeyOption = None,
    backend: opts.BackendOption = "auto",
) -> None:
    """A model proposes each domain's schema and vocabularies; code checks them and writes world files.

    Re-running resumes: domains already in OUT/proposals.jsonl are not asked again.
    """
    import anyio

    from synth.world.sources import read_domains

    opts.check_backend(backend)
    try:
        domains = [d for path in inputs for d in read_domains(path, limit)]
    except (OSError, ValueError) as exc:
        raise opts.fail(str(exc)) from exc
    out.mkdir(parents=True, exist_ok=True)
    choice = opts.ModelChoice(base_url=base_url, model=model, api_key=api_key, backend=backend, max_concurrency=concurrency)
    results = anyio.run(_propose, choice, domains, out, concurrency)
    accepted = [r for r in results if r.world is not None]
    calls = sum(r.calls for r in results)
    tokens = sum(r.tokens for r in results)
    seconds = sum(r.seconds for r in results)
    per = max(1, len(accepted))
    typer.echo(f"{len(accepted)}/{len(results)} domains became worlds in {out}; {calls} calls, {tokens} tokens, {seconds:.0f} s "
               f"({calls / per:.1f} calls, {tokens / per:.0f} tokens, {seconds / per:.0f} s per accepted world)")  # fmt: skip


def synth_worlds(sources: list[Path], out: Path, *, per_world: int, per_shape: int, seed: int, row_cap: int, limit: int | None,
                 unsafe: bool, choice: opts.ModelChoice, rewrite: bool = False) -> None:  # fmt: skip
    """`astra env synth --world ...`: worlds (and domains, proposed first) -> verified environments in OUT/envs."""
    from contextlib import AsyncExitStack

    import anyio

    from mcp_servers import SandboxConfig
    from synth.env import embedder_installed, load_embedder
    from synth.world import WorldSynthConfig, load_world_file, synthesize_from_worlds
    from synth.world.sources import read_sources

    try:
        found = read_sources(sources, row_cap=row_cap, limit=limit)
    except (OSError, ValueError) as exc:
        raise opts.fail(str(exc)) from exc
    for file, tables in found.skipped_tables.items():
        for table, why in tables.items():
            typer.echo(f"{file}: table {table} left out: {why}", err=True)
    worlds = list(found.worlds)
    if found.domains:
        proposed = out / "proposed"
        proposed.mkdir(parents=True, exist_ok=True)
        results = anyio.run(_propose, choice, found.domains, proposed, choice.max_concurrency)
        worlds += [load_world_file(proposed / f"{r.world.name}.json") for r in results if r.world is not None]
    if not worlds:
        raise opts.fail("no world to build: every domain was refused (see proposals.jsonl)")
    embedder = load_embedder() if embedder_installed() else None
    config = WorldSynthConfig(per_world=per_world, per_shape=per_shape, seed=seed)

    async def main() -> Any:
        async with AsyncExitStack() as stack:
            sandbox = await stack.enter_async_context(SandboxConfig.from_env(unsafe=unsafe).build())
            rewriter = await stack.enter_async_context(opts.open_model(choice)) if rewrite else None
            return await synthesize_from_worlds(worlds, out, config, sandbox=sandbox, embedder=embedder, rewriter=rewriter)

    try:
        stats = anyio.run(main)
    except ValueError as exc:
        raise opts.fail(str(exc)) from exc
    typer.echo(f"{stats.written} environments from {stats.worlds} worlds in {out / 'envs'} (all verified over MCP)")
    typer.echo(f"walks {stats.walks}, built {stats.built}; scenarios {json.dumps(stats.scenarios)}; languages {json.dumps(stats.languages)}")
    typer.echo(f"hops {json.dumps(dict(sorted(stats.hops.items())))}; rejected {json.dumps(stats.rejected)}")
    if rewrite:
        typer.echo(f"questions reworded by the model: {stats.rewrites.get('kept', 0)} kept, {stats.rewrites.get('refused', 0)} left as templated")
    typer.echo(f"seconds {json.dumps(stats.seconds)}; funnel in {out / 'stats.json'}, rejections in {out / 'rejected.jsonl'}")
