"""Serving MCP over streamable HTTP at ``/mcp``, with bearer tokens, through the SDK's server side.

Both protocol eras are served on the one path, by the SDK's ``StreamableHTTPSessionManager``
(from ``Server.streamable_http_app``): a request whose ``MCP-Protocol-Version`` header names a
2026-07-28 version is answered on its own (stateless: no handshake, no session); anything
else takes the legacy route, a stateful session opened by ``initialize`` and named by
``Mcp-Session-Id``. Legacy sessions get ``notifications/tools/list_changed`` on their GET
stream; 2026-07-28 clients through ``subscriptions/listen``.

In front of it all, ``BearerGate`` refuses any request without a valid token (401). Behind it,
``_IdGuard`` answers a request whose ``id`` is neither a string nor an integer (null, a
fraction, a boolean, ...) with one -32600 error: the SDK's legacy route would take it for a
notification and answer 202, with no JSON-RPC answer at all; ``RetryAfter`` adds
``Retry-After`` to a call the limits gate refused. Everything else that does not
parse, the SDK answers itself (-32700, or -32602 for a message of the wrong shape). Behind
the gate, the SDK's transport checks ``Host`` and ``Origin`` against the address actually
bound (the DNS-rebinding guard): for a listener on a specific address, only that host and
port and their ``localhost``/``127.0.0.1`` forms pass. A wildcard listener (``0.0.0.0``,
``::``) has no one host name to check; tokens guard it alone.

The caller binds the socket first (``listen``), so port 0 works and the URL is known before
serving starts; the service (``toolpool.serve.serve_http``) serves this app, with the admin
plane beside it.
"""

from __future__ import annotations

import ipaddress
import json
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE, TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_REQUEST, ErrorData, JSONRPCError
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from toolpool.calls import limits_anything
from toolpool.errors import UsageError
from toolpool.serve._guard import AuthGuard
from toolpool.serve.gateway._asgi_body import read_body, replaying
from toolpool.serve.gateway._bearer import BearerGate, TokenUser, holder_ticket, view_key
from toolpool.serve.gateway._clients import ClientView
from toolpool.serve.gateway._front import build_server
from toolpool.serve.gateway._gateway import IDLE_S, Gateway
from toolpool.serve.gateway._lean_http import LeanHttp
from toolpool.serve.gateway._replica_ids import ReplicaSessionIds
from toolpool.serve.gateway._retry_after import RetryAfter
from toolpool.store import TokenHolder

__all__ = ["HTTP_PATH", "HttpAddress", "http_app", "listen", "rebinding_guard", "url_of"]

HTTP_PATH = "/mcp"
_WILDCARDS = ("0.0.0.0", "::")  # noqa: S104 - the names of wildcard addresses, not a bind


@dataclass(frozen=True, slots=True)
class HttpAddress:
    """Where to listen: ``HOST:PORT`` (``[::1]:8080`` for IPv6); port 0 picks a free one."""

    host: str
    port: int

    @classmethod
    def parse(cls, text: str) -> HttpAddress:
        """Raises UsageError for anything but ``HOST:PORT`` with a port from 0 to 65535."""
        host, colon, port = text.rpartition(":")
        host = host.removeprefix("[").removesuffix("]")
        if not colon or not host or not port.isdigit() or int(port) > 65535:
            raise UsageError(f"not a listen address: {text!r} (use HOST:PORT, e.g. 127.0.0.1:8765)")
        return cls(host, int(port))


def listen(address: HttpAddress) -> socket.socket:
    """A listening socket bound to ``address``.

    Raises:
        UsageError: the address cannot be bound (in use, not local, not permitted).
    """
    try:
        family, kind, protocol, _, where = socket.getaddrinfo(
            address.host, address.port, type=socket.SOCK_STREAM
        )[0]
        sock = socket.socket(family, kind, protocol)
    except OSError as exc:
        raise UsageError(f"cannot listen on {address.host}:{address.port}: {exc.strerror or exc}") from exc
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # Nagle's algorithm off on every accepted connection (Linux copies it from the
        # listener; asyncio sets it too, for a socket whose protocol is TCP): an answer written
        # in two pieces would otherwise wait for the client's delayed ACK, ~40 ms a request.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind(where)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise UsageError(f"cannot listen on {address.host}:{address.port}: {exc.strerror or exc}") from exc
    return sock


