"""`emit`: turn an environment into a directory an MCP client launches directly."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from mcp_servers._spec import load_env

_LAUNCHER = '''"""Launch this environment as an MCP server over stdio (written by `astra env emit`)."""

import sys
from pathlib import Path

import anyio

from mcp_servers import SandboxConfig, serve_stdio

if __name__ == "__main__":
    config = SandboxConfig.from_env(workers=1, unsafe="--unsafe-no-sandbox" in sys.argv[1:])
    anyio.run(lambda: serve_stdio(Path(__file__).resolve().parent, config=config))
'''


def emit_env(src: str | Path, out: str | Path, *, python: str | None = None) -> dict[str, Any]:
    """Write `out/` with env.json, the tool module, `server.py` and `mcp.json`; return the config.

    `mcp.json` is the `mcpServers` snippet IDEs read; it names the exact interpreter (one
    with astra-mcp installed; default: the current one) and the launcher.

    Raises:
        EnvLoadError: `src` is not a valid environment.
    """
    env = load_env(src)
    out = Path(out).resolve()
    env.write(out)
    launcher = out / "server.py"
    launcher.write_text(_LAUNCHER)
    config = {"mcpServers": {env.spec.id: {"command": python or sys.executable, "args": [str(launcher)]}}}
    (out / "mcp.json").write_text(json.dumps(config, indent=2) + "\n")
    return config
