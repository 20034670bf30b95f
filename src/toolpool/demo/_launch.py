"""Start a demo server as a child process: the command, its environment, and HTTP/SSE on a free port."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import anyio
from anyio.abc import Process

from toolpool.demo._catalog import KINDS
from toolpool.demo._serving import HTTP_PATH, SSE_PATH

__all__ = ["DemoEndpoint", "demo_command", "demo_environment", "serve_demo_http"]

# uvicorn bounds its own graceful shutdown (2 s); the rest is interpreter teardown.
_TERMINATE_GRACE_S = 5.0
# SIGKILL cannot be refused: this only bounds how long the event loop takes to see the exit.
_KILL_REAP_S = 5.0

# src/toolpool/demo/_launch.py -> the directory that holds the `toolpool` package.
_IMPORT_ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True, slots=True)
class DemoEndpoint:
    """A running HTTP/SSE demo server: where to reach it, and its process (to kill it in tests)."""

    url: str
    pid: int


def demo_environment() -> dict[str, str]:
    """The whole environment a demo server needs: where to import toolpool from, nothing of the host's.

    Python itself adds `LC_CTYPE=C.UTF-8` to a process started without locale variables
    (PEP 538), so a demo server's `process_info` shows that key too.
    """
    return {"PYTHONPATH": str(_IMPORT_ROOT)}


def demo_command(kind: str, *args: str) -> list[str]:
    """The argument list that runs demo server `kind` with this interpreter."""
    return [sys.executable, "-m", "toolpool.demo", kind, *args]


@asynccontextmanager
async def serve_demo_http(
    kind: str, *, transport: Literal["http", "sse"] = "http", args: Sequence[str] = ()
) -> AsyncIterator[DemoEndpoint]:
    """Run demo server `kind` over streamable HTTP or SSE on a free 127.0.0.1 port; yield where it is.

    The listening socket exists before the child starts and is handed to it as `--fd`, so the
    URL is right at once: a client that connects before the server is ready waits in the
    backlog, with no polling. The child gets only `demo_environment()`. On exit it is sent
    SIGTERM, then SIGKILL if it outlasts a grace period, and reaped.

    Yields:
        a `DemoEndpoint` whose url is `http://127.0.0.1:PORT/mcp` for http, `.../sse` for sse.

    Raises:
        ValueError: `kind` is unknown or cannot run over `transport`.
    """
    if kind not in KINDS or transport not in KINDS[kind].transports:
        raise ValueError(f"demo kind {kind!r} cannot be served over {transport}")
    path = HTTP_PATH if transport == "http" else SSE_PATH
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        fd = listener.fileno()
        process = await anyio.open_process(
            demo_command(kind, "--transport", transport, "--fd", str(fd), *args),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=None,
            env=demo_environment(),
            pass_fds=(fd,),
        )
    # Our copy is closed: the child holds the only one, so if it dies, clients are refused
    # instead of waiting in a backlog nobody accepts from.
    try:
        yield DemoEndpoint(f"http://127.0.0.1:{port}{path}", process.pid)
    finally:
        with anyio.CancelScope(shield=True):
            await _stop(process)


async def _stop(process: Process) -> None:
    if process.returncode is None:
        with suppress(ProcessLookupError):
            process.terminate()
        with anyio.move_on_after(_TERMINATE_GRACE_S):
            await process.wait()
    if process.returncode is None:
        with suppress(ProcessLookupError):
            process.kill()
    with anyio.fail_after(_KILL_REAP_S):
        await process.wait()
