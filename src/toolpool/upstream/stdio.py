"""toolpool's own stdio transport: exact environment, and every process it started reaped.

The SDK's stdio transport always adds ``HOME``, ``PATH``, ``USER`` and friends from the
host; R14 needs the child to get exactly the configured environment, so toolpool owns
this transport. The server is started from an argument list (never a shell), under a reaper
shim that keeps everything the server starts below it however it detaches, and closing ends
all of it — close stdin, grace, SIGTERM, grace, SIGKILL until nothing is left
(``toolpool.upstream._reaper``, R13). Every wait is bounded and shielded.

Every server runs under resource limits, and optionally inside bubblewrap: both are
wrappers around the argument list (``toolpool.upstream.sandbox``), so the process the shim
spawns is still the leader of the process group the server runs in.
"""

from __future__ import annotations

import collections
import contextlib
import errno
import os
import shutil
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

import anyio
import mcp_types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.client._transport import TransportStreams
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from toolpool._salvage import salvage
from toolpool.upstream._reaper import ServerProcess, start_server
from toolpool.upstream.sandbox import Bwrap, Limits, wrap_argv

__all__ = ["StdioLaunch", "StdioTransport"]

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
        server = await start_server(self._launch.argv(), self._launch.env, self._launch.cwd)
        # No await between the start and the task group, so a cancellation cannot leak it.
        self.pid = server.pid
        read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(self._read_stdout, server, read_writer)
            tasks.start_soon(self._write_stdin, server, write_reader)
            tasks.start_soon(self._drain_stderr, server)
            tasks.start_soon(self._watch_exit, server)
            try:
                yield read_stream, write_stream
            finally:
                with anyio.CancelScope(shield=True):
                    for stream in (read_writer, read_stream, write_stream, write_reader):
                        stream.close()
                    await server.stop()
                    self.lost.set()
                tasks.cancel_scope.cancel()

    async def _read_stdout(
        self, server: ServerProcess, sink: MemoryObjectSendStream[SessionMessage | Exception]
    ) -> None:
        stdout = server.process.stdout
        assert stdout is not None
        buffer = bytearray()
        limit = self._launch.max_message_bytes
        try:
            async with sink:
                while True:
                    try:
                        chunk = await stdout.receive(_READ_CHUNK)
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
        self, server: ServerProcess, source: MemoryObjectReceiveStream[SessionMessage]
    ) -> None:
        stdin = server.process.stdin
        assert stdin is not None
        try:
            async with source:
                async for message in source:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await stdin.send(data.encode() + b"\n")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            self.lost.set()

    async def _drain_stderr(self, server: ServerProcess) -> None:
        stderr = server.process.stderr
        assert stderr is not None
        with contextlib.suppress(
            anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError
        ):
            while True:
                chunk = await stderr.receive(_READ_CHUNK)
                self._stderr_tail.append(chunk)
                self._stderr_size += len(chunk)
                while self._stderr_size > _STDERR_TAIL_BYTES and len(self._stderr_tail) > 1:
                    self._stderr_size -= len(self._stderr_tail.popleft())

    async def _watch_exit(self, server: ServerProcess) -> None:
        await server.wait_exit()
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
