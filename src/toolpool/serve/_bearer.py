"""Bearer tokens in front of the HTTP transport: no token, no MCP.

Every HTTP request must carry ``Authorization: Bearer <token>`` for a token the store knows
(``toolpool tokens add``); anything else is answered ``401`` with a tiny JSON body, before any
MCP handling. The token is looked up by its hash at every request, so a revoked token stops
working at once. A request that passes carries its holder as the ASGI ``user``: an SDK
``AuthenticatedUser``, so the SDK binds each legacy HTTP session to the token that opened it.

The gate also counts each client's requests in flight (legacy sessions by ``Mcp-Session-Id``,
stateless 2026-07-28 requests by token), so that a client with only a stream open is never
taken for idle, and forgets a session the client ended (``DELETE``) or the SDK no longer knows.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Hashable
from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toolpool.errors import UsageError
from toolpool.serve._views import ViewBook
from toolpool.store import TokenHolder
from toolpool.tickets import Ticket

__all__ = ["BearerGate", "TokenUser", "holder_ticket", "view_key"]

_UNAUTHORIZED = json.dumps({"error": "unauthorized"}).encode()
_UNAVAILABLE = json.dumps({"error": "unavailable"}).encode()
_MAX_HEADER = 1024
Lookup = Callable[[str], Awaitable[TokenHolder | None]]


class TokenUser(AuthenticatedUser):
    """The holder of a valid token, as the SDK (and Starlette) see an authenticated user."""

    def __init__(self, holder: TokenHolder) -> None:
        # `subject` tells a re-made token of the same name from the one it replaced.
        identity = AccessToken(
            token="",
            client_id=holder.name,
            scopes=[],
            subject=f"{holder.name}@{holder.created_at.isoformat()}",
        )
        super().__init__(identity)
        self.holder = holder


def holder_ticket(holder: TokenHolder) -> Ticket:
    """The ticket a token grants: its action and resource globs, no expiry."""
    return Ticket(principal=holder.principal, actions=holder.actions, resources=holder.resources)


def view_key(headers: Headers, holder: TokenHolder) -> tuple[str, Hashable] | None:
    """Whose request this is: a legacy session, or (stateless 2026-07-28) a token; None for a
    legacy request that opens a session and so has no id yet. The era is read from the
    ``MCP-Protocol-Version`` header, as the SDK's session manager routes on it."""
    version = headers.get("mcp-protocol-version")
    if version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS:
        return ("token", holder)
    session_id = headers.get("mcp-session-id")
    return None if session_id is None else ("session", session_id)


class BearerGate:
    """ASGI middleware: authenticate every HTTP request, then pass it on (see the module)."""

    def __init__(self, app: ASGIApp, lookup: Lookup, views: ViewBook) -> None:
        self._app = app
        self._lookup = lookup
        self._views = views

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._app(scope, receive, send)
            return
        if scope["type"] != "http":
            return  # no websockets here; the server closes the connection
        headers = Headers(scope=scope)
        try:
            holder = await self._holder(headers)
        except UsageError:
            await _answer(send, 503, _UNAVAILABLE)
            return
        if holder is None:
            await _answer(send, 401, _UNAUTHORIZED, [(b"www-authenticate", b"Bearer")])
            return
        scope["user"] = TokenUser(holder)
        key = view_key(headers, holder)
        if key is None:
            await self._app(scope, receive, send)
            return
        status: list[int] = []

        async def watched(message: Message) -> None:
            if message["type"] == "http.response.start":
                status.append(int(message["status"]))
            await send(message)

        self._views.enter(key)
        try:
            await self._app(scope, receive, watched)
        finally:
            self._views.leave(key)
        ended = scope["method"] == "DELETE" and status and status[0] < 400
        if key[0] == "session" and (ended or status == [404]):
            self._views.drop(key)

    async def _holder(self, headers: Headers) -> TokenHolder | None:
        value = headers.get("authorization", "")
        scheme, _, token = value.partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token or len(value) > _MAX_HEADER:
            return None
        return await self._lookup(token)


async def _answer(
    send: Send, status: int, body: bytes, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    headers: list[tuple[bytes, bytes]] = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *(extra or []),
    ]
    start: dict[str, Any] = {"type": "http.response.start", "status": status, "headers": headers}
    await send(start)
    await send({"type": "http.response.body", "body": body})
