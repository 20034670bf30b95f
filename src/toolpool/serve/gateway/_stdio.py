"""Serving one MCP client on stdin/stdout, through the SDK's stdio server transport.

The process has exactly one client, so it has one client view, made before the first request:
its principal and ticket are the operator's (``toolpool serve --stdio --allow GLOB``). The
SDK's ``Server.run`` serves both protocol eras on the one pipe: the client's first request
decides (``initialize``: the handshake era; a request carrying the 2026-07-28 ``_meta``
envelope: the modern one). Serving ends when stdin reaches end of file, or on ``stop``.

The bytes move on the event loop, through private duplicates of descriptors 0 and 1
(``_Pipe``): the SDK's own stdio transport runs every line and every flush through a worker
thread, which cost more per call than the rest of the hop's plumbing (bench/RESULTS §7), and a
blocking read in a thread cannot be interrupted by a stop. While serving, descriptor 1 points
at stderr, so stray output misses the wire.

Framing and parsing are ours too (``_wire``), because the SDK's transport drops a line it
cannot parse without a word, and its client then waits forever. Here every line that is not a
valid message gets exactly one JSON-RPC error (``toolpool._salvage.answer``: under its own id
when it has a usable one), and so does a request whose id is not a string or an integer (the
SDK would take it for a notification); blank lines and valid notifications get nothing.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import anyio
import anyio.lowlevel
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server.context import ServerRequestContext
from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE
from mcp.shared.message import SessionMessage
from mcp_types import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    ErrorData,
    JSONRPCError,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    jsonrpc_message_adapter,
)
from pydantic import ValidationError

from toolpool._salvage import answer, salvage
from toolpool.serve.gateway._clients import ClientView
from toolpool.serve.gateway._front import build_server
from toolpool.serve.gateway._gateway import Gateway
from toolpool.serve.gateway._lean import LeanFront
from toolpool.tickets import Ticket

__all__ = ["MAX_LINE_BYTES", "serve_stdio"]

_STDIO_CLIENT = "stdio"
# The longest message a client may send on one line: the SDK's limit for an HTTP body.
MAX_LINE_BYTES = DEFAULT_MAX_REQUEST_BODY_SIZE
_READ_CHUNK = 64 * 1024
# A pipe that polls writable has room for at least this much: a write this size cannot block.
_WRITE_CHUNK = 4096


class _OneClient:
    def __init__(self, view: ClientView) -> None:
        self._view = view

    def view(self, ctx: ServerRequestContext[Any]) -> ClientView:
        return self._view


class _Pipe:
    """One descriptor read or written on the event loop: wait until it is ready, then one
    ``os.read`` / ``os.write`` that cannot block. The descriptor stays in blocking mode (its
    open file may be shared with the client, a terminal say); files and devices that cannot
    be polled (a regular file, /dev/null) never block, so they are read and written directly."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._pollable = not stat.S_ISREG(os.fstat(fd).st_mode)

    async def _ready(self, wait: Callable[[int], Awaitable[None]]) -> None:
        if self._pollable:
            try:
                await wait(self.fd)
                return
            except PermissionError:  # epoll refuses descriptors that cannot be polled
                self._pollable = False
        await anyio.lowlevel.checkpoint()

    async def read(self) -> bytes:
        await self._ready(anyio.wait_readable)
        return os.read(self.fd, _READ_CHUNK)

    async def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            await self._ready(anyio.wait_writable)
            view = view[os.write(self.fd, view[:_WRITE_CHUNK]) :]


class _Lines:
    """The lines of a ``_Pipe``, as text with the newline kept (bytes that are not UTF-8 read
    as U+FFFD); None for a line longer than ``MAX_LINE_BYTES``, which is dropped unread as it
    arrives, so a client cannot make the front hold an unbounded line."""

    def __init__(self, pipe: _Pipe) -> None:
        self._pipe = pipe
        self._buffer = bytearray()
        self._scanned = 0  # the buffer holds no newline before this offset
        self._oversized = False
        self._ended = False

    def __aiter__(self) -> _Lines:
        return self

    async def __anext__(self) -> str | None:
        while True:
            end = self._buffer.find(b"\n", self._scanned)
            if end >= 0:
                line = bytes(self._buffer[: end + 1])
                del self._buffer[: end + 1]
                self._scanned = 0
                self._oversized |= len(line) > MAX_LINE_BYTES
                return self._line(line)
            self._scanned = len(self._buffer)
            if self._ended:
                if not (self._buffer or self._oversized):
                    raise StopAsyncIteration
                line = bytes(self._buffer)
                self._buffer.clear()
                return self._line(line)
            if len(self._buffer) > MAX_LINE_BYTES:
                self._oversized = True
                self._buffer.clear()
                self._scanned = 0
            chunk = await self._pipe.read()
            self._ended = not chunk
            self._buffer += chunk

    def _line(self, line: bytes) -> str | None:
        if self._oversized:
            self._oversized = False
            return None
        return line.decode("utf-8", errors="replace")


