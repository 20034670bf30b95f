"""toolpool's own stdio transport: exact environment, own process group, certain reaping.

The SDK's stdio transport always adds ``HOME``, ``PATH``, ``USER`` and friends from the
host; R14 needs the child to get exactly the configured environment, so toolpool owns
this transport. The server is started from an argument list (never a shell) in a new
session, so that its whole process group can be signalled. Closing follows the MCP
shutdown order — close stdin, grace, SIGTERM to the group, grace, SIGKILL to the group —
and always signals the group, even when the leader is already gone, because a server's
own children would otherwise outlive it (R13). Every wait is bounded and shielded.

Every server runs under resource limits, and optionally inside bubblewrap: both are
wrappers around the argument list (``toolpool.upstream.sandbox``), so the process spawned
is still the group leader that closing kills.
"""

from __future__ import annotations

import collections
import contextlib
import errno
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

import anyio
import anyio.abc
import mcp_types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.client._transport import TransportStreams
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from toolpool._salvage import salvage
from toolpool.upstream.sandbox import Bwrap, Limits, wrap_argv

__all__ = ["StdioLaunch", "StdioTransport"]

# Grace for a server to exit by itself once its stdin closes (the spec's first step).
STDIN_CLOSE_GRACE_S = 2.0
# Grace between SIGTERM and SIGKILL to the process group.
TERM_GRACE_S = 2.0
# After SIGKILL only the kernel is left; this bounds waiting for it.
KILL_REAP_S = 2.0
# How often shutdown re-checks whether the group is gone (shutdown only; calls never poll).
_GROUP_POLL_S = 0.01
# Liveness fallback where pidfd_open is unavailable.
_EXIT_POLL_S = 0.2
_READ_CHUNK = 64 * 1024
_STDERR_TAIL_BYTES = 16 * 1024
# Interpreter names that mean "the Python running toolpool" (so a virtualenv's servers work
# without any PATH in the child's exact environment).
_THIS_PYTHON = frozenset({"python", "python3"})


@dataclass(frozen=True, slots=True)
class StdioLaunch:
    """Exactly what to start: no shell, no inherited environment, limits, maybe a sandbox."""

    command: str
    args: Sequence[str]
    env: Mapping[str, str]
    cwd: Path | None
    max_message_bytes: int = 16 * 1024 * 1024
    limits: Limits = field(default_factory=Limits)
    sandbox: Bwrap | None = None

    def argv(self) -> list[str]:
        """The argument list spawned: wrappers first, then the command and its arguments.

        Raises:
            FileNotFoundError: the command (or a wrapper program) does not exist.
        """
        command = _resolve(self.command, self.env)
        return wrap_argv(command, self.args, self.env, self.cwd, self.limits, self.sandbox)


def _resolve(command: str, env: Mapping[str, str]) -> str:
    """The command as the child would find it: through the *configured* PATH, or the default.

    Resolved here rather than by a wrapper's ``exec``, so that a missing command still fails
    the spawn itself, and so that bwrap is handed a path it can make visible.
    """
    if command in _THIS_PYTHON:
        return sys.executable
    if "/" in command:
        return command
    found = shutil.which(command, path=env.get("PATH", os.defpath))
    if found is None:
        raise FileNotFoundError(errno.ENOENT, "no such command in the configured PATH", command)
    return found


