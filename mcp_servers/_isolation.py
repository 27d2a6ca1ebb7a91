"""How a sandbox worker process is isolated: bubblewrap, bare user namespaces, or nothing.

`bwrap` gives the full boundary: new network, PID, IPC and mount namespaces, a read-only view
of the interpreter and system libraries only, a private tmpfs as working directory, and the
sandbox killed when its parent dies. `unshare` (user + network + PID namespaces) is the
fallback where bubblewrap is missing: it blocks the network and signals to the host but not
file reads. `none` runs the worker as a plain child process and is only chosen on request.
A pids cgroup caps process creation (fork bombs) when the host lets us create one.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from mcp_servers.exceptions import SandboxUnavailable

Isolation = Literal["auto", "bwrap", "unshare", "none"]

_PIDS_CGROUP = Path("/sys/fs/cgroup/pids")
_PIDS_MAX = 64


@functools.cache
def _works(argv: tuple[str, ...]) -> bool:
    try:
        return subprocess.run(argv, capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _interpreter() -> str:
    return os.path.realpath(sys.executable)


def _bwrap_prefix() -> list[str]:
    args = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    prefix = os.path.realpath(sys.base_prefix)
    if not prefix.startswith("/usr/"):
        args += ["--ro-bind", prefix, prefix]
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--remount-ro", "/", "--chdir", "/tmp"]
    args += ["--clearenv", "--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp"]
    return args


def _unshare_prefix() -> list[str]:
    return ["unshare", "--map-root-user", "--net", "--pid", "--fork", "--kill-child", "--mount-proc"]


def resolve_isolation(requested: Isolation, *, unsafe: bool = False) -> Literal["bwrap", "unshare", "none"]:
    """The mechanism to use for `requested`, probing what works on this machine.

    Raises:
        SandboxUnavailable: nothing isolates here and `unsafe` was not passed, or the
            requested mechanism does not work.
    """
    python = _interpreter()
    probes = {
        "bwrap": tuple(_bwrap_prefix() + [python, "-I", "-S", "-c", "pass"]),
        "unshare": tuple(_unshare_prefix() + [python, "-I", "-S", "-c", "pass"]),
    }
    if requested == "none":
        if not unsafe:
            raise SandboxUnavailable("isolation 'none' runs untrusted tool code unsandboxed; pass unsafe=True to allow it")
        return "none"
    if requested in probes:
        if shutil.which(requested) and _works(probes[requested]):
            return requested
        raise SandboxUnavailable(f"isolation {requested!r} does not work on this machine")
    for mechanism in ("bwrap", "unshare"):
        if shutil.which(mechanism) and _works(probes[mechanism]):
            return mechanism  # type: ignore[return-value]
    if unsafe:
        return "none"
    raise SandboxUnavailable(
        "no isolation mechanism works here (install bubblewrap, or allow user namespaces); "
        "pass --unsafe-no-sandbox (unsafe=True) to run tool code without a sandbox"
    )


@dataclass(frozen=True)
class WorkerCommand:
    """The argv that starts one worker, and the cgroup that caps its processes (if any)."""

    argv: list[str]
    cgroup: Path | None


def _make_cgroup(name: str) -> Path | None:
    try:
        path = _PIDS_CGROUP / name
        path.mkdir(exist_ok=True)
        (path / "pids.max").write_text(str(_PIDS_MAX))
        return path
    except OSError:
        return None


def remove_cgroup(path: Path | None) -> None:
    """Kill what is left in a worker's cgroup and remove it."""
    if path is None:
        return
    try:
        for pid in (path / "cgroup.procs").read_text().split():
            try:
                os.kill(int(pid), 9)
            except (ProcessLookupError, PermissionError):
                pass
        path.rmdir()
    except OSError:
        pass


def worker_command(
    mechanism: Literal["bwrap", "unshare", "none"], worker_source: str, *, name: str, memory_mb: int, max_output: int, cpu_budget: int
) -> WorkerCommand:
    """Build the argv that starts a worker under `mechanism`.

    The worker joins its pids cgroup through a tiny shell trampoline before the sandbox
    starts, so every process the tool code creates is counted.
    """
    python = _interpreter()
    pidns = "pidns" if mechanism != "none" else "host"
    inner = [python, "-I", "-S", "-c", worker_source, str(memory_mb), str(max_output), str(cpu_budget), pidns]
    if mechanism == "bwrap":
        argv = _bwrap_prefix() + inner
    elif mechanism == "unshare":
        argv = _unshare_prefix() + inner
    else:
        argv = inner
    cgroup = _make_cgroup(name) if mechanism != "none" else None
    if cgroup is not None:
        argv = ["/bin/sh", "-c", f'echo $$ > "{cgroup}/cgroup.procs" && exec "$@"', "astra-worker", *argv]
    return WorkerCommand(argv=argv, cgroup=cgroup)
