"""`astra judge calibrate`: each LLM judge's pairwise accuracy and score spread on the calibration set."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from astra_cli._apps import judge_app
from astra_cli._model_options import ApiKeyOption, BaseUrlOption, ModelChoice, ModelOption, fail, open_model

_DEFAULT_SET = Path(__file__).resolve().parents[1] / "examples" / "calibration"


@judge_app.command("calibrate")
def calibrate(
    calibration: Annotated[
        Path, typer.Option("--set", help="Calibration directory (sft_trajectory.jsonl, task.jsonl, decomposition.jsonl).")
    ] = _DEFAULT_SET,
    judge: Annotated[list[str] | None, typer.Option("--judge", help="Measure only these judges (repeatable; default all).")] = None,
    limit: Annotated[int | None, typer.Option("--limit", help="At most N pairs per judge.")] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Also write the measurements as JSON here.")] = None,
    base_url: BaseUrlOption = None,
    model: ModelOption = None,
    api_key: ApiKeyOption = None,
    concurrency: Annotated[int, typer.Option("--concurrency", help="Items scored at once.")] = 8,
    cache: Annotated[
        Path | None, typer.Option("--cache", help="Reuse judge replies stored here (a rerun after changing one judge asks only its prompts again).")
    ] = None,
) -> None:
    """Score each good / planted-bad pair with every judge (default: the embedded teacher) and print how well each ranks them."""
    import anyio

    from agent_sdk import AgentSdkError, JsonlError
    from synth.calibration import JUDGES
    from synth.core import LLMCache, MeteredModel
    from synth.calibration import calibrate as run_calibration

    unknown = [j for j in judge or [] if j not in JUDGES]
    if unknown:
        raise typer.BadParameter(f"{unknown}: judges are {', '.join(JUDGES)}", param_hint="--judge")
    if not calibration.is_dir():
        raise fail(f"{calibration}: no such calibration directory")
    # a judge reply waits behind every other request on a 2-core server: minutes, not the client's 2-minute default
    choice = ModelChoice(base_url=base_url, model=model, api_key=api_key, timeout_s=600.0)

    async def main():  # type: ignore[no-untyped-def]
        async with open_model(choice) as llm:
            judged = MeteredModel(llm, cache=LLMCache(cache), max_concurrency=concurrency, timeout_s=900.0) if cache else llm
            return await run_calibration(judged, calibration, judges=judge, limit=limit, concurrency=concurrency)

    try:
        results = anyio.run(main)
    except (AgentSdkError, JsonlError, ValueError) as exc:
        raise fail(str(exc)) from exc
    typer.echo(f"{'judge':<16}{'pairs':>6}{'right':>7}{'ties':>6}{'accuracy':>10}{'good':>7}{'bad':>7}{'spread':>8}{'repaired':>9}  by kind")
    for r in results:
        kinds = " ".join(f"{k}={v:.2f}" for k, v in r.by_kind.items())
        typer.echo(
            f"{r.judge:<16}{r.pairs:>6}{r.ranked_right:>7}{r.ties:>6}{r.accuracy:>10.2f}{r.good_mean:>7.2f}{r.bad_mean:>7.2f}{r.spread:>8.2f}{r.repaired:>9}  {kinds}"
        )
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps([r.model_dump() for r in results], indent=2, ensure_ascii=False) + "\n")
