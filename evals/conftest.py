"""`pytest evals/`: benchmark harness integrity (always) and model evaluation (with a model).

Options (flag, or environment variable):
  --model      ASTRA_EVAL_MODEL       what to evaluate: an OpenAI-compatible base URL; a model directory
               (--model-url, ASTRA_EVAL_MODEL_URL)  (a checkpoint) or `embedded`, served once for the run with
               --max-model-len tokens of context; or `local` (the embedded model in this process)
  --model-name ASTRA_EVAL_MODEL_NAME  model name at the URL (default: the served name)
  --model-label ASTRA_EVAL_MODEL_LABEL  name of this run's rows in the summary, e.g. `base` or `trained`
  --user-model-url / --user-model-name  (ASTRA_EVAL_USER_MODEL_URL/_NAME) tau2's and ACEBench's
               simulated user, an endpoint URL or `local`; defaults to the evaluated model
  --protocol   ASTRA_EVAL_PROTOCOL    `full` (default), `sampled` (evals/protocols/sampled.json: 3 fixed
               entries per category) or a protocol JSON file
  --categories ASTRA_EVAL_CATEGORIES  comma list: `bfcl`, `tau2`, `acebench` or `bench:category`
               (e.g. `bfcl:multi_turn_base,tau2:retail,tau2:telecom-solo,acebench:normal_atom_bool`)
  --limit      ASTRA_EVAL_LIMIT       entries per category (default: all)
  --trials     ASTRA_EVAL_TRIALS      episodes per entry (default 1)
  --max-model-len ASTRA_EVAL_MAX_MODEL_LEN  context of a model this run serves (default 16384)
  --eval-out   ASTRA_EVAL_OUT         output directory (default ./evals-out)
  --full-replay ASTRA_EVAL_FULL_REPLAY=1  tau2 gold replay of every task instead of a sample

The model tests (those taking the `eval_models` fixture, most through `category_run`) talk to the
model under evaluation; every other test runs under an `agent_sdk.RequestGuard` and fails if it
reaches a server it did not start, so a harness test can never evaluate a real endpoint by accident.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("BFCL_PROJECT_ROOT", tempfile.mkdtemp(prefix="astra-bfcl-"))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from harness import EvalConfig, EvalModels, RunInfo, Summary  # noqa: E402
from model_run import CategoryRun, OpenCategory  # noqa: E402

from agent_sdk import RequestGuard  # noqa: E402

_OPTIONS = {
    "model": (("--model", "--model-url"), ("ASTRA_EVAL_MODEL", "ASTRA_EVAL_MODEL_URL")),
    "model_name": (("--model-name",), ("ASTRA_EVAL_MODEL_NAME",)),
    "model_label": (("--model-label",), ("ASTRA_EVAL_MODEL_LABEL",)),
    "user_model_url": (("--user-model-url",), ("ASTRA_EVAL_USER_MODEL_URL",)),
    "user_model_name": (("--user-model-name",), ("ASTRA_EVAL_USER_MODEL_NAME",)),
    "protocol": (("--protocol",), ("ASTRA_EVAL_PROTOCOL",)),
    "categories": (("--categories",), ("ASTRA_EVAL_CATEGORIES",)),
    "limit": (("--limit",), ("ASTRA_EVAL_LIMIT",)),
    "trials": (("--trials",), ("ASTRA_EVAL_TRIALS",)),
    "max_model_len": (("--max-model-len",), ("ASTRA_EVAL_MAX_MODEL_LEN",)),
    "eval_out": (("--eval-out",), ("ASTRA_EVAL_OUT",)),
}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("astra-evals")
    for dest, (flags, envs) in _OPTIONS.items():
        group.addoption(*flags, dest=dest, default=None, help=f"(env {' or '.join(envs)})")
    group.addoption("--full-replay", action="store_true", default=False, help="(env ASTRA_EVAL_FULL_REPLAY=1)")


@pytest.fixture(scope="session")
def eval_config(request: pytest.FixtureRequest) -> EvalConfig:
    values = {}
    for dest, (_, envs) in _OPTIONS.items():
        value = request.config.getoption(dest) or next((os.environ[e] for e in envs if os.environ.get(e)), None)
        if value not in (None, ""):
            values[dest] = value
    full = request.config.getoption("full_replay") or os.environ.get("ASTRA_EVAL_FULL_REPLAY", "") in {"1", "true", "yes"}
    return EvalConfig(**values, full_replay=full)


@pytest.fixture(scope="session")
def eval_models(eval_config: EvalConfig) -> Iterator[EvalModels]:
    """The run's models; a checkpoint is served on the first model test and stopped at the end of the run."""
    with EvalModels(eval_config) as models:
        yield models


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def own_servers_only(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a harness test (one without `eval_models`) that sent an HTTP request to a server it did not start."""
    if "eval_models" in request.fixturenames:
        yield
        return
    with RequestGuard():
        yield


@pytest.fixture(scope="session")
def summary(eval_config: EvalConfig) -> Summary:
    """Rows of this run, under its label; each model test rewrites summary.md/json after adding its row."""
    run = RunInfo(model=eval_config.model or "(no model)", protocol=eval_config.protocol)
    return Summary(model=eval_config.label, runs={eval_config.label: run})


@pytest.fixture
def category_run(eval_config: EvalConfig, eval_models: EvalModels, summary: Summary) -> OpenCategory:
    """Open a model test's `benchmark:category` (a `CategoryRun`); skips the test when this run does not evaluate it."""

    def open_category(benchmark: str, category: str) -> CategoryRun:
        if reason := eval_config.skip_reason(benchmark, category):
            pytest.skip(reason)
        return CategoryRun(benchmark=benchmark, category=category, config=eval_config, models=eval_models, summary=summary)

    return open_category