class StdioTransport:
    """An SDK ``Transport`` over a child process's stdin/stdout.

    ``lost`` is set as soon as the process exits or its stdout closes, whether or not a
    request is in flight: the watchdog's signal for R12.
    """

    def __init__(self, launch: StdioLaunch) -> None:
        self._launch = launch
        self.lost = anyio.Event()
        self.pid: int | None = None
        self._context: contextlib.AbstractAsyncContextManager[TransportStreams] | None = None
        self._stderr_tail: collections.deque[bytes] = collections.deque()
        self._stderr_size = 0

    def stderr_tail(self) -> str:
        """The last few KiB the server wrote to stderr: untrusted, for operators only."""
        return b"".join(self._stderr_tail).decode("utf-8", "replace")

    async def __aenter__(self) -> TransportStreams:
        self._context = self._run()
        return await self._context.__aenter__()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        assert self._context is not None
        return await self._context.__aexit__(exc_type, exc, tb)

    @contextlib.asynccontextmanager
    async def _run(self) -> AsyncIterator[TransportStreams]:
        process = await anyio.open_process(
            self._launch.argv(),
            env=dict(self._launch.env),
            cwd=self._launch.cwd,
            start_new_session=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        # No await between the spawn and the task group, so a cancellation cannot leak it.
        self.pid = process.pid
        read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(self._read_stdout, process, read_writer)
            tasks.start_soon(self._write_stdin, process, write_reader)
            tasks.start_soon(self._drain_stderr, process)
            tasks.start_soon(self._watch_exit, process)
            try:
                yield read_stream, write_stream
            finally:
                with anyio.CancelScope(shield=True):
                    for stream in (read_writer, read_stream, write_stream, write_reader):
                        stream.close()
                    await stop_process_group(process)
                    self.lost.set()
                tasks.cancel_scope.cancel()

    async def _read_stdout(
        self, process: anyio.abc.Process, sink: MemoryObjectSendStream[SessionMessage | Exception]
    ) -> None:
        assert process.stdout is not None
        buffer = bytearray()
        limit = self._launch.max_message_bytes
        try:
            async with sink:
                while True:
                    try:
                        chunk = await process.stdout.receive(_READ_CHUNK)
                    except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                        return
                    buffer += chunk
                    *lines, rest = buffer.split(b"\n")
                    buffer = bytearray(rest)
                    if len(buffer) > limit:
                        return  # a message larger than allowed: treat the peer as broken
                    for line in lines:
                        if line.strip():
                            await sink.send(_parse_line(bytes(line)))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass
        finally:
            self.lost.set()

    async def _write_stdin(
        self, process: anyio.abc.Process, source: MemoryObjectReceiveStream[SessionMessage]
    ) -> None:
        assert process.stdin is not None
        try:
            async with source:
                async for message in source:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send(data.encode() + b"\n")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            self.lost.set()

    async def _drain_stderr(self, process: anyio.abc.Process) -> None:
        assert process.stderr is not None
        with contextlib.suppress(
            anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError
        ):
            while True:
                chunk = await process.stderr.receive(_READ_CHUNK)
                self._stderr_tail.append(chunk)
                self._stderr_size += len(chunk)
                while self._stderr_size > _STDERR_TAIL_BYTES and len(self._stderr_tail) > 1:
                    self._stderr_size -= len(self._stderr_tail.popleft())

    async def _watch_exit(self, process: anyio.abc.Process) -> None:
        await _wait_exit(process)
        self.lost.set()


def _parse_line(line: bytes) -> SessionMessage | Exception:
    """One message from the server. A line that does not parse but answers one of our
    requests (an id, no method) becomes a parse error for that request, as the SDK's HTTP
    client does: dropped, it would leave the request waiting for its timeout."""
    try:
        return SessionMessage(mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:  # pydantic's ValidationError is a ValueError
        found = salvage(line.decode("utf-8", "replace"))
        if found.id is None or "method" in found.keys:
            return exc
        problem = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) and exc.errors() else str(exc)
        error = mcp_types.ErrorData(code=mcp_types.PARSE_ERROR, message=f"unreadable answer: {problem}")
        return SessionMessage(mcp_types.JSONRPCError(jsonrpc="2.0", id=found.id, error=error))


async def _wait_exit(process: anyio.abc.Process) -> None:
    """Return when the process has exited, without waiting for its pipes to close."""
    pidfd = _pidfd_open(process.pid)
    if pidfd is None:
        while process.returncode is None:  # noqa: ASYNC110 - no exit event without a pidfd
            await anyio.sleep(_EXIT_POLL_S)
        return
    try:
        if process.returncode is None:
            await anyio.wait_readable(pidfd)
    finally:
        os.close(pidfd)


def _pidfd_open(pid: int) -> int | None:
    opener = getattr(os, "pidfd_open", None)
    if opener is None:
        return None
    try:
        fd: int = opener(pid)
    except OSError:
        return None
    return fd


async def stop_process_group(process: anyio.abc.Process) -> None:
    """Stop a server and everything in its process group; bounded, never raises."""
    if process.stdin is not None:
        with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdin.aclose()
    with anyio.move_on_after(STDIN_CLOSE_GRACE_S):
        await _wait_exit(process)
    # The leader's pid is the group id (start_new_session). Signal the group even when the
    # leader has exited: its children are still in the group.
    _signal_group(process.pid, signal.SIGTERM)
    with anyio.move_on_after(TERM_GRACE_S):
        await _until_group_gone(process)
    _signal_group(process.pid, signal.SIGKILL)
    with anyio.move_on_after(KILL_REAP_S):
        await _until_group_gone(process)
    for pipe in (process.stdout, process.stderr):
        if pipe is not None:
            with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                await pipe.aclose()
    with anyio.move_on_after(KILL_REAP_S):
        await process.wait()


async def _until_group_gone(process: anyio.abc.Process) -> None:
    # The kernel announces no event when a whole process group is gone: poll, during shutdown only.
    while _group_alive(process):  # noqa: ASYNC110
        await anyio.sleep(_GROUP_POLL_S)


def _signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


def _group_alive(process: anyio.abc.Process) -> bool:
    """Whether any live (non-zombie) member of the group remains."""
    _ = process.returncode  # lets the event loop reap the leader
    try:
        os.killpg(process.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return _has_live_member(process.pid)


def _has_live_member(pgid: int) -> bool:
    # killpg(0) also succeeds for zombies that init has not reaped yet; those are dead.
    try:
        entries = os.listdir("/proc")
    except OSError:
        return True
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] != b"Z":
            return True
    return False
