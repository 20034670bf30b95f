"""Serve a demo server over stdio, streamable HTTP or SSE, through the SDK's own transports.

Which protocol eras each transport serves, as read in mcp 2.3.0 and checked by tests/demo:

- **stdio: both.** `Server.run` (mcp/server/lowlevel/server.py) drives `serve_dual_era_loop`
  (mcp/server/runner.py): the client's first request decides, once per connection. `initialize`
  opens the legacy handshake era; a request whose `params._meta` carries
  `io.modelcontextprotocol/protocolVersion` opens the 2026-07-28 era. A later request from the
  other era is refused (`initialize` → -32022, an enveloped request → -32600).
- **streamable HTTP: both, on the one `/mcp` path.** `StreamableHTTPSessionManager._handle_request`
  (mcp/server/streamable_http_manager.py) routes every request on its `MCP-Protocol-Version`
  header: a value outside `HANDSHAKE_PROTOCOL_VERSIONS` goes to the stateless single-exchange
  entry `handle_modern_request` (mcp/server/_streamable_http_modern.py); no header or a handshake
  version goes to a stateful `Mcp-Session-Id` session driven by `serve_loop`, which is
  handshake-only.
- **SSE: both, because of how we drive it.** `SseServerTransport.connect_sse` (mcp/server/sse.py)
  only yields a duplex stream pair and never looks at the protocol; the era is decided by the loop
  run over that pair. We run `Server.run` on it, as `MCPServer.sse_app` does, so the dual-era
  loop serves SSE too. A server that drove `serve_loop` over SSE would be legacy-only.

uvicorn runs quietly (warnings only). With an inherited socket it is handed over as
`sockets=[...]` rather than uvicorn's `fd=`, which re-wraps any descriptor as AF_UNIX.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from typing import Any

import uvicorn
from mcp.server.lowlevel import Server
from mcp.server.sse import SseServerTransport
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = [
    "HTTP_PATH",
    "MESSAGES_PATH",
    "SSE_PATH",
    "InheritedSocket",
    "Listener",
    "TcpAddress",
    "adopt_listening_socket",
    "serve_http",
    "serve_sse",
    "serve_stdio",
]

HTTP_PATH = "/mcp"
SSE_PATH = "/sse"
MESSAGES_PATH = "/messages/"

# Open SSE streams and hanging calls never end by themselves; without a bound, SIGTERM would
# leave uvicorn waiting on them forever.
_GRACEFUL_SHUTDOWN_S = 2.0

_LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


@dataclass(frozen=True, slots=True)
class TcpAddress:
    host: str
    port: int


@dataclass(frozen=True, slots=True)
class InheritedSocket:
    """A socket that is already bound and listening, passed in by file descriptor."""

    socket: socket.socket

    @property
    def host(self) -> str:
        return str(self.socket.getsockname()[0])


Listener = TcpAddress | InheritedSocket


def adopt_listening_socket(fd: int) -> InheritedSocket:
    """Take over a listening stream socket by descriptor.

    Raises:
        OSError: `fd` is not an open socket.
        ValueError: it is a socket, but not a listening stream socket.
    """
    sock = socket.socket(fileno=fd)
    if sock.type != socket.SOCK_STREAM or not sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN):
        sock.detach()
        raise ValueError(f"file descriptor {fd} is not a listening stream socket")
    return InheritedSocket(sock)


async def serve_stdio(server: Server[Any]) -> None:
    """Serve one connection on stdin/stdout until stdin reaches EOF."""
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


async def serve_http(server: Server[Any], listener: Listener) -> None:
    """Serve streamable HTTP at `/mcp` until uvicorn is told to stop (SIGINT or SIGTERM)."""
    await _run_uvicorn(
        server.streamable_http_app(streamable_http_path=HTTP_PATH, host=listener.host), listener
    )


async def serve_sse(server: Server[Any], listener: Listener) -> None:
    """Serve SSE: the event stream at `/sse`, client messages posted to `/messages/`."""
    await _run_uvicorn(_sse_app(server, listener.host), listener)


def _loopback_security(host: str) -> TransportSecuritySettings | None:
    # The same DNS-rebinding guard `Server.streamable_http_app` turns on for a loopback host.
    if host not in _LOOPBACK_HOSTS:
        return None
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )


@dataclass(frozen=True, slots=True)
class _EventStream:
    """The `GET /sse` endpoint, as a raw ASGI app: `connect_sse` sends the response itself.

    A class and not a function because Starlette wraps a plain function endpoint as
    request -> response.
    """

    server: Server[Any]
    transport: SseServerTransport

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async with self.transport.connect_sse(scope, receive, send) as (read_stream, write_stream):
            await self.server.run(read_stream, write_stream, self.server.create_initialization_options())


def _sse_app(server: Server[Any], host: str) -> Starlette:
    transport = SseServerTransport(MESSAGES_PATH, security_settings=_loopback_security(host))
    return Starlette(
        routes=[
            Route(SSE_PATH, endpoint=_EventStream(server, transport), methods=["GET"]),
            Mount(MESSAGES_PATH, app=transport.handle_post_message),
        ]
    )


async def _run_uvicorn(app: ASGIApp, listener: Listener) -> None:
    quiet: dict[str, Any] = {
        "log_level": "warning",
        "access_log": False,
        "timeout_graceful_shutdown": _GRACEFUL_SHUTDOWN_S,
    }
    if isinstance(listener, TcpAddress):
        await uvicorn.Server(uvicorn.Config(app, host=listener.host, port=listener.port, **quiet)).serve()
    else:
        await uvicorn.Server(uvicorn.Config(app, **quiet)).serve(sockets=[listener.socket])
