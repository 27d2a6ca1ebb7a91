"""RL datasets from an environments directory: veRL parquet and TRL JSONL.

Each row is one environment's task. veRL rows carry `prompt` (chat messages), `data_source`,
`agent_name` (selecting this project's agent loop), `reward_model.ground_truth` (the env spec
the F1 reward scores against) and `extra_info` (env id and distractor refs). Every per-row
structure whose keys vary (the spec, the distractor list) is stored as a JSON string: parquet
merges differing dict keys into one struct, and veRL would then read `None` for missing keys.

Prompt length: a rollout's prompt is the chat template rendered with the session's tools (the
environment's plus its distractors), so many distractor schemas can push it past the
trainer's `max_prompt_length`, and veRL would left-truncate it without a word (cutting off
the system prompt and tool schemas). Given a `PromptLimit`, `prepare` renders every row as
the rollout will (the policy tokenizer's chat template with those tools) and rejects the
rows that do not fit: counted in the report, listed in `rejected.jsonl`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agent_sdk import DEFAULT_SYSTEM_PROMPT, JsonlError, read_jsonl
from mcp_servers import Environment, EnvLoadError, EnvSpec
from mcp_servers import load_envs as mcp_load_envs
from rl.distractors import Distractor, DistractorConfig, pool_tools_from_docs, sample_distractors
from rl.exceptions import DatasetError, TrainingSetupError

AGENT_NAME = "astra_mcp_agent"
"""The `agent_name` under which `rl.verl` registers its agent loop."""



class RlTask(BaseModel):
    """What one rollout needs: the environment to open, its distractors, the prompt and the spec to score."""

    model_config = ConfigDict(frozen=True)

    env_id: str
    domain: str
    prompt: list[dict[str, str]] = Field(description="Chat messages (system + user).")
    distractors: list[str] = Field(default_factory=list, description="`<env_id>.<tool>` refs served with the env.")
    spec: EnvSpec = Field(description="The environment spec (subtasks and answers) the reward scores against.")

    @property
    def distractor_names(self) -> list[str]:
        """Tool names of the distractors, as the model sees them."""
        return [ref.partition(".")[2] for ref in self.distractors]

    def verl_row(self, index: int, split: str) -> dict[str, Any]:
        """The veRL RL parquet row."""
        return {
            "data_source": f"astra/{self.domain}",
            "agent_name": AGENT_NAME,
            "prompt": self.prompt,
            "ability": "tool_use",
            "reward_model": {"style": "rule", "ground_truth": self.spec.model_dump_json(exclude_none=True)},
            "extra_info": {"index": index, "split": split, "env_id": self.env_id, "distractors": json.dumps(self.distractors)},
        }

    def trl_row(self) -> dict[str, Any]:
        """The TRL JSONL row; `environment` selects the env factory in GRPOTrainer's multi-environment mode."""
        return {
            "prompt": self.prompt,
            "environment": self.env_id,
            "env_id": self.env_id,
            "distractors": json.dumps(self.distractors),
            "ground_truth": self.spec.model_dump_json(exclude_none=True),
        }

    @classmethod
    def from_verl(cls, row: dict[str, Any]) -> RlTask:
        """Rebuild a task from a veRL row (as the agent loop receives it).

        Raises:
            DatasetError: naming the missing or malformed field.
        """
        try:
            extra = row["extra_info"]
            spec = EnvSpec.model_validate_json(row["reward_model"]["ground_truth"])
            return cls(
                env_id=extra["env_id"],
                domain=spec.domain,
                prompt=list(row.get("raw_prompt", row.get("prompt", []))),
                distractors=json.loads(extra.get("distractors") or "[]"),
                spec=spec,
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise DatasetError(f"row {row.get('extra_info', {}).get('index', '?')}: not an astra RL row: {exc}") from exc

    @classmethod
    def from_trl(cls, row: dict[str, Any]) -> RlTask:
        """Rebuild a task from a TRL row."""
        spec = EnvSpec.model_validate_json(row["ground_truth"])
        return cls(
            env_id=row["env_id"], domain=spec.domain, prompt=list(row["prompt"]),
            distractors=json.loads(row.get("distractors") or "[]"), spec=spec,
        )


def load_envs(envs_dir: str | Path) -> list[Environment]:
    """Every environment under `envs_dir` (`mcp_servers.load_envs`), at least one.

    Raises:
        DatasetError: when there is none or one fails to load (naming its file and field).
    """
    try:
        envs = mcp_load_envs(envs_dir)
    except EnvLoadError as exc:
        raise DatasetError(str(exc)) from exc
    if not envs:
        raise DatasetError(f"{envs_dir}: no environments (expected */env.json)")
    return envs


def build_tasks(
    envs: Sequence[Environment],
    distractors: dict[str, list[Distractor]] | None = None,
    *,
    system_prompt: str = DEFAULT_SYSTEM_PROMPT,
) -> list[RlTask]:
    """One task per environment: its question as the user message, its sampled distractors."""
    distractors = distractors or {}
    return [
        RlTask(
            env_id=env.spec.id,
            domain=env.spec.domain,
            prompt=[{"role": "system", "content": system_prompt}, {"role": "user", "content": env.spec.task.question}],
            distractors=[d.ref for d in distractors.get(env.spec.id, [])],
            spec=env.spec,
        )
        for env in envs
    ]


def task_tools(task: RlTask, envs: Mapping[str, Environment]) -> list[dict[str, Any]]:
    """The tools a rollout of `task` lists, as OpenAI function schemas: its environment's, then its distractors.

    The arena serves the same list (a distractor named like one of the environment's tools is
    not added), so the rendered prompt here is the one the rollout sends.

    Raises:
        DatasetError: naming an environment or distractor that `envs` does not hold.
    """
    env = envs.get(task.env_id)
    if env is None:
        raise DatasetError(f"unknown environment {task.env_id!r}")
    tools = list(env.spec.tools)
    own = {t.name for t in tools}
    for ref in task.distractors:
        env_id, _, name = ref.partition(".")
        source = envs.get(env_id)
        tool = source.spec.tool(name) if source is not None else None
        if tool is None:
            raise DatasetError(f"{task.env_id}: unknown distractor {ref!r}")
        if tool.name not in own:
            tools.append(tool)
    return [
        {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.input_schema}}
        for t in tools
    ]


