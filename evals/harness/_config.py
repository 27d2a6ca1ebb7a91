"""What one `pytest evals/` run evaluates: model endpoints, categories, limits, output."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field, field_validator

from agent_sdk import ChatModel, UserError

__all__ = ["EvalConfig"]


class EvalConfig(BaseModel):
    """Options of the eval suite (pytest flags or `ASTRA_EVAL_*`; see evals/conftest.py)."""

    model_url: str | None = Field(default=None, description="OpenAI-compatible base URL, or `local`.")
    model_name: str | None = None
    user_model_url: str | None = Field(default=None, description="Simulated user's endpoint (default: the model's).")
    user_model_name: str | None = None
    categories: list[str] = Field(default_factory=list, description="`bench` or `bench:category` selectors.")
    limit: int | None = Field(default=None, ge=1)
    trials: int = Field(default=1, ge=1)
    eval_out: Path = Path("evals-out")
    full_replay: bool = False

    @field_validator("categories", mode="before")
    @classmethod
    def _split(cls, value: object) -> object:
        if isinstance(value, str):
            return [v.strip() for v in value.split(",") if v.strip()]
        return value

    @property
    def has_model(self) -> bool:
        """Whether a model was given (benchmark runs happen only then)."""
        return bool(self.model_url)

    @property
    def out_dir(self) -> Path:
        """The output directory, resolved."""
        return self.eval_out.resolve()

    def wants(self, benchmark: str, category: str) -> bool:
        """Whether `benchmark:category` is selected (everything when no selector is given)."""
        if not self.categories:
            return True
        return any(sel in {benchmark, f"{benchmark}:{category}"} for sel in self.categories)

    def skip_reason(self, benchmark: str, category: str) -> str | None:
        """Why a model test of `benchmark:category` does not run (no model, not selected), or None."""
        if not self.has_model:
            return "no model: pass --model-url to evaluate"
        if not self.wants(benchmark, category):
            return "category not selected"
        return None

    def chat_model(self, *, user: bool = False) -> ChatModel:
        """The evaluated model (or the simulated user's), built from the options.

        Raises:
            UserError: when no model was given.
        """
        url = (self.user_model_url if user else None) or self.model_url
        name = (self.user_model_name if user else None) or self.model_name
        if not url:
            raise UserError("no model: pass --model-url (or ASTRA_EVAL_MODEL_URL)")
        if url == "local":
            from agent_sdk._local import LocalChatModel

            return LocalChatModel(name=name) if name else LocalChatModel()
        from agent_sdk import OpenAIChatModel

        return OpenAIChatModel(name, base_url=url, timeout_s=300.0)
