"""`astra env audit`: the leak audit of a corpus against the development set and the benchmarks."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from astra_cli._apps import env_app
from astra_cli._model_options import fail

_EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "envs"


@env_app.command("audit")
def audit(
    envs_dir: Annotated[Path, typer.Argument(help="The corpus' environments directory (CORPUS/envs).")],
    sft: Annotated[Path | None, typer.Option("--sft", help="The corpus' SFT rows (CORPUS/sft.jsonl).")] = None,
    against: Annotated[list[Path] | None, typer.Option("--against", help="Environments the corpus must not contain (default: examples/envs; repeatable).")] = None,
    benchmark: Annotated[list[Path] | None, typer.Option("--benchmark", help="Benchmark question files (default: all installed).")] = None,
    threshold: Annotated[float, typer.Option(help="Cosine at or above which two questions are one.")] = 0.9,
    apply: Annotated[bool, typer.Option("--apply", help="Move what is flagged aside (CORPUS/leaked/, leaked_sft.jsonl) and write CORPUS/audit.json.")] = False,
) -> None:
    """Check every environment id, question, sub-question, SFT task, tool entity and answer of a corpus; exit 1 on a finding."""
    import anyio

    from agent_sdk import JsonlError, read_jsonl
    from mcp_servers import McpServersError, load_envs
    from synth.env import apply_audit, audit_corpus

    if not envs_dir.is_dir():
        raise fail(f"{envs_dir}: no such directory")
    for path, option in [*([(sft, "--sft")] if sft is not None else []), *((b, "--benchmark") for b in benchmark or [])]:
        if not path.is_file():
            raise fail(f"{option} {path}: no such file")
    try:
        envs = load_envs(envs_dir)
        references = load_envs(*(against or [_EXAMPLES]))
        rows = read_jsonl(sft).values if sft is not None else []
    except (McpServersError, JsonlError) as exc:
        typer.secho(str(exc), err=True, fg="red")
        raise typer.Exit(2) from exc
    result = anyio.run(lambda: audit_corpus(envs, rows, reference_envs=references, benchmark_files=benchmark, threshold=threshold))
    for f in result.findings:
        typer.echo(f"{f.item}: {f.kind}: {f.text[:100]!r} ~ {f.matched[:100]!r} ({f.reference}, {f.score:.3f})", err=True)
    counts = ", ".join(f"{k} {v}" for k, v in sorted(result.counts.items())) or "none"
    typer.echo(
        f"audited {result.envs} environments and {result.sft_rows} SFT rows against {result.references} environments and "
        f"{len(result.benchmarks)} benchmark files: findings {counts}; left out {len(result.left_out_envs)} environments, {len(result.left_out_sft)} SFT rows"
    )
    if apply:
        typer.echo(f"audit: {apply_audit(result, envs_dir, sft)}")
    raise typer.Exit(1 if result.findings and not apply else 0)
