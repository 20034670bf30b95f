"""A hand-written, SDK-free MCP server that tries to get out of its sandbox and past its limits.

Run as ``python escape_artist.py [--stubborn]``. It speaks the legacy (initialize) era over
stdio, starts in a few milliseconds, and every tool reports what happened as one JSON text
instead of failing, so a test can assert on the outcome:

    connect {host, port}     open a TCP connection            -> {"ok", "error"}
    write {path, text}       create or overwrite a file       -> {"ok", "error"}
    read {path}              read a file                      -> {"ok", "text", "error"}
    allocate {mb}            allocate (and touch) memory      -> {"ok", "error"}
    open_files {count}       open /dev/null up to count times -> {"opened", "error"}
    burn {seconds}           spin on the CPU for that long    -> {"cpu_s"} (if it survives)
    limits {}                its rlimits as they were at its first line, and whether it could
                             raise a hard limit               -> {"at_start", "raise"}
    env {}                   its environment                  -> {...}
    spawn {}                 start a child that ignores SIGTERM and sleeps -> {"pid"}
    escape {marker}          double fork with setsid: a grandchild in a session of its own,
                             reparented away from the server, that ignores SIGTERM, SIGINT
                             and SIGHUP, keeps the server's stdio open and has ``marker`` in
                             its command line (so the host can find it, even in a sandbox)
                                                              -> {"pid"} (as the server sees it)
    crash {}                 exit at once with status 3, without answering

``--stubborn`` makes it ignore SIGTERM, SIGINT and SIGHUP and outlive its stdin, for reaping
tests. Errors are reported by errno name (``ECONNREFUSED``, ``EROFS``, ``EMFILE``, ...).
"""

import resource

# First thing, before anything else can run: the limits this process was started with.
_AT_START = {
    name: list(resource.getrlimit(getattr(resource, f"RLIMIT_{name.upper()}")))
    for name in ("data", "cpu", "nofile")
}

import errno  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

_CHILD_CODE = """\
import signal
for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(signum, signal.SIG_IGN)
while True:
    signal.pause()
"""
# The escaped grandchild: reports its pid through the pipe it was given, then sleeps forever.
_ESCAPEE_CODE = """\
import os, signal, sys
os.write(int(sys.argv[1]), str(os.getpid()).encode())
os.close(int(sys.argv[1]))
while True:
    signal.pause()
"""
_CONNECT_TIMEOUT_S = 5.0
_children = []


def _error(exc):
    if isinstance(exc, OSError) and exc.errno is not None:
        return errno.errorcode.get(exc.errno, str(exc.errno))
    return type(exc).__name__


def connect(host, port):
    try:
        with socket.create_connection((host, port), timeout=_CONNECT_TIMEOUT_S):
            return {"ok": True, "error": None}
    except OSError as exc:
        return {"ok": False, "error": _error(exc)}


def write(path, text):
    try:
        with open(path, "w", encoding="utf-8") as target:
            target.write(text)
        return {"ok": True, "error": None}
    except OSError as exc:
        return {"ok": False, "error": _error(exc)}


def read(path):
    try:
        with open(path, encoding="utf-8") as source:
            return {"ok": True, "text": source.read(), "error": None}
    except OSError as exc:
        return {"ok": False, "text": None, "error": _error(exc)}


def allocate(mb):
    try:
        block = bytearray(mb * 1024 * 1024)
        block[::4096] = b"x" * len(block[::4096])
        return {"ok": True, "error": None}
    except MemoryError as exc:
        return {"ok": False, "error": _error(exc)}


def open_files(count):
    opened = []
    try:
        for _ in range(count):
            opened.append(os.open(os.devnull, os.O_RDONLY))
        return {"opened": len(opened), "error": None}
    except OSError as exc:
        return {"opened": len(opened), "error": _error(exc)}
    finally:
        for fd in opened:
            os.close(fd)


def burn(seconds):
    start = time.process_time()
    while time.process_time() - start < seconds:
        pass
    return {"cpu_s": time.process_time() - start}


def limits():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard + 1))
        raised = "raised"
    except (ValueError, OSError) as exc:
        raised = f"refused: {exc}"
    return {"at_start": _AT_START, "raise": raised}


def env():
    return dict(os.environ)


def spawn():
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD_CODE],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _children.append(child)
    return {"pid": child.pid}


def escape(marker):
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:
        try:
            os.setsid()
            if os.fork() == 0:
                # Ignored before exec, so there is no window in which a signal would still work.
                for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                    signal.signal(signum, signal.SIG_IGN)
                os.set_inheritable(write_end, True)
                argv = [sys.executable, "-c", _ESCAPEE_CODE, str(write_end), marker]
                os.execv(sys.executable, argv)  # noqa: S606 - an argument list, never a shell
        finally:
            os._exit(0)
    os.close(write_end)
    os.waitpid(child, 0)  # as a daemon does: the grandchild is now an orphan
    reported = b""
    while chunk := os.read(read_end, 64):
        reported += chunk
    os.close(read_end)
    return {"pid": int(reported)}


def crash():
    os._exit(3)


def _schema(**properties):
    return {"type": "object", "properties": properties, "required": sorted(properties)}


_STRING = {"type": "string"}
_INTEGER = {"type": "integer"}
TOOLS = {
    "connect": (connect, _schema(host=_STRING, port=_INTEGER)),
    "write": (write, _schema(path=_STRING, text=_STRING)),
    "read": (read, _schema(path=_STRING)),
    "allocate": (allocate, _schema(mb=_INTEGER)),
    "open_files": (open_files, _schema(count=_INTEGER)),
    "burn": (burn, _schema(seconds={"type": "number"})),
    "limits": (limits, _schema()),
    "env": (env, _schema()),
    "spawn": (spawn, _schema()),
    "escape": (escape, _schema(marker=_STRING)),
    "crash": (crash, _schema()),
}


def _reply(request_id, result=None, error=None):
    body = {"jsonrpc": "2.0", "id": request_id}
    body.update({"error": error} if error is not None else {"result": result})
    sys.stdout.write(json.dumps(body) + "\n")
    sys.stdout.flush()


def _answer(method, params):
    if method == "initialize":
        return {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "escape_artist", "version": "1"},
        }
    if method == "tools/list":
        return {
            "tools": [
                {"name": name, "description": f"Try to {name}.", "inputSchema": schema}
                for name, (_, schema) in TOOLS.items()
            ]
        }
    if method == "tools/call":
        function, _ = TOOLS[params["name"]]
        outcome = function(**(params.get("arguments") or {}))
        return {"content": [{"type": "text", "text": json.dumps(outcome, sort_keys=True)}]}
    if method == "ping":
        return {}
    return None


def main():
    stubborn = "--stubborn" in sys.argv[1:]
    if stubborn:
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signum, signal.SIG_IGN)
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        if "id" not in message:
            continue  # a notification
        result = _answer(message.get("method"), message.get("params") or {})
        if result is None:
            _reply(message["id"], error={"code": -32601, "message": "Method not found"})
        else:
            _reply(message["id"], result)
    while stubborn:
        signal.pause()


if __name__ == "__main__":
    main()
