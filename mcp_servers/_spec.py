"""The environment contract: `EnvSpec` (env.json) plus the tool module (tools.py).

An environment is a directory holding `env.json` and the Python module named by `entry`.
`EnvSpec` validates every invariant of docs/design.md §2 at construction, so a loaded spec is
always internally consistent; `verify` then checks the behaviour of the code over MCP.
"""

from __future__ import annotations

import functools
import hashlib
import json
import keyword
from collections.abc import Iterable
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

import jsonschema
from jsonschema.validators import validator_for
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from mcp_servers.exceptions import EnvLoadError

SPEC_VERSION = 1
"""Current `env.json` format version."""

Scenario = Literal["single_hop", "parallel_single_hop", "multi_hop", "parallel_multi_hop"]
SourceKind = Literal["qa", "mcp_docs", "authored", "import", "world"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Source(_Model):
    """Where an environment came from."""

    kind: SourceKind = Field(description="qa | mcp_docs | authored | import | world")
    ref: str | None = Field(default=None, description="A pointer to the origin (file:line, URL, record id).")


class Task(_Model):
    """The main question an agent is asked, with its final answer."""

    question: str = Field(min_length=1, description="The user-facing question.")
    answer: str = Field(min_length=1, description="The final answer.")
    scenario: Scenario = Field(description="Shape of the sub-question DAG.")


class GoldenCall(_Model):
    """A tool call that answers one subtask."""

    tool: str = Field(description="Name of a tool of this environment.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="Arguments valid for the tool's input_schema.")


class Subtask(_Model):
    """One node of the decomposition DAG."""

    id: str = Field(min_length=1, description="Unique within the environment.")
    question: str = Field(min_length=1)
    answer: str = Field(min_length=1, description="Concrete atomic answer; solved when a call's output contains it.")
    depends_on: list[str] = Field(default_factory=list, description="Ids of subtasks whose answers this one needs.")
    needs_tool: bool = Field(default=True, description="Whether answering requires a tool call (counts in the reward's n).")
    golden_call: GoldenCall | None = Field(default=None, description="The call that answers it (null when no tool).")


class ToolSpec(_Model):
    """A tool as exposed over MCP."""

    name: str = Field(description="A Python identifier; the function of the same name in the entry module.")
    description: str = Field(min_length=1)
    input_schema: dict[str, Any] = Field(description="JSON Schema of the keyword arguments (type: object).")
    output_schema: dict[str, Any] | None = Field(default=None, description="JSON Schema of a dict result, if any.")

    @field_validator("name")
    @classmethod
    def _identifier(cls, name: str) -> str:
        if not name.isidentifier() or keyword.iskeyword(name):
            raise ValueError(f"tool name {name!r} is not a valid Python identifier")
        return name

    @field_validator("input_schema", "output_schema")
    @classmethod
    def _schema(cls, schema: dict[str, Any] | None) -> dict[str, Any] | None:
        if schema is None:
            return None
        problem = _schema_problem(canonical_json(schema))
        if problem:
            raise ValueError(problem)
        if schema.get("type") != "object":
            raise ValueError('must be a JSON Schema object (it needs "type": "object")')
        return schema


class Limits(_Model):
    """Resource limits applied to every tool call of the environment."""

    call_timeout_s: float = Field(default=5.0, gt=0, le=300, description="Wall-clock limit per call.")
    memory_mb: int = Field(default=512, ge=64, le=16384, description="Address-space limit of the worker process.")


class EnvSpec(_Model):
    """The spec of one environment (`env.json`), with docs/design.md §2's invariants enforced.

    Raises:
        pydantic.ValidationError: when a field or an invariant is violated.
    """

    id: str = Field(pattern=r"^env-[0-9a-f]{8,64}$", description="Content-derived id, see `compute_env_id`.")
    version: int = Field(default=SPEC_VERSION, ge=1, le=SPEC_VERSION)
    domain: str = Field(min_length=1)
    language: str = Field(default="en", min_length=2, max_length=8)
    source: Source
    task: Task
    subtasks: list[Subtask] = Field(min_length=1)
    tools: list[ToolSpec] = Field(min_length=1)
    entry: str = Field(default="tools.py", pattern=r"^[A-Za-z_][A-Za-z0-9_]*\.py$")
    limits: Limits = Field(default_factory=Limits)

    @model_validator(mode="after")
    def _invariants(self) -> EnvSpec:
        names = [t.name for t in self.tools]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"duplicate tool names: {', '.join(dupes)}")
        ids = [s.id for s in self.subtasks]
        dupe_ids = sorted({i for i in ids if ids.count(i) > 1})
        if dupe_ids:
            raise ValueError(f"duplicate subtask ids: {', '.join(dupe_ids)}")
        known = set(ids)
        for s in self.subtasks:
            missing = [d for d in s.depends_on if d not in known]
            if missing:
                raise ValueError(f"subtask {s.id!r} depends on unknown subtask(s) {missing}")
        _check_acyclic(self.subtasks)
        parents = {d for s in self.subtasks for d in s.depends_on}
        for s in self.subtasks:
            if s.id in parents and not s.needs_tool:
                raise ValueError(f"subtask {s.id!r} has dependents, so it must have needs_tool = true")
            if s.needs_tool and s.golden_call is None:
                raise ValueError(f"subtask {s.id!r} needs a tool but has no golden_call")
            if s.golden_call is not None:
                self._check_golden_call(s)
        return self

    def _check_golden_call(self, subtask: Subtask) -> None:
        call = subtask.golden_call
        assert call is not None
        tool = self.tool(call.tool)
        if tool is None:
            raise ValueError(f"subtask {subtask.id!r}: golden_call names unknown tool {call.tool!r}")
        error = jsonschema.exceptions.best_match(_validator(tool.input_schema).iter_errors(call.arguments))
        if error is not None:
            raise ValueError(f"subtask {subtask.id!r}: golden_call arguments invalid for {tool.name}: {error.message}")

    def tool(self, name: str) -> ToolSpec | None:
        """The tool called `name`, or None."""
        return next((t for t in self.tools if t.name == name), None)

    @cached_property
    def target_subtasks(self) -> list[Subtask]:
        """Subtasks that need a tool: the reward's n."""
        return [s for s in self.subtasks if s.needs_tool]


@functools.lru_cache(maxsize=4096)
def _schema_problem(schema_json: str) -> str | None:
    # Checking against the meta-schema costs milliseconds; specs repeat the same schemas a lot.
    schema = json.loads(schema_json)
    try:
        validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "(root)"
        return f"not a valid JSON Schema at {where}: {exc.message}"
    return None


def _validator(schema: dict[str, Any]) -> jsonschema.protocols.Validator:
    cls = validator_for(schema)
    return cls(schema)


def _check_acyclic(subtasks: Iterable[Subtask]) -> None:
    graph = {s.id: list(s.depends_on) for s in subtasks}
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        if state.get(node) == 2:
            return
        if state.get(node) == 1:
            cycle = path[path.index(node) :] + [node]
            raise ValueError(f"subtasks form a cycle: {' -> '.join(cycle)}")
        state[node] = 1
        for dep in graph[node]:
            visit(dep, path + [node])
        state[node] = 2

    for node in graph:
        visit(node, [])


def canonical_json(value: Any) -> str:
    """Deterministic JSON: sorted keys, no insignificant whitespace, UTF-8 kept readable."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def compute_env_id(spec_fields: dict[str, Any], code: str) -> str:
    """The content-derived id: a hash of the tools, the code and the task.

    Args:
        spec_fields: the spec as a dict (only `tools` and `task` are read).
        code: the text of the entry module.
    """
    # Normalize through the models so defaults and key order never change the id.
    tools = [ToolSpec.model_validate(t).model_dump(mode="json") for t in spec_fields["tools"]]
    task = Task.model_validate(spec_fields["task"]).model_dump(mode="json")
    material = canonical_json({"tools": tools, "task": task, "code": code})
    return "env-" + hashlib.sha256(material.encode()).hexdigest()[:12]


class Environment(BaseModel):
    """A loaded environment: its spec and the source of its tool module."""

    model_config = ConfigDict(frozen=True)

    spec: EnvSpec
    code: str
    path: Path | None = None

    @classmethod
    def build(cls, code: str, **fields: Any) -> Environment:
        """Build an environment from spec fields and code, computing its id.

        Raises:
            pydantic.ValidationError: when the fields violate the contract.
        """
        fields = {k: v for k, v in fields.items() if k != "id"}
        dumped = {k: (v.model_dump(mode="json") if isinstance(v, BaseModel) else v) for k, v in fields.items()}
        dumped["tools"] = [t.model_dump(mode="json") if isinstance(t, BaseModel) else t for t in fields["tools"]]
        spec = EnvSpec.model_validate({**dumped, "id": compute_env_id(dumped, code)})
        return cls(spec=spec, code=code)

    def write(self, directory: Path) -> Path:
        """Write `env.json` and the entry module into `directory` (created if needed)."""
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "env.json").write_text(self.spec.model_dump_json(indent=2, exclude_none=True) + "\n")
        (directory / self.spec.entry).write_text(self.code)
        return directory


def format_validation_error(path: Path, exc: ValidationError) -> str:
    """One line per problem: `FILE: field.path: message`."""
    lines = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "(root)"
        msg = err["msg"].removeprefix("Value error, ")
        lines.append(f"{path}: {loc}: {msg}")
    return "\n".join(lines)


def load_env(directory: str | Path) -> Environment:
    """Load and validate the environment in `directory`.

    Raises:
        EnvLoadError: naming the file, the field and the problem.
    """
    directory = Path(directory)
    spec_path = directory / "env.json"
    if not spec_path.is_file():
        raise EnvLoadError(f"{spec_path}: not found (an environment directory needs env.json)")
    try:
        raw = json.loads(spec_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise EnvLoadError(f"{spec_path}: line {exc.lineno} column {exc.colno}: invalid JSON: {exc.msg}") from exc
    except UnicodeDecodeError as exc:
        raise EnvLoadError(f"{spec_path}: not UTF-8 text: {exc}") from exc
    if not isinstance(raw, dict):
        raise EnvLoadError(f"{spec_path}: (root): expected a JSON object, got {type(raw).__name__}")
    try:
        spec = EnvSpec.model_validate(raw)
    except ValidationError as exc:
        raise EnvLoadError(format_validation_error(spec_path, exc)) from exc
    entry_path = directory / spec.entry
    if not entry_path.is_file():
        raise EnvLoadError(f"{spec_path}: entry: module file {entry_path} not found")
    try:
        code = entry_path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise EnvLoadError(f"{entry_path}: not UTF-8 text: {exc}") from exc
    return Environment(spec=spec, code=code, path=directory)


def find_envs(root: str | Path) -> list[Path]:
    """Environment directories under `root` (itself, or its subdirectories holding env.json), sorted."""
    root = Path(root)
    if (root / "env.json").is_file():
        return [root]
    return sorted(p.parent for p in root.glob("*/env.json"))


def load_envs(*roots: str | Path) -> list[Environment]:
    """Every environment under `roots` (each an environment directory or a directory of them), in `find_envs` order.

    Raises:
        EnvLoadError: for the first one that does not load (naming its file and field).
    """
    return [load_env(directory) for root in roots for directory in find_envs(root)]
