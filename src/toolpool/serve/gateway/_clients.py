"""The gateway's clients: what each MCP client was shown, and how it is told that this changed.

A ``ClientView`` belongs to one client: a stdio process, a legacy HTTP session
(``Mcp-Session-Id``), or, for stateless 2026-07-28 requests over HTTP, one token. It holds
the toolpool ``Session`` the client's calls run in (its ticket, taint and release, R15), the
snapshot the client last listed, and the two ways to reach it later: the legacy connection's
standalone channel, and ``subscriptions/listen`` streams (the 2026-07-28 way).

Calls run against the session's current snapshot; a name that left it but that the client
was shown runs against the listed snapshot (in the session it was listed in) instead, so the
client learns why (``tool_disabled`` from gate 3, ``mcp_connection_lost`` from gate 2) and
not just ``unknown_tool``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Iterator, Mapping
from typing import Any

import anyio
import mcp_types
from mcp.server.context import ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from toolpool.calls import Envelope, Session
from toolpool.registry import Snapshot
from toolpool.serve.gateway._wire import wire_result, wire_tools

__all__ = ["ClientBook", "ClientView"]

# Sending one notification: a client that stopped reading must not stall the others.
_NOTIFY_S = 5.0
# Open listen streams per client view; more is a client bug, not a need.
_MAX_LISTENERS = 16


class ClientView:
    """One MCP client's view of the pool.

    Args:
        open_session: opens the toolpool session the client's calls run in.
        release: the store's current release number, for a view that follows it (stateless
            clients have no running session to keep a release for); None keeps the first
            session's release for the view's whole life (R15).
        prunable: whether the view may be forgotten once idle (HTTP clients; not stdio).
        taint_scope: where replicas share this client's taint (``[pool] redis``); by default
            its first session's id. A stateless client is named by its token, so that
            whichever replica serves its next request knows what its results said.
    """

    def __init__(
        self,
        open_session: Callable[[], Session],
        *,
        release: Callable[[], int] | None = None,
        prunable: bool = True,
        taint_scope: str | None = None,
    ) -> None:
        self._open = open_session
        self._release = release
        self.prunable = prunable
        self._session = open_session()
        if taint_scope is not None:
            self._session.taint.scope = taint_scope
        self._listed: tuple[Session, Snapshot] | None = None
        self._told: tuple[str, ...] | None = None
        self._peer: ServerSession | None = None
        self._bus = InMemorySubscriptionBus()
        self._listener = ListenHandler(self._bus, max_subscriptions=_MAX_LISTENERS)
        self.seen = time.monotonic()

    @property
    def session(self) -> Session:
        """The toolpool session this client's calls run in now."""
        bound = self._session.release
        if self._release is not None and bound is not None and bound.number != self._release():
            fresh = self._open()
            fresh.taint = self._session.taint  # what this client was shown still taints
            self._session = fresh
        return self._session

    def list_tools(self, ctx: ServerRequestContext[Any]) -> mcp_types.ListToolsResult:
        """``tools/list``: the session's ticket-filtered snapshot, remembered as what was shown
        and counted in the usage ledger (its list tokens per alias)."""
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            self._peer = ctx.session  # its standalone channel outlives this request
        return wire_tools(self.listing())

    def listing(self) -> Snapshot:
        """What ``tools/list`` shows now, remembered as shown and counted in the usage ledger."""
        session = self.session
        snapshot = session.snapshot()
        self._listed, self._told = (session, snapshot), None
        session.record_listing(snapshot.list_tokens_by_alias)
        return snapshot

    def knows_peer(self, protocol_version: str) -> bool:
        """Whether a listing needs no request context: a 2026-07-28 client is told of changes
        through ``subscriptions/listen``; a handshake-era one on the channel its first listing
        gave."""
        return protocol_version in MODERN_PROTOCOL_VERSIONS or self._peer is not None

    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None) -> mcp_types.CallToolResult:
        """``tools/call``: every gate, in this client's session."""
        return wire_result(await self.call_envelope(name, arguments))

    async def call_envelope(self, name: str, arguments: Mapping[str, Any] | None) -> Envelope:
        """``tools/call``'s Envelope: every gate, in this client's session."""
        session = self.session
        snapshot = session.snapshot()
        if name not in snapshot and self._listed is not None and name in self._listed[1]:
            session, snapshot = self._listed  # the session (and release) it was shown in
        return await session.call(snapshot, name, arguments)

    async def listen(
        self, ctx: ServerRequestContext[Any], params: mcp_types.SubscriptionsListenRequestParams
    ) -> mcp_types.SubscriptionsListenResult:
        """``subscriptions/listen`` (2026-07-28): a stream of this view's changes only."""
        return await self._listener(ctx, params)

    async def tell_if_changed(self) -> bool:
        """Send ``notifications/tools/list_changed`` if the names this client would be shown
        differ from those it was last shown (once per change); whether it did."""
        if self._listed is None:
            return False
        names = self.session.snapshot().names
        if names == self._listed[1].names or names == self._told:
            return False
        self._told = names
        with anyio.move_on_after(_NOTIFY_S):
            if self._peer is not None:
                try:
                    await self._peer.send_tool_list_changed()
                except Exception:  # its channel broke or closed: that connection is gone, the rest go on
                    self._peer = None
            await self._bus.publish(ToolsListChanged())
        return True

    def close(self) -> None:
        """End this view's listen streams gracefully."""
        self._listener.close()


