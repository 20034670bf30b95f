"""Processes for the gateway bench: servers it starts itself, their CPU time, and their reaping.

A server started here runs in a session of its own, and its stderr is drained all along (a
full pipe would stall it). Stopping is bounded: SIGTERM (toolpool and uvicorn then close
gracefully and reap their own children), a wait, SIGKILL to the process group; then any
descendant that outlived its parent (upstream servers run in process groups of their own) is
killed and reaped too. Every child of the bench is accounted for at the end
(``kill_strays``).
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import anyio.abc

__all__ = [
    "BENCH",
    "FASTMCP_PYTHON",
    "START_S",
    "STOP_S",
    "Server",
    "children",
    "cpu_seconds",
    "descendants",
    "ensure_fastmcp",
    "kill_strays",
    "reap",
    "started",
    "thread_cpu",
]

BENCH = Path(__file__).resolve().parent
FASTMCP_PYTHON = BENCH / ".venv-fastmcp" / "bin" / "python"
# A server's start is Python's start-up plus importing the MCP SDK (about 2 s of CPU here) and,
# for the proxies, their upstream's start: seconds on a busy 2-core machine.
START_S = 60.0
# uvicorn's graceful window (2 s for the demo, FastMCP's and toolpool's) plus reaping children.
STOP_S = 15.0
_SETUP_S = 600.0  # creating the FastMCP virtualenv: a pip install from the registry
_TICKS = os.sysconf("SC_CLK_TCK")
_KEPT_LINES = 40
_POLL_S = 0.05


@dataclass
class Server:
    """A running server process, what it said on stderr (the last lines) and its URL, if any."""

    process: anyio.abc.Process
    stderr: list[str] = field(default_factory=list)
    url: str = ""

    @property
    def pid(self) -> int:
        return self.process.pid


@asynccontextmanager
async def started(
    command: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path | None = None,
    ready: str | None = None,
    pass_fds: Sequence[int] = (),
    start_s: float = START_S,
) -> AsyncIterator[Server]:
    """``command`` running, ready once a line of its stderr contains ``ready`` (the rest of
    that line is its URL) within ``start_s``; always stopped and reaped, with its
    descendants, on exit."""
    process = await anyio.open_process(
        list(command),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=dict(env),
        cwd=cwd,
        start_new_session=True,
        pass_fds=pass_fds,
    )
    server, said = Server(process), anyio.Event()
    family: set[int] = set()
    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_drain, server, ready, said)
            try:
                if ready is not None:
                    with anyio.fail_after(start_s):
                        await said.wait()
                yield server
            finally:
                # Children first: once their parent is gone, nothing names them any more.
                with anyio.CancelScope(shield=True):
                    family = descendants(process.pid)
                    await _stop(process)  # stderr is still drained meanwhile
                tasks.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await _stop(process)  # a no-op unless the task group itself failed
            await reap(family)


async def _drain(server: Server, ready: str | None, said: anyio.Event) -> None:
    stream = server.process.stderr
    assert stream is not None
    pending = b""
    async for chunk in stream:
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for raw in lines:
            line = raw.decode(errors="replace")
            server.stderr = [*server.stderr[-_KEPT_LINES:], line]
            if ready is not None and ready in line and not said.is_set():
                server.url = line.rsplit(" ", 1)[-1]
                said.set()


async def _stop(process: anyio.abc.Process) -> None:
    if process.returncode is None:
        with suppress(ProcessLookupError):
            process.send_signal(signal.SIGTERM)
        with anyio.move_on_after(STOP_S):
            await process.wait()
            return
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    with anyio.move_on_after(STOP_S):
        await process.wait()


async def reap(pids: set[int]) -> None:
    """Give processes that should be ending a bounded moment, then SIGKILL what is left.
    Their parent (ours or one of ours) waits for them; this only makes sure they end."""
    for _ in range(int(STOP_S / _POLL_S)):
        if not any(_alive(pid) for pid in pids):
            return
        await anyio.sleep(_POLL_S)
    for pid in pids:
        if _alive(pid):
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def _stat(pid: int, task: int | None = None) -> list[bytes] | None:
    """The fields of /proc/PID/stat (or of its thread TASK) after the command name (state
    first), or None."""
    path = f"/proc/{pid}/stat" if task is None else f"/proc/{pid}/task/{task}/stat"
    try:
        with open(path, "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()
    except OSError:
        return None


def _alive(pid: int) -> bool:
    fields = _stat(pid)
    return fields is not None and fields[0] != b"Z"


def _parents() -> dict[int, list[int]]:
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (fields := _stat(int(entry))) is not None:
            parents.setdefault(int(fields[1]), []).append(int(entry))
    return parents


def children(pid: int) -> set[int]:
    """The processes whose parent is ``pid``, zombies included."""
    return set(_parents().get(pid, []))


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (children, their children, ...), zombies included."""
    parents = _parents()
    found: set[int] = set()
    frontier = [pid]
    while frontier:
        children = parents.get(frontier.pop(), [])
        found.update(children)
        frontier.extend(children)
    return found


def cpu_seconds(pid: int, *, main_thread: bool = False) -> float:
    """User + system CPU time so far of ``pid``, or of its main thread only (0 once it is
    gone), at clock-tick resolution."""
    fields = _stat(pid, pid if main_thread else None)
    return 0.0 if fields is None else (int(fields[11]) + int(fields[12])) / _TICKS


def thread_cpu(pid: int) -> dict[str, float]:
    """CPU seconds so far of each thread of ``pid``, summed by thread name (``main`` for the
    main thread; other names as the threads set them, e.g. by ``_profiled_serve.py``)."""
    used: dict[str, float] = {}
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return used
    for task in map(int, tasks):
        fields = _stat(pid, task)
        try:
            with open(f"/proc/{pid}/task/{task}/comm", encoding="utf-8", errors="replace") as comm:
                name = "main" if task == pid else comm.read().strip()
        except OSError:
            continue
        if fields is not None:
            used[name] = used.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / _TICKS
    return used


def kill_strays() -> set[int]:
    """Kill and name the processes below this one still running: none, once the bench has
    closed everything (their parent, or init for orphans, reaps them)."""
    left = {pid for pid in descendants(os.getpid()) if _alive(pid)}
    for pid in left:
        with suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return left


def ensure_fastmcp() -> Path:
    """FastMCP's own virtualenv (bench/setup-fastmcp, pinned in bench/requirements-fastmcp.txt),
    made on first use: it pins its own MCP SDK, which must not touch toolpool's."""
    if not FASTMCP_PYTHON.exists():
        print("bench/.venv-fastmcp is missing: running bench/setup-fastmcp", flush=True)
        subprocess.run([str(BENCH / "setup-fastmcp")], check=True, timeout=_SETUP_S)
    return FASTMCP_PYTHON
