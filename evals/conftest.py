"""`pytest evals/`: benchmark harness integrity (always) and model evaluation (with a model).

Options (flag, or environment variable):
  --model-url  ASTRA_EVAL_MODEL_URL   OpenAI-compatible base URL, or `local` for the embedded model
  --model-name ASTRA_EVAL_MODEL_NAME  model name at that endpoint
  --user-model-url / --user-model-name  (ASTRA_EVAL_USER_MODEL_URL/_NAME) tau2's and ACEBench's
               simulated user; defaults to the evaluated model
  --categories ASTRA_EVAL_CATEGORIES  comma list: `bfcl`, `tau2`, `acebench` or `bench:category`
               (e.g. `bfcl:multi_turn_base,tau2:retail,tau2:telecom-solo,acebench:normal_atom_bool`)
  --limit      ASTRA_EVAL_LIMIT       entries per category (default: all)
  --trials     ASTRA_EVAL_TRIALS      episodes per entry (default 1)
  --eval-out   ASTRA_EVAL_OUT         output directory (default ./evals-out)
  --full-replay ASTRA_EVAL_FULL_REPLAY=1  tau2 gold replay of every task instead of a sample
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("BFCL_PROJECT_ROOT", tempfile.mkdtemp(prefix="astra-bfcl-"))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from harness import EvalConfig, Summary  # noqa: E402

_OPTIONS = {
    "model_url": ("--model-url", "ASTRA_EVAL_MODEL_URL"),
    "model_name": ("--model-name", "ASTRA_EVAL_MODEL_NAME"),
    "user_model_url": ("--user-model-url", "ASTRA_EVAL_USER_MODEL_URL"),
    "user_model_name": ("--user-model-name", "ASTRA_EVAL_USER_MODEL_NAME"),
    "categories": ("--categories", "ASTRA_EVAL_CATEGORIES"),
    "limit": ("--limit", "ASTRA_EVAL_LIMIT"),
    "trials": ("--trials", "ASTRA_EVAL_TRIALS"),
    "eval_out": ("--eval-out", "ASTRA_EVAL_OUT"),
}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("astra-evals")
    for dest, (flag, env) in _OPTIONS.items():
        group.addoption(flag, dest=dest, default=None, help=f"(env {env})")
    group.addoption("--full-replay", action="store_true", default=False, help="(env ASTRA_EVAL_FULL_REPLAY=1)")


@pytest.fixture(scope="session")
def eval_config(request: pytest.FixtureRequest) -> EvalConfig:
    values = {}
    for dest, (_, env) in _OPTIONS.items():
        value = request.config.getoption(dest) or os.environ.get(env)
        if value not in (None, ""):
            values[dest] = value
    full = request.config.getoption("full_replay") or os.environ.get("ASTRA_EVAL_FULL_REPLAY", "") in {"1", "true", "yes"}
    return EvalConfig(**values, full_replay=full)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def summary(eval_config: EvalConfig) -> Summary:
    """Rows of this run; each model test rewrites summary.md/json after adding its row."""
    return Summary(model=eval_config.model_name or eval_config.model_url or "(no model)")
