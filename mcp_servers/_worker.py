"""The sandbox worker: a standard-library-only program run inside the isolation boundary.

It is started as `python -I -S -c <this file's source> <memory_mb> <max_output_bytes>` so it
needs nothing mounted but the interpreter. It speaks newline-delimited JSON on its original
stdin/stdout, which it moves to private descriptors first: tool code that prints writes to
stderr and cannot corrupt the protocol.

Requests: {"op": "open", "sid", "code", "filename"} | {"op": "call", "sid", "tool", "args"}; any
request may carry "open" (namespaces to create first) and "close" (session ids to drop). Replies: {"ok": true, "kind": "text"|"json", "value", "structured"}
or {"ok": false, "error_kind", "message"}. Each session is a fresh module namespace.
"""

import json
import os
import resource
import sys
import traceback


def _limit(which, value):
    try:
        resource.setrlimit(which, (value, value))
    except (ValueError, OSError):
        pass


def _serialize(value, max_output):
    # Deterministic serialization (docs/design.md §2): str as is, JSON with sorted keys for the rest.
    if isinstance(value, str):
        text, kind, structured = value, "text", None
    elif value is None or isinstance(value, (dict, list, int, float, bool)):
        text = json.dumps(value, sort_keys=True, ensure_ascii=False)
        kind, structured = "json", (value if isinstance(value, dict) else None)
        if structured is not None:
            structured = json.loads(text)
    else:
        return {"ok": False, "error_kind": "exception",
                "message": f"tool returned {type(value).__name__}; tools must return str, dict or list"}
    if len(text.encode("utf-8", "surrogatepass")) > max_output:
        return {"ok": False, "error_kind": "oversized_output",
                "message": f"tool output is larger than the {max_output}-byte limit"}
    return {"ok": True, "kind": kind, "value": text, "structured": structured}


def _short_traceback(exc):
    frames = traceback.extract_tb(exc.__traceback__)
    where = next((f"{f.filename}:{f.lineno}" for f in reversed(frames) if f.filename != "<worker>"), "")
    return f"{type(exc).__name__}: {exc}" + (f" (at {where})" if where else "")


def _open(sessions, req):
    namespace = {"__name__": "env_tools", "__builtins__": __builtins__}
    try:
        exec(compile(req["code"], req.get("filename", "tools.py"), "exec"), namespace)
    except BaseException as exc:
        sessions[req["sid"]] = _short_traceback(exc)
        return {"ok": False, "error_kind": "exception", "message": "tool module failed to load: " + _short_traceback(exc)}
    sessions[req["sid"]] = namespace
    return {"ok": True, "kind": "text", "value": "", "structured": None}


def _call(sessions, req, max_output, cpu_budget):
    namespace = sessions.get(req["sid"])
    if namespace is None:
        return {"ok": False, "error_kind": "crash", "message": "session is not open in this worker"}
    if isinstance(namespace, str):
        return {"ok": False, "error_kind": "exception", "message": "tool module failed to load: " + namespace}
    func = namespace.get(req["tool"])
    if not callable(func):
        return {"ok": False, "error_kind": "exception", "message": f"the tool module defines no function {req['tool']!r}"}
    used = resource.getrusage(resource.RUSAGE_SELF)
    soft = int(used.ru_utime + used.ru_stime) + cpu_budget
    try:
        resource.setrlimit(resource.RLIMIT_CPU, (soft, resource.getrlimit(resource.RLIMIT_CPU)[1]))
    except (ValueError, OSError):
        pass
    try:
        return _run(func, req["args"], max_output)
    finally:
        _reap_children()


def _invoke(func, args):
    try:
        return func(**args)
    finally:
        _leave_if_forked()


def _leave_if_forked():
    # A process forked by tool code must never answer on the protocol pipe.
    if os.getpid() != _MAIN_PID:
        os._exit(0)


def _reap_children():
    """Kill and reap processes the tool code left behind (only inside a PID namespace)."""
    global _FORKED
    if not _FORKED:
        return
    _FORKED = False
    if _IN_PID_NAMESPACE:
        try:
            os.kill(-1, 9)
        except OSError:
            pass
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _run(func, args, max_output):
    try:
        value = _invoke(func, args)
    except MemoryError:
        return {"ok": False, "error_kind": "memory", "message": "tool exceeded its memory limit"}
    except RecursionError as exc:
        return {"ok": False, "error_kind": "exception", "message": _short_traceback(exc)}
    except BaseException as exc:
        return {"ok": False, "error_kind": "exception", "message": _short_traceback(exc)}
    try:
        return _serialize(value, max_output)
    except (ValueError, TypeError, RecursionError) as exc:
        return {"ok": False, "error_kind": "exception", "message": f"tool output is not serializable: {exc}"}


_MAIN_PID = os.getpid()
_FORKED = False
_IN_PID_NAMESPACE = False


def _mark_forked():
    global _FORKED
    _FORKED = True


def main():
    global _IN_PID_NAMESPACE
    memory_mb, max_output, cpu_budget = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    _IN_PID_NAMESPACE = sys.argv[4] == "pidns"
    os.register_at_fork(after_in_parent=_mark_forked)
    read_fd, write_fd = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    _limit(resource.RLIMIT_AS, memory_mb * 1024 * 1024)
    _limit(resource.RLIMIT_CORE, 0)
    _limit(resource.RLIMIT_FSIZE, 64 * 1024 * 1024)
    if os.getuid() != 0:
        _limit(resource.RLIMIT_NPROC, 64)
    sys.setrecursionlimit(2000)
    reader = os.fdopen(read_fd, "rb", buffering=0)
    writer = os.fdopen(write_fd, "wb", buffering=0)
    sessions = {}
    buffer = b""
    writer.write(b'{"ready": true}\n')
    while True:
        while b"\n" not in buffer:
            chunk = reader.read(1 << 16)
            if not chunk:
                return
            buffer += chunk
        line, buffer = buffer.split(b"\n", 1)
        req = json.loads(line)
        for sid in req.get("close", ()):
            sessions.pop(sid, None)
        for opening in req.get("open", ()):
            _open(sessions, opening)
        op = req["op"]
        if op == "open":
            reply = _open(sessions, req)
        elif op == "call":
            reply = _call(sessions, req, max_output, cpu_budget)
        else:
            reply = {"ok": False, "error_kind": "crash", "message": f"unknown op {op!r}"}
        try:
            writer.write(json.dumps(reply, ensure_ascii=True).encode() + b"\n")
        except BrokenPipeError:
            return


if __name__ == "__main__":
    main()
