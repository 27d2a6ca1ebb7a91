"""`astra env synth` (QA/corpus/domain rows -> verified environments) and `astra env import`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from astra_cli import _model_options as opts
from astra_cli._apps import env_app


@env_app.command("synth")
def synth(
    out: Annotated[Path, typer.Option("--out", help="Output directory: stage JSONL, rejected.jsonl, stats.json, envs/.")],
    inputs: Annotated[
        list[Path] | None,
        typer.Option("--input", help="Input JSONL (repeatable): {question, domain}, {domain, knowledge_corpus} or {domain} rows."),
    ] = None,
    limit: Annotated[int | None, typer.Option("--limit", help="Read only the first N rows of each input.")] = None,
    stage: Annotated[list[str] | None, typer.Option("--stage", help="Run only these stages (repeatable).")] = None,
    config: Annotated[Path | None, typer.Option("--config", help="JSON file of SynthConfig fields (thresholds, retries, ...).")] = None,
    min_hops: Annotated[int | None, typer.Option("--min-hops", help="Fewest sub-questions for corpus/domain rows (default 2).")] = None,
    max_hops: Annotated[int | None, typer.Option("--max-hops", help="Most sub-questions (default 4).")] = None,
    base_url: opts.BaseUrlOption = None,
    model: opts.ModelOption = None,
    api_key: opts.ApiKeyOption = None,
    backend: opts.BackendOption = "auto",
    judge_base_url: opts.JudgeBaseUrlOption = None,
    judge_model: opts.JudgeModelOption = None,
    concurrency: Annotated[int | None, typer.Option("--concurrency", help="LLM requests in flight (default 8).")] = None,
    benchmarks: Annotated[
        list[Path] | None, typer.Option("--benchmark", help="Benchmark question file for the leak audit (repeatable; default: all installed).")
    ] = None,
    no_leak_audit: Annotated[bool, typer.Option("--no-leak-audit", help="Skip the benchmark leak audit.")] = False,
    unsafe: Annotated[bool, typer.Option("--unsafe-no-sandbox", help="Run tool code without isolation.")] = False,
    report: Annotated[bool, typer.Option("--report", help="Render PNG plots of the funnel and distributions (alone: only render).")] = False,
    worlds: Annotated[
        list[Path] | None,
        typer.Option("--world", help="World source (repeatable): a SQLite file, a world file (.json/.yaml), a JSONL domain list, or a folder of them."),
    ] = None,
    per_world: Annotated[int, typer.Option("--per-world", help="With --world: environments per world.")] = 50,
    per_shape: Annotated[int, typer.Option("--per-shape", help="With --world: tasks per path shape, world and language.")] = 1,
    seed: Annotated[int, typer.Option("--seed", help="With --world: seed of the walks (the same seed rebuilds the same environments).")] = 0,
    row_cap: Annotated[int, typer.Option("--row-cap", help="With --world: rows read per SQLite table.")] = 40,
    rewrite: Annotated[
        bool, typer.Option("--rewrite", help="With --world: the model (--base-url/--model) rewords each question as a user would ask it; "
                           "a wording stands only when code finds every given value kept and none added.")
    ] = False,
) -> None:
    """Synthesize verified tool environments; re-running resumes from the stores in --out.

    With --world, code builds them from typed worlds (no model, except to propose the worlds of a
    domain list); otherwise the QA pipeline decomposes --input rows with a model.
    """
    if worlds:
        from astra_cli.world import synth_worlds

        opts.check_backend(backend)
        choice = opts.ModelChoice(base_url=base_url, model=model, api_key=api_key, backend=backend, max_concurrency=concurrency or 2)
        synth_worlds(
            worlds, out, per_world=per_world, per_shape=per_shape, seed=seed, row_cap=row_cap, limit=limit, unsafe=unsafe, choice=choice,
            rewrite=rewrite,
        )  # fmt: skip
        return
    from contextlib import AsyncExitStack

    import anyio

    from agent_sdk import AgentSdkError
    from synth.env import SynthConfig, render_report, synthesize_envs

    if report and not inputs and not stage:
        try:
            paths = render_report(out)
        except FileNotFoundError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from exc
        typer.echo("\n".join(str(p) for p in paths))
        return
    try:
        fields = json.loads(config.read_text()) if config else {}
    except (OSError, ValueError) as exc:
        raise typer.BadParameter(f"{config}: {exc}", param_hint="--config") from exc
    overrides = {"min_hops": min_hops, "max_hops": max_hops, "max_llm_concurrency": concurrency}
    fields.update({k: v for k, v in overrides.items() if v is not None})
    if benchmarks:
        fields["benchmark_files"] = [str(b) for b in benchmarks]
    if no_leak_audit:
        fields["leak_audit"] = False
    if unsafe:
        fields["unsafe_no_sandbox"] = True
    cfg = SynthConfig.model_validate(fields)
    opts.check_backend(backend)
    choice = opts.ModelChoice(
        base_url=base_url, model=model, api_key=api_key, backend=backend,
        max_concurrency=cfg.max_llm_concurrency, timeout_s=cfg.llm_timeout_s,
    )  # fmt: skip
    for path in inputs or []:
        if not path.is_file():
            raise typer.BadParameter(f"{path}: no such file", param_hint="--input")
    if not inputs and not (out / "seeds.jsonl").is_file():
        # before a model is started for nothing
        raise opts.fail(f"no input: pass --input files or run in a directory with seeds.jsonl ({out})")

    async def main():  # type: ignore[no-untyped-def]
        async with AsyncExitStack() as stack:
            llm = await stack.enter_async_context(opts.open_model(choice))
            judge = await opts.open_companion(stack, choice, llm, base_url=judge_base_url, model=judge_model, role="judge")
            return await synthesize_envs(llm, out, inputs=inputs or [], config=cfg, stages=stage, limit=limit, judge_model=judge)

    from synth.exceptions import LeakAuditUnavailable

    try:
        result = anyio.run(main)
    except (ValueError, LeakAuditUnavailable, AgentSdkError) as exc:
        raise opts.fail(str(exc)) from exc
    stats = result.stats
    for err in stats.input_errors:
        typer.echo(f"input error: {err}", err=True)
    typer.echo(f"{'stage':<12}{'seen':>6}{'accepted':>10}{'rejected':>10}  reasons")
    for row in stats.funnel:
        typer.echo(f"{row.stage:<12}{row.seen:>6}{row.accepted:>10}{row.rejected:>10}  {json.dumps(row.reasons)}")
    c = stats.llm_last_run
    typer.echo(
        f"{stats.outputs} environments in {out / 'envs'}; this run: {c.calls} LLM calls ({c.cache_hits} cached, {c.errors} failed), "
        f"{c.syntax_failures} of {c.structured_replies} structured replies failed on syntax, "
        f"{c.prompt_tokens}+{c.completion_tokens} tokens, {stats.wall_time_s_last_run:.1f} s"
    )
    if report:
        typer.echo("\n".join(str(p) for p in render_report(out)))


@env_app.command("import")
def import_(
    inputs: Annotated[
        list[Path],
        typer.Argument(help="JSONL files of ASTRA rows: env_synthesis pipeline output or released RL rows (tool_schema, tool_dict, sub_qa_dict)."),
    ],
    out: Annotated[Path, typer.Option("--out", help="Output directory: envs/ and import_report.jsonl.")],
    limit: Annotated[int | None, typer.Option("--limit", help="Read only the first N rows of each file.")] = None,
    min_verify_score: Annotated[
        float | None, typer.Option("--min-verify-score", help="Reject rows whose verify_result.score is below this (ASTRA's step-4 threshold).")
    ] = None,
    max_calls: Annotated[
        int, typer.Option("--max-calls", min=1, help="Tool calls tried per sub-question when searching for a golden call.")
    ] = 300,
    unsafe: Annotated[bool, typer.Option("--unsafe-no-sandbox", help="Run tool code without isolation.")] = False,
) -> None:
    """Convert ASTRA rows into environments, verify them, and report every defect per row.

    Sub-questions without a golden call get one only by running the row's own tools; rows
    ASTRA itself would skip are reported as rejected.
    """
    import anyio

    from mcp_servers import SandboxConfig
    from synth.env import import_envs
    from synth.env.importer import SearchLimits

    for path in inputs:
        if not path.is_file():
            raise typer.BadParameter(f"{path}: no such file", param_hint="INPUTS")

    async def main():  # type: ignore[no-untyped-def]
        async with SandboxConfig.from_env(unsafe=unsafe).build() as sandbox:
            return await import_envs(
                inputs, out, sandbox=sandbox, limit=limit, limits=SearchLimits(max_calls=max_calls), min_verify_score=min_verify_score
            )

    records = anyio.run(main)
    for r in records:
        codes = ", ".join(sorted({d.code for d in r.defects})) or "-"
        status = "REJECT" if r.rejected else "PASS" if r.passed else "FAIL"
        typer.echo(f"{status:<6}  {r.ref}  {r.env_id or '-'}  {codes}")
    passed = sum(r.passed for r in records)
    rejected = sum(r.rejected for r in records)
    typer.echo(
        f"{passed}/{len(records)} rows imported into {out / 'envs'}, {rejected} rejected as ASTRA would; defects in {out / 'import_report.jsonl'}"
    )
    if passed + rejected < len(records):
        raise typer.Exit(1)