class ClientBook:
    """The live client views of one gateway, by key, the requests in flight for each key, and
    who owns each legacy HTTP session (by session id: the gate refuses anyone else)."""

    def __init__(self) -> None:
        self._views: dict[Hashable, ClientView] = {}
        self._busy: dict[Hashable, int] = {}
        self._owners: dict[str, tuple[Hashable, float]] = {}

    def get(self, key: Hashable | None, make: Callable[[], ClientView]) -> ClientView:
        """The view of ``key``, made on first use; a None key gets a view of its own, unkept."""
        if key is None:
            return make()
        view = self._views.get(key)
        if view is None:
            view = self._views[key] = make()
        return view

    def __iter__(self) -> Iterator[ClientView]:
        return iter(list(self._views.values()))

    def __len__(self) -> int:
        return len(self._views)

    def enter(self, key: Hashable) -> None:
        """A request of this client started (over HTTP every one counts, streams included)."""
        self._busy[key] = self._busy.get(key, 0) + 1

    def leave(self, key: Hashable) -> None:
        left = self._busy.pop(key, 1) - 1
        if left > 0:
            self._busy[key] = left
        view = self._views.get(key)
        if view is not None:
            view.seen = time.monotonic()

    def claim(self, session_id: str, owner: Hashable) -> None:
        """``owner`` opened the session ``session_id``, or was just served in it."""
        self._owners[session_id] = (owner, time.monotonic())

    def owner(self, session_id: str) -> Hashable | None:
        """Who owns the session ``session_id``, if known."""
        found = self._owners.get(session_id)
        return None if found is None else found[0]

    def disown(self, session_id: str, owner: Hashable) -> None:
        """The session ended: forget that ``owner`` owned it (nobody else can make it forget)."""
        if self.owner(session_id) == owner:
            del self._owners[session_id]

    def drop(self, key: Hashable) -> None:
        view = self._views.pop(key, None)
        if view is not None:
            view.close()

    def prune(self, idle_s: float) -> None:
        """Forget prunable views with nothing in flight for ``idle_s`` seconds, and owners of
        sessions not served for as long (the SDK forgets such a session itself). A session's
        key is ``("session", id, owner)``."""
        now = time.monotonic()
        for key, view in list(self._views.items()):
            if view.prunable and key not in self._busy and now - view.seen > idle_s:
                self.drop(key)
        streaming = {key[1] for key in self._busy if isinstance(key, tuple) and key[0] == "session"}
        for session_id, (_owner, seen) in list(self._owners.items()):
            if session_id not in streaming and now - seen > idle_s:
                del self._owners[session_id]

    def close(self) -> None:
        for key in list(self._views):
            self.drop(key)
        self._owners.clear()
