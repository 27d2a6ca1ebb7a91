"""`astra env import`: ASTRA's own rows -> verified environments, every defect reported.

Both formats of ASTRA are read (`_import_formats`): the pipeline output of its env_synthesis
(`decomposition_trace` + `env_result`, golden calls from each node's `tool_call_statement`)
and the released RL rows (`tool_schema` + `tool_dict` + `sub_qa_dict`, no golden calls). The
dependency DAG becomes the subtasks' `depends_on`. Sub-questions without a golden call get
one only by running the row's own tools in the sandbox (`_import_search`).

Per row, `import_report.jsonl` holds the outcome: rows ASTRA itself would skip are
`rejected` with the reason; otherwise every defect is listed, by its code of the `env_import` or
`verify` family (`astra checks`), and only rows without defects whose environment passes `verify`
are written.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from agent_sdk import format_validation_error, read_jsonl
from mcp_servers import CheckCode, Environment, GoldenCall, Sandbox, Source, Subtask, Task, dependency_scenario, verify_env
from synth.env._assemble import write_env
from synth.env._import_formats import Defect, ParsedRow, decode, parse_row
from synth.env._import_search import SearchLimits, establish_golden_calls, tools_module
from synth.env._seeds import detect_language
from synth.exceptions import RowError

__all__ = ["CHECK_CODES", "Defect", "ImportRecord", "SearchLimits", "import_envs", "import_row"]

CHECK_CODES: tuple[CheckCode, ...] = CheckCode.load_declarations(__name__)
"""The codes of a row the importer rejects or cannot read (a row's other defects are `verify` codes and `golden_call_missing`)."""

_FORMAT_NAMES = {"pipeline": "env_synthesis pipeline", "rl": "RL"}


class ImportRecord(BaseModel):
    """The outcome of importing one row (one line of `import_report.jsonl`)."""

    ref: str = Field(description="file:line of the row.")
    format: Literal["pipeline", "rl"] | None = Field(default=None, description="Which ASTRA format the row is (None if unreadable).")
    env_id: str | None = Field(default=None, description="The environment's id, when one was built.")
    passed: bool = Field(description="True when the environment was verified and written.")
    rejected: bool = Field(default=False, description="True when ASTRA itself would skip the row; `defects` says why.")
    defects: list[Defect] = Field(default_factory=list)
    found_calls: dict[str, GoldenCall] = Field(
        default_factory=dict, description="Golden calls established by running the row's tools, by subtask id."
    )


def rejection(row: Mapping[str, Any], min_verify_score: float | None) -> Defect | None:
    """Why ASTRA's step 4 would skip this row (`tool_necessity_legitimacy` false, or a
    `verify_result.score` under the threshold), or None."""
    if row.get("tool_necessity_legitimacy") in (False, "false", "False"):
        return Defect(code="tool_necessity_illegitimate", message="tool_necessity_legitimacy is false: ASTRA skips this row")
    verdict = decode(row.get("verify_result"))
    score = verdict.get("score") if isinstance(verdict, dict) else None
    if min_verify_score is not None and score is not None:
        try:
            low = float(score) < min_verify_score
        except (TypeError, ValueError):
            return Defect(code="verify_score_low", message=f"verify_result.score {score!r} is not a number")
        if low:
            return Defect(code="verify_score_low", message=f"verify_result.score {score} is below {min_verify_score}")
    return None


def _final_answer(parsed: ParsedRow) -> str:
    if parsed.answer:
        return parsed.answer
    parents = {d for s in parsed.subtasks for d in s.depends_on}
    return "; ".join(s.answer for s in parsed.subtasks if s.id not in parents)


def _build(parsed: ParsedRow, found: dict[str, GoldenCall], ref: str, domain: str) -> Environment:
    """The environment of a row whose needed golden calls are all known.

    Raises:
        pydantic.ValidationError: when the row breaks the environment contract.
    """
    subtasks = [
        Subtask(id=s.id, question=s.question, answer=s.answer, depends_on=s.depends_on, needs_tool=s.needs_tool,
                golden_call=s.golden_call or found.get(s.id))
        for s in parsed.subtasks
    ]
    return Environment.build(
        tools_module(parsed.tools, header=f"Tools imported from an ASTRA {_FORMAT_NAMES[parsed.kind]} row."),
        domain=parsed.domain or domain,
        language=parsed.language or detect_language(parsed.query),
        source=Source(kind="import", ref=ref),
        task=Task(question=parsed.query, answer=_final_answer(parsed), scenario=dependency_scenario(parsed.subtasks)),
        subtasks=subtasks,
        tools=[t.spec for t in parsed.tools],
    )


async def import_row(
    row: dict[str, Any], ref: str, *, sandbox: Sandbox, limits: SearchLimits | None = None,
    min_verify_score: float | None = None, domain: str = "imported",
) -> tuple[ImportRecord, Environment | None]:
    """Read, complete, build and verify one row; the environment only when it passed."""
    reason = rejection(row, min_verify_score)
    if reason is not None:
        return ImportRecord(ref=ref, passed=False, rejected=True, defects=[reason]), None
    try:
        parsed = parse_row(row)
    except RowError as exc:
        return ImportRecord(ref=ref, passed=False, defects=[Defect(code="malformed_row", message=str(exc))]), None
    found, missing = await establish_golden_calls(parsed, sandbox, limits or SearchLimits())
    record = ImportRecord(ref=ref, format=parsed.kind, passed=False, defects=[*parsed.defects, *missing], found_calls=found)
    if record.defects:
        return record, None
    try:
        env = _build(parsed, found, ref, domain)
    except ValidationError as exc:
        record.defects.append(Defect(code="schema_invalid", message=format_validation_error(exc)))
        return record, None
    report = await verify_env(env, sandbox=sandbox)
    record.env_id = env.spec.id
    record.defects += [Defect(code=f.code, message=f.message, subtask_id=f.subtask_id, tool=f.tool) for f in report.findings]
    record.passed = report.passed
    return record, env if report.passed else None


async def import_envs(
    inputs: list[Path], out_dir: Path, *, sandbox: Sandbox, limit: int | None = None,
    limits: SearchLimits | None = None, min_verify_score: float | None = None,
) -> list[ImportRecord]:
    """Import every row of `inputs`: passing environments go to `out_dir/envs/`, every outcome to
    `out_dir/import_report.jsonl` (in file and line order).

    Args:
        inputs: JSONL files of ASTRA rows (either format, mixed freely).
        out_dir: the output directory (created).
        sandbox: runs the rows' tools, for the golden-call search and for `verify`.
        limit: read only the first `limit` rows of each file.
        limits: bounds on the golden-call search.
        min_verify_score: reject pipeline rows whose `verify_result.score` is below it (ASTRA's
            step-4 `--threshold`); None keeps every score.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    records: list[ImportRecord] = []
    for path in inputs:
        content = read_jsonl(path, on_problem="collect", limit=limit)
        records += [ImportRecord(ref=f"{p.file}:{p.line}", passed=False, defects=[Defect(code="malformed_row", message=p.message)]) for p in content.problems]
        for row in content.rows:
            record, env = await import_row(row.value, row.ref, sandbox=sandbox, limits=limits, min_verify_score=min_verify_score)
            if env is not None:
                write_env(env, out_dir)
            records.append(record)
    records.sort(key=lambda r: (r.ref.rsplit(":", 1)[0], int(r.ref.rsplit(":", 1)[1])))
    (out_dir / "import_report.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in records), encoding="utf-8")
    return records
