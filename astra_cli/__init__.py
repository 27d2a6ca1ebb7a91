"""The `astra` command line: one typer app whose groups only wire arguments to library calls.

Each group lives in its own module and registers its commands on the apps defined in
`astra_cli._apps`; importing the modules below is what registers them.
"""

from __future__ import annotations

from astra_cli import agent as _agent  # noqa: F401
from astra_cli import checks as _checks  # noqa: F401
from astra_cli import demo as _demo  # noqa: F401
from astra_cli import env as _env  # noqa: F401
from astra_cli import env_synth as _env_synth  # noqa: F401
from astra_cli import env_verify as _env_verify  # noqa: F401
from astra_cli import env_audit as _env_audit  # noqa: F401
from astra_cli import loop as _loop  # noqa: F401
from astra_cli import judge as _judge  # noqa: F401
from astra_cli import model as _model  # noqa: F401
from astra_cli import rl as _rl  # noqa: F401
from astra_cli import sft as _sft  # noqa: F401
from astra_cli import world as _world  # noqa: F401
from astra_cli._apps import app

__all__ = ["app", "main"]


def main() -> None:
    """Console-script entry point."""
    app()
