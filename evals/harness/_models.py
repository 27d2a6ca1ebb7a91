"""The models one eval run talks to: an endpoint, the embedded model in process, or a checkpoint it serves.

A checkpoint (a model directory, or `embedded`) is served once for the whole run through
`agent_sdk.serve_model` (vLLM where installed, else the local backend) with
`EvalConfig.max_model_len` tokens of context, on its own event loop in a background thread:
the pytest tests run on their own loops, one per test, and the server outlives them all. It
starts on the first model test that runs, so a run whose model tests are all skipped or
deselected never starts it.
"""

from __future__ import annotations

from contextlib import ExitStack

from anyio.from_thread import start_blocking_portal

from agent_sdk import ChatModel, LocalChatModel, OpenAIChatModel, ServedModel, UserError, VllmOptions, serve_model
from harness._config import EvalConfig

__all__ = ["EvalModels"]

_TIMEOUT_S = 300.0


class EvalModels:
    """The evaluated model and the simulated user of one run; use as a context manager (stops a served model).

    Args:
        config: the run's options (`model`, `model_name`, `user_model_url`, `max_model_len`).
    """

    def __init__(self, config: EvalConfig) -> None:
        self.config = config
        self.served: ServedModel | None = None
        self._stack = ExitStack()
        self._local: ChatModel | None = None

    def __enter__(self) -> EvalModels:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stack.close()
        self.served = None

    def chat_model(self, *, user: bool = False) -> ChatModel:
        """The evaluated model, or with `user=True` the simulated user (default: the evaluated model).

        Raises:
            UserError: when no model was given.
        """
        config = self.config
        if user and config.user_model_url:
            return self._at(config.user_model_url, config.user_model_name or config.model_name)
        if config.model is None:
            raise UserError("no model: pass --model (a URL, a model directory, `embedded` or `local`)")
        if config.model_kind == "checkpoint":
            served = self.serve()
            return OpenAIChatModel(served.model_name, base_url=served.base_url, timeout_s=_TIMEOUT_S)
        return self._at(config.model, config.model_name)

    def serve(self) -> ServedModel:
        """Start serving the checkpoint (once; later calls return the same server)."""
        if self.served is None:
            config = self.config
            portal = self._stack.enter_context(start_blocking_portal())
            served = serve_model(config.model, served_name=config.model_name,
                                 options=VllmOptions(max_model_len=config.max_model_len))
            self.served = self._stack.enter_context(portal.wrap_async_context_manager(served))
        return self.served

    def _at(self, url: str, name: str | None) -> ChatModel:
        if url != "local":
            return OpenAIChatModel(name, base_url=url, timeout_s=_TIMEOUT_S)
        if self._local is None:  # one in-process model, shared by the agent and the simulated user
            self._local = LocalChatModel(name=name) if name else LocalChatModel()
        return self._local
