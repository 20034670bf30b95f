"""The live-calls page's feed: the service's events narrowed to calls.

The service publishes one ``call_event(record)`` per call record into the event hub it gives
the UI and the admin API (``toolpool.serve._events``). The page's stream carries only call
events (and the hub's notice of dropped events): other management events stay on the admin
API's stream.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

from toolpool.serve._events import CALL_EVENT, DROPPED, EventFeed

__all__ = ["CallFeed"]

_SHOWN = frozenset({CALL_EVENT, DROPPED})


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