def prompt_tokens(tokenizer: Any, prompt: list[dict[str, str]], tools: list[dict[str, Any]]) -> int:
    """Tokens of `prompt` rendered by the tokenizer's chat template with `tools` and the generation prompt."""
    text = tokenizer.apply_chat_template(prompt, tools=tools, add_generation_prompt=True, tokenize=False)
    return len(tokenizer(text, add_special_tokens=False)["input_ids"])


def load_prompt_tokenizer(model: str) -> Any:
    """The tokenizer (and chat template) of the policy `model` trains: a policy target (`rl.resolve_model`).

    It is the tokenizer the trainer uses (`rl._models.local_tokenizer`): a template that renders tool calls.

    Raises:
        DatasetError: when the model cannot be found or has no tokenizer.
    """
    from rl._models import local_tokenizer, resolve_model

    try:
        path = Path(resolve_model(model) or model)
        if not path.exists():
            raise DatasetError(f"{model}: no such model directory or .gguf file (hub names are not fetched; pass a local path)")
        return local_tokenizer(path)
    except TrainingSetupError as exc:
        raise DatasetError(f"{model}: no tokenizer: {exc}") from exc


@dataclass(frozen=True, kw_only=True)
class PromptLimit:
    """The prompt-length check of `prepare`.

    Attributes:
        tokenizer: the policy's tokenizer, whose chat template renders each prompt with its tools, or
            a model target ("embedded", a directory, a `.gguf`) whose tokenizer `prepare` loads once
            the environments have loaded.
        max_prompt_length: the trainer's prompt limit (`data.max_prompt_length` in veRL).
    """

    tokenizer: Any
    max_prompt_length: int


class PrepareReport(BaseModel):
    """What `prepare` wrote."""

    train: int
    val: int
    files: list[str]
    distractors_per_env: float
    max_prompt_length: int | None = Field(default=None, description="The prompt limit rows were checked against.")
    prompt_tokens_max: int | None = Field(default=None, description="The longest kept prompt, in tokens.")
    rejected: dict[str, int] = Field(default_factory=dict, description="Rows left out, per reason code (prompt_too_long).")


