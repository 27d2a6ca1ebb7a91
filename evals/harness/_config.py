"""What one `pytest evals/` run evaluates: the model, categories, protocol, limits, output."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import BaseModel, Field, field_validator

from agent_sdk import EMBEDDED_MODELS, UserError, is_endpoint_target, is_local_target
from harness._parallel import play_trials
from harness._protocol import Protocol, load_protocol

__all__ = ["EVAL_MAX_MODEL_LEN", "EvalConfig"]

T = TypeVar("T")
R = TypeVar("R")

EVAL_MAX_MODEL_LEN = 16384
"""Context a served model needs here: BFCL's function docs and tau2's policy exceed 4,096 tokens."""


class EvalConfig(BaseModel):
    """Options of the eval suite (pytest flags or `ASTRA_EVAL_*`; see evals/conftest.py)."""

    model: str | None = Field(
        default=None,
        description="An OpenAI-compatible base URL; a model directory or `embedded` (served once for the run, "
        "`max_model_len` tokens of context); or `local` (the embedded model in this process).",
    )
    model_name: str | None = Field(default=None, description="Model name at the URL (default: the served name).")
    model_label: str | None = Field(default=None, description="Name of this run's rows in the summary (e.g. base, trained).")
    user_model_url: str | None = Field(default=None, description="Simulated user's endpoint (default: the model's).")
    user_model_name: str | None = None
    categories: list[str] = Field(default_factory=list, description="`bench` or `bench:category` selectors.")
    protocol: str = Field(default="full", description="`full`, `sampled` (evals/protocols/sampled.json) or a protocol file.")
    limit: int | None = Field(default=None, ge=1)
    trials: int = Field(default=1, ge=1)
    max_model_len: int = Field(default=EVAL_MAX_MODEL_LEN, ge=1024, description="Context when the run serves the model.")
    eval_out: Path = Path("evals-out")
    full_replay: bool = False

    @field_validator("categories", mode="before")
    @classmethod
    def _split(cls, value: object) -> object:
        if isinstance(value, str):
            return [v.strip() for v in value.split(",") if v.strip()]
        return value

    @field_validator("model")
    @classmethod
    def _model_exists(cls, value: str | None) -> str | None:
        if value is None or value == "local" or is_endpoint_target(value) or is_local_target(value):
            return value
        raise ValueError(f"--model {value!r}: not a URL, `local`, an embedded model ({', '.join(EMBEDDED_MODELS)}) nor an existing model directory or .gguf file")

    @field_validator("user_model_url")
    @classmethod
    def _user_is_an_endpoint(cls, value: str | None) -> str | None:
        if value is not None and value != "local" and not is_endpoint_target(value):
            raise ValueError(f"--user-model-url {value!r}: the simulated user must be an endpoint URL or `local`")
        return value

    @property
    def model_kind(self) -> Literal["endpoint", "local", "checkpoint"] | None:
        """How the model is reached: an endpoint, in this process, or a checkpoint served for the run."""
        if self.model is None:
            return None
        if self.model == "local":
            return "local"
        return "endpoint" if is_endpoint_target(self.model) else "checkpoint"

    @property
    def has_model(self) -> bool:
        """Whether a model was given (benchmark runs happen only then)."""
        return self.model is not None

    @property
    def label(self) -> str:
        """The name of this run's rows: `model_label`, else the model name, else the model option."""
        return self.model_label or self.model_name or self.model or "(no model)"

    @property
    def out_dir(self) -> Path:
        """The output directory, resolved."""
        return self.eval_out.resolve()

    @property
    def results_dir(self) -> Path:
        """Where this run's per-entry results go: a folder per label under `out_dir` (the summary stays in `out_dir`)."""
        return self.out_dir / (re.sub(r"[^A-Za-z0-9._-]+", "_", self.label).strip("_") or "model")

    @property
    def sampled(self) -> Protocol | None:
        """The protocol's fixed entry ids (None for the full benchmarks)."""
        return load_protocol(self.protocol)

    def wants(self, benchmark: str, category: str) -> bool:
        """Whether `benchmark:category` is selected (everything when no selector is given)."""
        if not self.categories:
            return True
        return any(sel in {benchmark, f"{benchmark}:{category}"} for sel in self.categories)

    def skip_reason(self, benchmark: str, category: str) -> str | None:
        """Why a model test of `benchmark:category` does not run (no model, not selected), or None."""
        if not self.has_model:
            return "no model: pass --model to evaluate"
        if not self.wants(benchmark, category):
            return "category not selected"
        protocol = self.sampled
        if protocol is not None and protocol.ids(benchmark, category) is None:
            return f"category not in protocol {protocol.name!r}"
        return None

    def select(self, benchmark: str, category: str, items: Sequence[T], id_of: Callable[[T], str]) -> list[T]:
        """The items this run plays: the protocol's ids (in the protocol's order) or all, then the first `limit`.

        Raises:
            UserError: when the protocol names an id the benchmark data does not have.
        """
        chosen = list(items)
        protocol = self.sampled
        ids = protocol.ids(benchmark, category) if protocol is not None else None
        if ids is not None:
            by_id = {id_of(item): item for item in items}
            missing = [i for i in ids if i not in by_id]
            if missing:
                raise UserError(f"protocol {protocol.name!r} ({protocol.source}): {benchmark}:{category} has no entries {missing}")
            chosen = [by_id[i] for i in ids]
        return chosen[: self.limit] if self.limit else chosen

    async def play(
        self, benchmark: str, category: str, items: Sequence[T], id_of: Callable[[T], str], play: Callable[[T], Awaitable[R]]
    ) -> list[tuple[T, int, R]]:
        """Play each item this run selects of `benchmark:category` `trials` times: (item, trial, result), in order.

        Raises:
            UserError: when the protocol names an id the benchmark data does not have.
        """
        return await play_trials(self.select(benchmark, category, items, id_of), self.trials, play)