@contextlib.contextmanager
def _claimed_stdio() -> Iterator[tuple[_Pipe, _Pipe]]:
    """Private duplicates of descriptors 0 and 1, with 1 pointing at stderr meanwhile."""
    stdin = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    stdout = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
    try:
        os.dup2(2, 1)
        try:
            yield _Pipe(stdin), _Pipe(stdout)
        finally:
            os.dup2(stdout, 1)
    finally:
        os.close(stdout)
        os.close(stdin)


async def serve_stdio(
    gateway: Gateway, principal: str, ticket: Ticket, stop: anyio.Event, *, lean: bool = True
) -> None:
    """Serve ``gateway`` on this process's stdin and stdout until stdin closes or ``stop`` is set.

    ``lean`` answers ``tools/call``, ``tools/list`` and ``ping`` on the lean front
    (``_lean``); without it the SDK's server answers every message. Nothing else may write to
    stdout meanwhile: it carries the protocol.
    """
    view = gateway.view(_STDIO_CLIENT, principal, ticket, prunable=False)
    server = build_server(gateway, _OneClient(view))
    front = LeanFront(gateway, server, view) if lean else None
    with _claimed_stdio() as (stdin, stdout):
        async with anyio.create_task_group() as tasks:

            async def stop_when_asked() -> None:
                await stop.wait()
                tasks.cancel_scope.cancel()

            tasks.start_soon(stop_when_asked)
            async with _wire(stdin, stdout, front) as (read_stream, write_stream):
                await server.run(read_stream, write_stream, server.create_initialization_options())
            tasks.cancel_scope.cancel()


@contextlib.asynccontextmanager
async def _wire(
    stdin: _Pipe, stdout: _Pipe, front: LeanFront | None
) -> AsyncIterator[
    tuple[
        MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage | bytes]
    ]
]:
    """The server's two streams over the pipes: one message per line each way. A line that is
    not a message is answered here, and the lean front's answers (lines already encoded) are
    written, through the same queue as the server's, one writer: answers never interleave, and
    what the reader answers comes out in the order the lines came in."""
    inbound, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, outbound = anyio.create_memory_object_stream[SessionMessage | bytes](0)
    answers = write_stream.clone()

    async def read() -> None:
        # The lean front's calls run in their own group, so the queue stays open for their
        # answers until the last has ended.
        async with inbound, answers, anyio.create_task_group() as calls:
            async for line in _Lines(stdin):
                hot = None if front is None or line is None else front.take(line)
                if hot is not None and front is not None:
                    if hot.method == "tools/call":
                        calls.start_soon(front.answer, hot, answers.send)
                    else:
                        await front.answer(hot, answers.send)
                    continue
                message = _TOO_LONG if line is None else _message(line)
                if isinstance(message, JSONRPCError):
                    await answers.send(SessionMessage(message))
                elif message is not None:
                    if front is not None:
                        _observe(front, message.message)
                    await inbound.send(message)

    async def write() -> None:
        async with outbound:
            async for message in outbound:
                if isinstance(message, bytes):
                    await stdout.write(message)
                    continue
                if front is not None and isinstance(message.message, JSONRPCResponse):
                    front.era.outbound(message.message.id, message.message.result)
                await stdout.write(_encoded(message))

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read)
        tasks.start_soon(write)
        yield read_stream, write_stream


_TOO_LONG = JSONRPCError(
    jsonrpc="2.0",
    id=None,
    error=ErrorData(
        code=INVALID_REQUEST, message=f"Invalid Request: a message is at most {MAX_LINE_BYTES} bytes"
    ),
)


def _observe(front: LeanFront, message: object) -> None:
    """What the lean front learns from a message on its way to the SDK: the era, and the
    cancellation of a call it is serving."""
    if isinstance(message, JSONRPCRequest):
        front.era.inbound({"method": message.method, "id": message.id, "params": message.params})
    elif isinstance(message, JSONRPCNotification) and message.method == "notifications/cancelled":
        front.cancel((message.params or {}).get("requestId"))


def _message(line: str) -> SessionMessage | JSONRPCError | None:
    """The message on one line; or the error that answers it; or None: nothing to do."""
    if not line.strip(" \t\r\n"):  # JSON's whitespace only
        return None
    try:
        message = jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValidationError as problem:
        return answer(line, problem)
    # A request whose id is null, a fraction, a boolean, ... parses as a notification; only a
    # line that may spell an `id` key is looked at again.
    if (
        isinstance(message, JSONRPCNotification)
        and ('"id"' in line or "\\u" in line)
        and salvage(line).has_id
    ):
        return answer(line)
    return SessionMessage(message)


def _encoded(message: SessionMessage) -> bytes:
    """One line of JSON; an answer that cannot be encoded (a lone surrogate in some text,
    say) becomes an error under its id rather than no answer."""
    try:
        return (message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n").encode()
    except ValueError:
        failed = message.message
        if not isinstance(failed, JSONRPCResponse | JSONRPCError):
            return b""
        error = ErrorData(code=INTERNAL_ERROR, message="the answer could not be encoded as JSON")
        return (JSONRPCError(jsonrpc="2.0", id=failed.id, error=error).model_dump_json() + "\n").encode()