def prepare(
    envs_dir: str | Path,
    out: str | Path,
    *,
    val_fraction: float = 0.1,
    seed: int = 0,
    distractors: DistractorConfig | None = None,
    embedder: Any = None,
    system_prompt: str = DEFAULT_SYSTEM_PROMPT,
    tool_docs: str | Path | None = None,
    prompt_limit: PromptLimit | None = None,
    val_envs: str | Path | None = None,
) -> PrepareReport:
    """Write `train.parquet`/`val.parquet` (veRL) and `train.jsonl`/`val.jsonl` (TRL) into `out`.

    The split is by environment (seeded); validation gets at least one environment when
    there are two or more. With `val_envs`, validation is those environments instead (held apart
    from everything `envs_dir` trains on) and every environment of `envs_dir` trains; their
    distractors are drawn from both, the training ones' from `envs_dir` alone, so the training
    split is the one `prepare` writes without them. `distractors.json` records every environment's sample.
    `tool_docs` (ingested tool documentation, JSONL) widens the similarity pool. With
    `prompt_limit`, rows whose prompt (with their tools) exceeds it are left out before the
    split, counted as `prompt_too_long` and listed in `rejected.jsonl`.

    Raises:
        DatasetError: on bad input, or when no row fits the prompt limit.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    envs = load_envs(envs_dir)
    held = load_envs(val_envs) if val_envs is not None else []
    shared = sorted({e.spec.id for e in envs} & {e.spec.id for e in held})
    if shared:
        raise DatasetError(f"{val_envs}: validation environments also under {envs_dir}: {shared[:5]}")
    try:
        docs = pool_tools_from_docs(tool_docs) if tool_docs is not None else []
    except (OSError, ValueError) as exc:
        raise DatasetError(str(exc)) from exc
    config = distractors or DistractorConfig(seed=seed)
    sampled = sample_distractors(envs, config, embedder=embedder, docs=docs)
    held_ids = {e.spec.id for e in held}
    if held:
        pooled = sample_distractors([*envs, *held], config, embedder=embedder, docs=docs)
        sampled |= {k: v for k, v in pooled.items() if k in held_ids}
    tasks = build_tasks([*envs, *held], sampled, system_prompt=system_prompt)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    longest: int | None = None
    rejected: list[dict[str, Any]] = []
    if prompt_limit is not None:
        if isinstance(prompt_limit.tokenizer, str):
            prompt_limit = replace(prompt_limit, tokenizer=load_prompt_tokenizer(prompt_limit.tokenizer))
        tasks, longest, rejected = _fit_prompts(tasks, {e.spec.id: e for e in [*envs, *held]}, prompt_limit)
        with (out / "rejected.jsonl").open("w", encoding="utf-8") as fh:
            for record in rejected:
                fh.write(json.dumps(record) + "\n")
    if held:
        splits = {"val": [t for t in tasks if t.env_id in held_ids], "train": [t for t in tasks if t.env_id not in held_ids]}
    else:
        order = list(range(len(tasks)))
        random.Random(seed).shuffle(order)
        n_val = min(len(tasks) - 1, max(1, round(len(tasks) * val_fraction))) if len(tasks) > 1 else 0
        splits = {"val": [tasks[i] for i in order[:n_val]], "train": [tasks[i] for i in order[n_val:]]}
    files = []
    for split, rows in splits.items():
        verl_rows = [t.verl_row(i, split) for i, t in enumerate(rows)]
        pq.write_table(pa.Table.from_pylist(verl_rows), out / f"{split}.parquet")
        with (out / f"{split}.jsonl").open("w", encoding="utf-8") as fh:
            for t in rows:
                fh.write(json.dumps(t.trl_row(), ensure_ascii=False) + "\n")
        files += [str(out / f"{split}.parquet"), str(out / f"{split}.jsonl")]
    (out / "distractors.json").write_text(
        json.dumps({k: [d.model_dump() for d in v] for k, v in sampled.items()}, indent=1, sort_keys=True)
    )
    files.append(str(out / "distractors.json"))
    total = sum(len(v) for v in sampled.values())
    if prompt_limit is not None:
        files.append(str(out / "rejected.jsonl"))
    return PrepareReport(
        train=len(splits["train"]), val=len(splits["val"]), files=files, distractors_per_env=total / max(1, len(envs) + len(held)),
        max_prompt_length=prompt_limit.max_prompt_length if prompt_limit else None, prompt_tokens_max=longest,
        rejected={"prompt_too_long": len(rejected)} if rejected else {},
    )


def _fit_prompts(
    tasks: list[RlTask], envs: Mapping[str, Environment], limit: PromptLimit
) -> tuple[list[RlTask], int | None, list[dict[str, Any]]]:
    """The tasks whose prompt fits the limit, the longest kept prompt, and a rejection record per other task."""
    kept: list[RlTask] = []
    rejected: list[dict[str, Any]] = []
    longest: int | None = None
    for task in tasks:
        tokens = prompt_tokens(limit.tokenizer, task.prompt, task_tools(task, envs))
        if tokens > limit.max_prompt_length:
            rejected.append(
                {"env_id": task.env_id, "reason": "prompt_too_long", "prompt_tokens": tokens,
                 "max_prompt_length": limit.max_prompt_length, "distractors": len(task.distractors)}
            )
            continue
        kept.append(task)
        longest = tokens if longest is None else max(longest, tokens)
    if not kept:
        raise DatasetError(
            f"no row fits max_prompt_length={limit.max_prompt_length}: the shortest prompt with its tools has "
            f"{min(r['prompt_tokens'] for r in rejected)} tokens; raise the limit or sample fewer distractors"
        )
    return kept, longest, rejected


def read_trl_tasks(path: str | Path) -> list[RlTask]:
    """Tasks from a TRL JSONL file written by `prepare`.

    Raises:
        DatasetError: naming the file and line of a malformed row.
    """
    try:
        return read_jsonl(path, RlTask.from_trl).values
    except JsonlError as exc:
        raise DatasetError(str(exc)) from exc
