"""Serving one MCP client on stdin/stdout, through the SDK's stdio server transport.

The process has exactly one client, so it has one client view, made before the first request:
its principal and ticket are the operator's (``toolpool serve --stdio --allow GLOB``). The
SDK's ``Server.run`` serves both protocol eras on the one pipe: the client's first request
decides (``initialize``: the handshake era; a request carrying the 2026-07-28 ``_meta``
envelope: the modern one). Serving ends when stdin reaches end of file, or on ``stop``.

The SDK's transport parses and frames the messages; the bytes move on the event loop, through
private duplicates of descriptors 0 and 1 (``_Pipe``): the SDK's own reader and writer run
every line and every flush through a worker thread, which cost more per call than the rest of
the hop's plumbing (bench/RESULTS §7), and a blocking read in a thread cannot be interrupted
by a stop. While serving, descriptor 1 points at stderr, so stray output misses the wire.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, cast

import anyio
import anyio.lowlevel
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server

from toolpool.serve._front import build_server
from toolpool.serve._gateway import Gateway
from toolpool.serve._views import ClientView
from toolpool.tickets import Ticket

__all__ = ["serve_stdio"]

_STDIO_CLIENT = "stdio"
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
    """The lines of a ``_Pipe``, as the SDK's transport iterates stdin (text, newline kept)."""

    def __init__(self, pipe: _Pipe) -> None:
        self._pipe = pipe
        self._buffer = bytearray()
        self._ended = False

    def __aiter__(self) -> _Lines:
        return self

    async def __anext__(self) -> str:
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line = bytes(self._buffer[: end + 1])
                del self._buffer[: end + 1]
                return line.decode("utf-8", errors="replace")
            if self._ended:
                if not self._buffer:
                    raise StopAsyncIteration
                line = bytes(self._buffer)
                self._buffer.clear()
                return line.decode("utf-8", errors="replace")
            chunk = await self._pipe.read()
            self._ended = not chunk
            self._buffer += chunk


class _Writer:
    """What the SDK's transport writes its messages to: each one straight to the pipe."""

    def __init__(self, pipe: _Pipe) -> None:
        self._pipe = pipe

    async def write(self, text: str) -> None:
        await self._pipe.write(text.encode("utf-8"))

    async def flush(self) -> None:
        """Nothing is buffered."""


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


async def serve_stdio(gateway: Gateway, principal: str, ticket: Ticket, stop: anyio.Event) -> None:
    """Serve ``gateway`` on this process's stdin and stdout until stdin closes or ``stop`` is set.

    Nothing else may write to stdout meanwhile: it carries the protocol.
    """
    view = gateway.view(_STDIO_CLIENT, principal, ticket, prunable=False)
    server = build_server(gateway, _OneClient(view))
    with _claimed_stdio() as (stdin, stdout):
        async with anyio.create_task_group() as tasks:

            async def stop_when_asked() -> None:
                await stop.wait()
                tasks.cancel_scope.cancel()

            tasks.start_soon(stop_when_asked)
            # The SDK only iterates `stdin` and calls `write` and `flush` on `stdout`; it types
            # them as anyio files.
            async with stdio_server(
                stdin=cast(anyio.AsyncFile[str], _Lines(stdin)),
                stdout=cast(anyio.AsyncFile[str], _Writer(stdout)),
            ) as (read_stream, write_stream):
                await server.run(read_stream, write_stream, server.create_initialization_options())
            tasks.cancel_scope.cancel()
