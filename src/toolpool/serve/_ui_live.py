"""The live-calls view's events: what a call event looks like, and the feed the page reads.

The service publishes one ``call_event(record)`` per call record into the event hub it gives
the UI and the admin API. The page's stream carries only call events (and the hub's notice of
dropped events): other management events stay on the admin API's stream.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

from toolpool.serve._admin_events import DROPPED, EventFeed
from toolpool.store import CallRecord

__all__ = ["CALL_EVENT", "CallFeed", "call_event"]

CALL_EVENT = "call"
_SHOWN = frozenset({CALL_EVENT, DROPPED})


def call_event(record: CallRecord) -> dict[str, Any]:
    """The event the live view shows for one call: ``kind`` is ``"call"``; the other keys are
    the record's ``at`` (ISO 8601), ``principal``, ``alias``, ``tool``, ``code``,
    ``duration_ms`` and ``session``."""
    return {
        "kind": CALL_EVENT,
        "at": record.at.isoformat(),
        "principal": record.principal,
        "alias": record.alias,
        "tool": record.tool,
        "code": record.code,
        "duration_ms": record.duration_ms,
        "session": record.session_id,
    }


class CallFeed:
    """``feed`` narrowed to call events (and ``events.dropped``): an ``EventFeed`` itself."""

    def __init__(self, feed: EventFeed) -> None:
        self._feed = feed

    @asynccontextmanager
    async def subscribe(self) -> AsyncIterator[AsyncIterator[Mapping[str, Any]]]:
        async with self._feed.subscribe() as events:
            calls = _calls(events)
            try:
                yield calls
            finally:
                await calls.aclose()


async def _calls(events: AsyncIterator[Mapping[str, Any]]) -> AsyncGenerator[Mapping[str, Any]]:
    async for event in events:
        if event.get("kind") in _SHOWN:
            yield event
