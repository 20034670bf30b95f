"""Bearer tokens in front of the HTTP transport: no token, no MCP.

Every HTTP request must carry ``Authorization: Bearer <token>`` for a token the store knows
(``toolpool tokens add``); anything else is answered ``401`` with a tiny JSON body, before any
MCP handling. The token is looked up by its hash at every request, so a revoked token stops
working at once. A request that passes carries its holder as the ASGI ``user``: an SDK
``AuthenticatedUser``, so the SDK binds each legacy HTTP session to the token that opened it.

The gate also counts each client's requests in flight (legacy sessions by ``Mcp-Session-Id``,
stateless 2026-07-28 requests by token), so that a client with only a stream open is never
taken for idle, and forgets a session the client ended (``DELETE``) or the SDK no longer knows.

A legacy session belongs to the token that opened it. Its client view is keyed by the session
id *and* that token, so no other token's request can reach, touch or drop it; and a request
with a session id another token owns is answered ``404`` by the gate itself (exactly as the SDK
answers an unknown id), changes nothing, and is audited (``mcp.foreign_session``: who tried,
whose session, the method; the id only as a short hash). A failed authentication, and such a
foreign id, is counted for the client's address by the ``AuthGuard`` (no header at all is not).
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Awaitable, Callable, Hashable
from typing import Any

import anyio
import anyio.to_thread
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toolpool.errors import UsageError
from toolpool.serve._guard import Audit, AuthGuard, Plane, address_of
from toolpool.serve.gateway._clients import ClientBook
from toolpool.store import TokenHolder
from toolpool.tickets import Ticket

__all__ = ["FOREIGN_SESSION", "BearerGate", "TokenUser", "holder_ticket", "view_key"]

FOREIGN_SESSION = "mcp.foreign_session"  # the audit action of a request with another token's session id
_UNAUTHORIZED = json.dumps({"error": "unauthorized"}).encode()
_UNAVAILABLE = json.dumps({"error": "unavailable"}).encode()
# The SDK's own answer to an unknown session id: a foreign id must look just like one.
_NO_SESSION = json.dumps(
    {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Session not found"}},
    separators=(",", ":"),
).encode()
_MAX_HEADER = 1024
_AUDIT_S = 10.0
_SESSION_ID = b"mcp-session-id"
Lookup = Callable[[str], Awaitable[TokenHolder | None]]
ViewKey = tuple[str, Hashable] | tuple[str, str, Hashable]  # ("token", holder) | ("session", id, holder)
logger = logging.getLogger("toolpool.serve")


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


def view_key(headers: Headers, holder: TokenHolder) -> ViewKey | None:
    """Whose request this is: a legacy session *of this token*, or (stateless 2026-07-28) a
    token; None for a legacy request that opens a session and so has no id yet. The era is
    read from the ``MCP-Protocol-Version`` header, as the SDK's session manager routes on it."""
    version = headers.get("mcp-protocol-version")
    if version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS:
        return ("token", holder)
    session_id = headers.get("mcp-session-id")
    return None if session_id is None else ("session", session_id, holder)


class BearerGate:
    """ASGI middleware: authenticate every HTTP request, then pass it on (see the module).

    Args:
        app: the MCP app behind the gate.
        lookup: who a token stands for (None: nobody).
        views: the gateway's client views, and who owns each legacy session.
        guard: counts failed authentications per address (none counted without it).
        audit: appends an audit event (``store.audit.audit``); runs in a worker thread.
    """

    def __init__(
        self,
        app: ASGIApp,
        lookup: Lookup,
        views: ClientBook,
        *,
        guard: AuthGuard | None = None,
        audit: Audit | None = None,
    ) -> None:
        self._app = app
        self._lookup = lookup
        self._views = views
        self._guard = guard
        self._audit = audit

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
            if "authorization" in headers:  # a request without one guesses nothing
                self._failed(scope, "mcp")
            await _answer(send, 401, _UNAUTHORIZED, [(b"www-authenticate", b"Bearer")])
            return
        scope["user"] = TokenUser(holder)
        key = view_key(headers, holder)
        if key is not None and key[0] == "session":
            owner = self._views.owner(str(key[1]))
            if owner is not None and owner != holder:
                await self._foreign(scope, send, holder, str(key[1]), owner)
                return
        await self._serve(scope, receive, send, key, holder)

    async def _serve(
        self, scope: Scope, receive: Receive, send: Send, key: ViewKey | None, holder: TokenHolder
    ) -> None:
        status: list[int] = []
        claimed: list[str] = []

        async def watched(message: Message) -> None:
            if message["type"] == "http.response.start":
                status.append(int(message["status"]))
                claimed.extend(
                    v.decode("latin-1") for k, v in message.get("headers", ()) if k.lower() == _SESSION_ID
                )
            await send(message)

        if key is not None:
            self._views.enter(key)
        try:
            await self._app(scope, receive, watched)
        finally:
            if key is not None:
                self._views.leave(key)
        if status and status[0] < 400:
            # The SDK served it, so this token owns the session: it opened it (the id is in the
            # answer) or the SDK checked that it did.
            for session_id in claimed:
                self._views.claim(session_id, holder)
        if key is None or key[0] != "session":
            return
        ended = scope["method"] == "DELETE" and status and status[0] < 400
        if ended or status == [404]:
            self._views.drop(key)  # the key names this token: another's view is out of reach
            self._views.disown(str(key[1]), holder)

    async def _foreign(
        self, scope: Scope, send: Send, holder: TokenHolder, session_id: str, owner: Hashable
    ) -> None:
        """Another token's session id: answered as an unknown one; audited, counted, nothing else."""
        await _answer(send, 404, _NO_SESSION)
        self._failed(scope, "mcp_session")
        if self._audit is None:
            return
        detail = {
            "owner": owner.principal if isinstance(owner, TokenHolder) else "?",
            "method": str(scope.get("method", "")),
            "session": "sha256:" + hashlib.sha256(session_id.encode()).hexdigest()[:12],
            "address": address_of(scope),
        }
        try:
            with anyio.fail_after(_AUDIT_S):
                await anyio.to_thread.run_sync(
                    self._audit, holder.principal, FOREIGN_SESSION, "mcp", detail, abandon_on_cancel=True
                )
        except (UsageError, TimeoutError) as error:
            logger.warning("cannot audit a foreign session id from %s: %s", holder.principal, error)

    def _failed(self, scope: Scope, plane: Plane) -> None:
        if self._guard is not None:
            self._guard.failed(address_of(scope), plane)

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
