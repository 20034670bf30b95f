"""Serving one MCP client on stdin/stdout, through the SDK's stdio server transport.

The process has exactly one client, so it has one client view, made before the first request:
its principal and ticket are the operator's (``toolpool serve --stdio --allow GLOB``). The
SDK's ``Server.run`` serves both protocol eras on the one pipe: the client's first request
decides (``initialize``: the handshake era; a request carrying the 2026-07-28 ``_meta``
envelope: the modern one). Serving ends when stdin reaches end of file, or on ``stop``.

stdin's lines come from a daemon thread of ours (``_StdinLines``), not from the SDK's reader:
the SDK reads stdin in an anyio worker thread, and a blocking read cannot be interrupted, so a
stop would wait for the client's next line, and the interpreter would wait for that thread at
exit. A daemon thread is left behind on a stop and ends with the process.
"""

from __future__ import annotations

import contextlib
import os
import threading
from typing import IO, Any, cast

import anyio
import anyio.from_thread
import anyio.lowlevel
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server

from toolpool.serve._front import build_server
from toolpool.serve._gateway import Gateway
from toolpool.serve._views import ClientView
from toolpool.tickets import Ticket

__all__ = ["serve_stdio"]

_STDIO_CLIENT = "stdio"


class _OneClient:
    def __init__(self, view: ClientView) -> None:
        self._view = view

    def view(self, ctx: ServerRequestContext[Any]) -> ClientView:
        return self._view


class _StdinLines:
    """The lines of file descriptor ``fd``, read by a daemon thread, as an async iterator."""

    def __init__(self, fd: int) -> None:
        # A reader of our own (on a duplicate): the interpreter never flushes or closes it at
        # exit, so a daemon thread blocked in it cannot trip the shutdown of sys.stdin.
        self._file: IO[bytes] = open(os.dup(fd), "rb")  # noqa: SIM115 - owned by the thread
        self._send, self._receive = anyio.create_memory_object_stream[str](0)

    def start(self) -> None:
        token = anyio.lowlevel.current_token()
        threading.Thread(target=self._pump, args=(token,), name="toolpool stdin", daemon=True).start()

    def _pump(self, token: anyio.lowlevel.EventLoopToken) -> None:
        try:
            for raw in iter(self._file.readline, b""):
                line = raw.decode("utf-8", errors="replace")
                anyio.from_thread.run(self._send.send, line, token=token)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.RunFinishedError, OSError):
            return  # the server stopped listening, or the process is ending
        finally:
            with contextlib.suppress(anyio.RunFinishedError):
                anyio.from_thread.run_sync(self._send.close, token=token)
            self._file.close()

    def __aiter__(self) -> _StdinLines:
        return self

    async def __anext__(self) -> str:
        try:
            return await self._receive.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    def close(self) -> None:
        self._receive.close()


async def serve_stdio(gateway: Gateway, principal: str, ticket: Ticket, stop: anyio.Event) -> None:
    """Serve ``gateway`` on this process's stdin and stdout until stdin closes or ``stop`` is set.

    Nothing else may write to stdout meanwhile: it carries the protocol.
    """
    view = gateway.view(_STDIO_CLIENT, principal, ticket, prunable=False)
    server = build_server(gateway, _OneClient(view))
    lines = _StdinLines(0)
    lines.start()
    try:
        async with anyio.create_task_group() as tasks:

            async def stop_when_asked() -> None:
                await stop.wait()
                tasks.cancel_scope.cancel()

            tasks.start_soon(stop_when_asked)
            # The SDK only iterates `stdin` line by line; it types it as an anyio file.
            async with stdio_server(stdin=cast(anyio.AsyncFile[str], lines)) as (read_stream, write_stream):
                await server.run(read_stream, write_stream, server.create_initialization_options())
            tasks.cancel_scope.cancel()
    finally:
        lines.close()
