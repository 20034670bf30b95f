"""stubborn: a stdio server that is hard to kill, for reaping tests.

Building it has effects on the whole process: SIGTERM, SIGINT and SIGHUP become ignored, and a
child starts that ignores them too (it inherits all three and sets SIGTERM and SIGHUP again
itself) and sleeps forever. The child stays in this
process's group (no new session), so only a kill of the group, or of each pid, ends both. The
server itself outlives its stdin: the CLI keeps it running after the stdio loop ends.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Mapping
from typing import Any

from mcp import types
from mcp.server.lowlevel import Server

from toolpool.demo._toolbox import DemoTool, build_server, text

__all__ = ["IGNORED_SIGNALS", "build_stubborn"]

IGNORED_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)

_CHILD_CODE = """\
import signal
signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
while True:
    signal.pause()
"""

_EMPTY: Mapping[str, Any] = {"type": "object", "properties": {}}


def _start_child() -> subprocess.Popen[bytes]:
    # Ignored dispositions survive exec, so the child ignores the signals from its first
    # instruction: no window in which a SIGTERM to the group would still kill it.
    # Its standard streams are /dev/null so that it holds none of the server's pipes.
    return subprocess.Popen(
        [sys.executable, "-c", _CHILD_CODE],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def build_stubborn() -> Server[Any]:
    for signum in IGNORED_SIGNALS:
        signal.signal(signum, signal.SIG_IGN)
    child = _start_child()

    async def ping(arguments: Mapping[str, Any]) -> types.CallToolResult:
        return text("pong")

    async def report_pids(arguments: Mapping[str, Any]) -> types.CallToolResult:
        # Refers to `child`, so the Popen lives as long as the server and never warns at GC.
        return text(json.dumps({"pid": os.getpid(), "child_pid": child.pid}))

    return build_server(
        "stubborn",
        (
            DemoTool("ping", "Answer pong.", _EMPTY, ping),
            DemoTool("pids", "Report this server's pid and its child's pid.", _EMPTY, report_pids),
        ),
    )