def url_of(sock: socket.socket) -> str:
    """The MCP endpoint a bound socket serves."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{HTTP_PATH}"


def rebinding_guard(host: str, port: int, public_hosts: Sequence[str] = ()) -> TransportSecuritySettings:
    """Host and Origin values a request may carry for a listener on ``host:port``, and the
    ``public_hosts`` (``HOST:PORT``) clients reach it by through a proxy."""
    if host in _WILDCARDS:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    names = {f"[{host}]" if ":" in host else host, "localhost"}
    if _is_loopback(host):
        names |= {"127.0.0.1", "[::1]"} if ":" in host else {"127.0.0.1"}
    hosts = sorted({f"{name}:{port}" for name in names} | {value.lower() for value in public_hosts})
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[f"http://{value}" for value in hosts],
    )


class _HttpDoor:
    """A request's client: its legacy session, or (2026-07-28, stateless) its token."""

    def __init__(self, gateway: Gateway) -> None:
        self._gateway = gateway

    def view(self, ctx: ServerRequestContext[Any]) -> ClientView:
        request = ctx.request
        if not isinstance(request, Request):
            raise MCPError(INVALID_REQUEST, "the request carries no valid bearer token")
        return self.of_scope(request.scope)

    def of_scope(self, scope: Scope) -> ClientView:
        """The view of an authenticated request (the bearer gate put its holder in the scope)."""
        user = scope.get("user")
        if not isinstance(user, TokenUser):
            raise MCPError(INVALID_REQUEST, "the request carries no valid bearer token")
        holder = user.holder
        key = view_key(Headers(scope=scope), holder)
        follow = key is not None and key[0] == "token"  # a stateless client has no running session
        # A stateless client's taint is its token's, on every replica (``[pool] redis``).
        taint_scope = f"token:{holder.name}:{holder.created_at.isoformat()}" if follow else None
        return self._gateway.view(
            key, holder.principal, holder_ticket(holder), follow_release=follow, taint_scope=taint_scope
        )


def http_app(
    gateway: Gateway,
    host: str,
    port: int,
    *,
    guard: AuthGuard | None = None,
    lean: bool = True,
    public_hosts: Sequence[str] = (),
) -> ASGIApp:
    """The whole HTTP application: the bearer gate in front of the SDK's streamable HTTP app;
    ``guard`` counts its failed authentications. ``lean`` answers hot 2026-07-28 requests on
    the lean front (``_lean_http``). ``public_hosts`` pass the Host check too (a proxy's
    names). A gateway with a ``replica`` name puts it in its session ids (``_replica_ids``)."""
    door = _HttpDoor(gateway)
    server = build_server(gateway, door)
    security = rebinding_guard(host, port, public_hosts)
    mcp_app: ASGIApp = server.streamable_http_app(
        streamable_http_path=HTTP_PATH,
        transport_security=security,
        host=host,
        session_idle_timeout=IDLE_S,
    )
    # Only the limits gate refuses with a wait, and its limits are the configuration's: without
    # any, there is no header to add and no POST's headers to hold (~0.1 ms a request).
    if limits_anything(gateway.pool.config):
        mcp_app = RetryAfter(mcp_app)
    if lean:  # it adds Retry-After to its own answers, with no header to hold back
        mcp_app = LeanHttp(mcp_app, gateway, server, door.of_scope, security, HTTP_PATH)

    async def lookup(token: str) -> TokenHolder | None:
        # One indexed read on the store's raw connection, on the event loop, as gate 3 does:
        # a worker-thread hop per request cost more than the read itself (bench/RESULTS §7).
        return gateway.store.tokens.token_holder(token)

    gated: ASGIApp = BearerGate(
        _IdGuard(mcp_app), lookup, gateway.views, guard=guard, audit=gateway.store.audit.audit
    )
    return gated if gateway.replica is None else ReplicaSessionIds(gated, gateway.replica)


class _IdGuard:
    """Answers a POST whose message has an unusable ``id`` itself; passes everything else on,
    its body replayed. A body larger than the SDK's limit passes unread (the SDK answers 413)."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self._app(scope, receive, send)
            return
        body, rest = await read_body(receive, DEFAULT_MAX_REQUEST_BODY_SIZE)
        if rest is None and _has_unusable_id(body):
            await _UNUSABLE_ID(scope, receive, send)
            return
        await self._app(scope, replaying(body, rest, receive), send)


def _has_unusable_id(body: bytes) -> bool:
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):  # the SDK answers -32700 for what does not parse
        return False
    if not isinstance(message, dict) or "id" not in message:
        return False
    request_id = message["id"]
    return isinstance(request_id, bool) or not isinstance(request_id, str | int)


_UNUSABLE_ID = Response(
    JSONRPCError(
        jsonrpc="2.0",
        id=None,
        error=ErrorData(
            code=INVALID_REQUEST, message="Invalid Request: an id must be a string or an integer"
        ),
    ).model_dump_json(by_alias=True, exclude_unset=True),
    status_code=400,
    media_type="application/json",
)


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.partition("%")[0]).is_loopback
    except ValueError:
        return host == "localhost"
