"""Which sandbox backend to use, from arguments or the environment (`ASTRA_SANDBOX*`)."""

from __future__ import annotations

import os
from typing import Literal

from pydantic import BaseModel, Field

from mcp_servers._isolation import Isolation
from mcp_servers._sandbox import LocalSandbox, Sandbox


class SandboxConfig(BaseModel):
    """Sandbox selection: `local` isolated processes (default) or `e2b` cloud sandboxes."""

    backend: Literal["local", "e2b"] = Field(default="local", description="Where tool code runs.")
    isolation: Isolation = Field(default="auto", description="Local isolation mechanism.")
    workers: int = Field(default=2, ge=1, description="Worker processes per memory limit.")
    unsafe: bool = Field(default=False, description="Allow running local tool code without isolation.")

    @classmethod
    def from_env(cls, **overrides: object) -> SandboxConfig:
        """Defaults from `ASTRA_SANDBOX` (local|e2b) and `ASTRA_SANDBOX_WORKERS`, then `overrides`."""
        values: dict[str, object] = {}
        if backend := os.environ.get("ASTRA_SANDBOX"):
            values["backend"] = backend
        if workers := os.environ.get("ASTRA_SANDBOX_WORKERS"):
            values["workers"] = int(workers)
        values.update({k: v for k, v in overrides.items() if v is not None})
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
