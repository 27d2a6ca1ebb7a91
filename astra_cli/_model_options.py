"""The model options every LLM-driven command shares, and how they become open `ChatModel`s.

`--base-url` names an endpoint; `--model` a model name at it, or a model to run here
(an embedded name, a directory, a .gguf file, or a URL in place of `--base-url`). With neither an
endpoint nor a local model, `agent_sdk.model_from_target` starts the embedded teacher (synthesis,
emulators and judges run the teacher; the student is the policy) and says so. A judge is set
apart with `--judge-base-url/--judge-model` (or `ASTRA_JUDGE_BASE_URL` / `ASTRA_JUDGE_MODEL`);
by default the generator judges.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Annotated, Any

import typer
from pydantic import BaseModel

BaseUrlOption = Annotated[
    str | None,
    typer.Option(
        "--base-url",
        help="OpenAI-compatible endpoint (default $ASTRA_LLM_BASE_URL; with none, the embedded model is started here).",
    ),
]
ModelOption = Annotated[
    str | None,
    typer.Option(
        "--model",
        help="Model name at the endpoint (default $ASTRA_LLM_MODEL, else the server's first), or a model to run "
        "here: 'teacher', 'embedded' (the student), a Hugging Face directory or a .gguf file.",
    ),
]
PolicyOption = Annotated[
    str | None,
    typer.Option(
        "--policy",
        help="The policy (the model that acts, is trained or evaluated): an OpenAI-compatible base URL, 'embedded' "
        "(the student, the default), 'student-trained' (the student after the shipped cold start), 'teacher', a Hugging "
        "Face directory, an adapter directory or a .gguf file. Default: $ASTRA_LLM_BASE_URL, else the embedded student.",
    ),
]
"""The flag that names a policy that is played (`agent run`, `demo`, `sft cold-start`)."""
TrainedPolicyOption = Annotated[
    str | None,
    typer.Option(
        "--policy",
        help="The policy that is trained (loaded here): 'embedded' (the student, the default), 'student-trained', 'teacher', "
        "a Hugging Face directory, an adapter directory or a .gguf file.",
    ),
]
"""The same flag where the policy is trained (`loop`, `rl prepare|train`, `sft train`): a local model only."""
ApiKeyOption = Annotated[str | None, typer.Option("--api-key", help="API key (default $ASTRA_LLM_API_KEY).")]
BackendOption = Annotated[
    str, typer.Option("--backend", help="How a model run here is served: auto (vLLM if installed, else transformers), vllm or local.")
]
JudgeBaseUrlOption = Annotated[
    str | None,
    typer.Option("--judge-base-url", envvar="ASTRA_JUDGE_BASE_URL", help="Endpoint of the judge model (default: the generator's)."),
]
JudgeModelOption = Annotated[
    str | None,
    typer.Option(
        "--judge-model",
        envvar="ASTRA_JUDGE_MODEL",
        help="Judge model: a name at --judge-base-url (else at the generator's endpoint), or a model to run here. "
        "Default: the generator judges.",
    ),
]

_BACKENDS = ("auto", "vllm", "local")


class ModelChoice(BaseModel):
    """The generator as the shared options chose it, plus how to reach and bound it."""

    base_url: str | None = None
    model: str | None = None
    api_key: str | None = None
    backend: str = "auto"
    max_concurrency: int = 16
    timeout_s: float = 600.0

    def target(self) -> tuple[str | None, str | None]:
        """(target for `model_from_target`, model name to request)."""
        from agent_sdk import is_endpoint_target, is_local_target

        if self.base_url:
            return self.base_url, self.model
        if is_endpoint_target(self.model) or is_local_target(self.model):
            return self.model, None
        return None, self.model


def fail(message: str) -> typer.Exit:
    """Print `error: message` to stderr and return the exit (status 2) to raise."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


def check_backend(backend: str) -> None:
    """Refuse an unknown `--backend` before anything starts."""
    if backend not in _BACKENDS:
        raise typer.BadParameter(f"{backend!r}: choose one of {', '.join(_BACKENDS)}", param_hint="--backend")


@asynccontextmanager
async def open_model(choice: ModelChoice, *, settings: Any = None) -> AsyncIterator[Any]:
    """The generator for `choice`, open (a model run here: served) until the block exits; the embedded teacher by default."""
    from agent_sdk import TEACHER, model_from_target

    target, name = choice.target()
    async with model_from_target(
        target, model_name=name, api_key=choice.api_key, backend=choice.backend,  # type: ignore[arg-type]
        settings=settings, max_concurrency=choice.max_concurrency, timeout_s=choice.timeout_s, default=TEACHER.target,
    ) as model:  # fmt: skip
        yield model


async def open_companion(
    stack: AsyncExitStack, choice: ModelChoice, generator: Any, *, base_url: str | None, model: str | None, role: str
) -> Any:
    """A second model (judge, agent) from `--<role>-base-url/--<role>-model`; the generator when neither is given.

    A bare name without its own endpoint is requested at the generator's endpoint.

    Raises:
        UserError: a bare name is given while the generator runs here (it has no endpoint to share).
    """
    from agent_sdk import OpenAIChatModel, UserError, is_local_target, model_from_target

    if base_url is None and model is None:
        return generator
    if base_url is None and not is_local_target(model):
        if not isinstance(generator, OpenAIChatModel):
            raise UserError(f"{role} model {model!r} names a model at an endpoint, but the generator runs here: give an endpoint")
        base_url = generator.base_url
    target, name = (base_url, model) if base_url else (model, None)
    if (target, name) == choice.target():
        return generator
    return await stack.enter_async_context(
        model_from_target(
            target, model_name=name, api_key=choice.api_key, backend=choice.backend,  # type: ignore[arg-type]
            max_concurrency=choice.max_concurrency, timeout_s=choice.timeout_s,
        )
    )  # fmt: skip
