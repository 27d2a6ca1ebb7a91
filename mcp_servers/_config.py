"""Which sandbox backend to use, from arguments or the environment (`ASTRA_SANDBOX*`).

This is the one place a sandbox is chosen: every command that runs tool code builds its sandbox
from `SandboxConfig.from_env()` (directly or through `serve_arena`), so `ASTRA_SANDBOX=e2b` is
honoured everywhere, and an unknown value or e2b without its key is an error, never a silent
local run.
"""

from __future__ import annotations

import os
from typing import Literal

from pydantic import BaseModel, Field

from mcp_servers._isolation import Isolation
from mcp_servers._sandbox import LocalSandbox, Sandbox
from mcp_servers.exceptions import SandboxUnavailable

_BACKENDS = ("local", "e2b")


class SandboxConfig(BaseModel):
    """Sandbox selection: `local` isolated processes (default) or `e2b` cloud sandboxes."""

    backend: Literal["local", "e2b"] = Field(default="local", description="Where tool code runs.")
    isolation: Isolation = Field(default="auto", description="Local isolation mechanism.")
    workers: int = Field(default=2, ge=1, description="Worker processes per memory limit.")
    unsafe: bool = Field(default=False, description="Allow running local tool code without isolation.")

    @classmethod
    def from_env(cls, **overrides: object) -> SandboxConfig:
        """Defaults from `ASTRA_SANDBOX` (local|e2b) and `ASTRA_SANDBOX_WORKERS`, then `overrides` (those not None).

        Raises:
            SandboxUnavailable: `ASTRA_SANDBOX` (or a `backend` override) names no backend, or
                `ASTRA_SANDBOX_WORKERS` is not a positive whole number.
        """
        values: dict[str, object] = {}
        if backend := os.environ.get("ASTRA_SANDBOX"):
            values["backend"] = backend
        if workers := os.environ.get("ASTRA_SANDBOX_WORKERS"):
            if not workers.isdigit() or int(workers) < 1:
                raise SandboxUnavailable(f"ASTRA_SANDBOX_WORKERS={workers!r}: expected a positive whole number")
            values["workers"] = int(workers)
        values.update({k: v for k, v in overrides.items() if v is not None})
        if values.get("backend", "local") not in _BACKENDS:
            source = "ASTRA_SANDBOX" if "backend" not in overrides or overrides["backend"] is None else "sandbox backend"
            raise SandboxUnavailable(f"{source}={values['backend']!r}: choose one of {', '.join(_BACKENDS)}")
        return cls.model_validate(values)

    def build(self) -> Sandbox:
        """A new sandbox (use it as an async context manager).

        Raises:
            SandboxUnavailable: the backend cannot run here.
        """
        if self.backend == "e2b":
            from mcp_servers._e2b import E2BSandbox

            return E2BSandbox(workers=self.workers)
        return LocalSandbox(self.isolation, workers=self.workers, unsafe=self.unsafe)
