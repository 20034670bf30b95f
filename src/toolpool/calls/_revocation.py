"""Revoking a link's tools (R11, R12): in one step, by identity, and said once.

The call pipeline revokes a link whose call timed out or lost its server, before the caller
sees the Envelope; a connection's watchdog revokes an idle one whose server died. Both come
here; nothing reaches back into the pool.
"""

from __future__ import annotations

from toolpool.calls._events import EventOutlet
from toolpool.registry import Registry
from toolpool.upstream import Link

__all__ = ["Revocation"]


class Revocation:
    """Revokes links from one registry and emits ``mcp.connection_lost`` for each."""

    def __init__(self, registry: Registry, events: EventOutlet) -> None:
        self._registry = registry
        self._events = events

    def lost(self, link: Link, reason: str) -> None:
        """``link`` stopped working: drop it, revoke its tools, and say so (once)."""
        link.drop(reason)
        revoked = self._registry.revoke(link)
        if revoked:
            detail = {"reason": reason, "revoked": tuple(tool.name for tool in revoked)}
            self._events.emit("mcp.connection_lost", link.alias, detail)
