"""Errors raised by `agent_sdk`.

Hierarchy::

    AgentSdkError                 base of everything this package raises
    ├── UserError                 misuse: bad configuration or arguments (fix the call, not the world)
    │   ├── ForbiddenRequestError a request under a `RequestGuard` went to a server no test started
    │   └── JsonlError            a bad line in a JSONL file read with `on_problem="stop"` (also a ValueError)
    ├── ModelError                a model backend failed after its own retries
    │   ├── ModelHTTPError        ... with the HTTP status and body it last got
    │   └── ContextOverflowError  the prompt cannot fit the model's context: retrying cannot help
    └── ToolboxError              an MCP server could not be connected or listed at setup

Failures during an episode are data, not exceptions: a failed tool call is a `ToolResult`
with `ok=False` (timeout, transport drop, tool error), and a model that fails mid-episode ends
the `Trajectory` with `stop_reason="model_error"`. Cancellation is never swallowed.
"""

from __future__ import annotations

__all__ = [
    "AgentSdkError",
    "ContextOverflowError",
    "ForbiddenRequestError",
    "JsonlError",
    "ModelError",
    "ModelHTTPError",
    "ToolboxError",
    "UserError",
]


class AgentSdkError(Exception):
    """Base class of the errors raised by `agent_sdk`."""


class UserError(AgentSdkError):
    """The caller misused the API: a missing setting, an unknown server target, a bad argument."""


class ForbiddenRequestError(UserError):
    """An HTTP request went to a server that the process under a `RequestGuard` did not start
    (in tests: the test would have reached a real model endpoint)."""


class JsonlError(UserError, ValueError):
    """A line of a JSONL file is not a usable record; the message is `file:line: problem`.

    Attributes:
        file: the file, as given to the reader.
        line: the 1-based line number.
        problem: what is wrong with the line.
    """

    def __init__(self, file: str, line: int, problem: str) -> None:
        super().__init__(f"{file}:{line}: {problem}")
        self.file = file
        self.line = line
        self.problem = problem


class ModelError(AgentSdkError):
    """A model backend could not produce a response, after its own retries."""


class ModelHTTPError(ModelError):
    """An OpenAI-compatible server answered with an error status (after retries, if retryable).

    Attributes:
        status_code: the last HTTP status received.
        body: the start of the last response body, for the error message.
    """

    def __init__(self, message: str, *, status_code: int, body: str = "") -> None:
        super().__init__(message)
        self.status_code = status_code
        self.body = body


class ContextOverflowError(ModelError):
    """The prompt (plus the tokens asked for) does not fit the model's context window.

    Terminal for the request: the same prompt fails the same way on every retry, so callers
    reject it (reason `context_overflow`) instead of retrying or deferring it.
    """


class ToolboxError(AgentSdkError):
    """An MCP server (of a `Toolbox` or an `McpTools`) could not be connected to or could not list its tools."""
