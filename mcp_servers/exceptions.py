"""Errors raised by `mcp_servers`.

Hierarchy::

    McpServersError
    ├── EnvLoadError          an environment directory or its env.json is unusable (user input)
    ├── SandboxUnavailable    no isolation mechanism is available and unsafe mode was not requested
    └── SandboxError          a sandbox worker could not be started or talked to (runtime failure)

Failures of tool code (bad arguments, exceptions, timeouts, crashes) are never raised: they
become `isError` tool results.
"""

from __future__ import annotations


class McpServersError(Exception):
    """Base class of every error raised by `mcp_servers`."""


class EnvLoadError(McpServersError):
    """An environment directory, its `env.json` or its tool module is invalid.

    The message names the file, the field (a dotted path) and the problem.
    """


class SandboxUnavailable(McpServersError):
    """No isolation mechanism (bubblewrap or user namespaces) is available.

    Pass `unsafe=True` (CLI: `--unsafe-no-sandbox`) to run tool code without isolation.
    """


class SandboxError(McpServersError):
    """A sandbox worker could not be started or stopped responding at the protocol level."""
