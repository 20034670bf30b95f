"""The service's live events, shared by the admin API and the web UI: a feed protocol, an
in-memory hub, the SSE response, and what a call event looks like.

``EventHub`` fans each published event out to every subscriber. A subscriber that reads too
slowly does not slow anyone down: its buffer is bounded and, when full, the **oldest** event
is dropped; the subscriber then gets ``{"kind": "events.dropped", "count": N}`` in place of
what it missed, so a gap is never silent. ``publish`` never blocks and never raises.

The hub lives on one event loop: call ``publish`` from that loop's thread (from another
thread, ``anyio.from_thread.run_sync(hub.publish, event)``). ``close`` ends every
subscription, so the streams end cleanly; the service closes the hub before it stops serving.

The gateway's calls feed it: the service publishes one ``call_event(record)`` per call record
(the admin API's ``/admin/events`` and the UI's live page show them); management events come
from the audit log (``toolpool.serve._service.AuditTail``).
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Protocol

import anyio
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from toolpool.store import CallRecord

__all__ = [
    "CALL_EVENT",
    "DROPPED",
    "HEARTBEAT_S",
    "EventFeed",
    "EventHub",
    "EventStream",
    "call_event",
    "frame",
]

CALL_EVENT = "call"
DROPPED = "events.dropped"
HEARTBEAT_S = 15.0  # under the idle timeout of common proxies (30-60 s), so quiet streams live
DEFAULT_BUFFER = 256  # events per subscriber: minutes of management activity, bytes of memory
_KIND = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")  # what may follow "event:" without breaking the frame
_FIRST = b": connected\n\n"  # sent once subscribed: the client knows publishing now reaches it
_HEARTBEAT = b": keep-alive\n\n"


class EventFeed(Protocol):
    """Where an event stream (the admin API's ``/admin/events``, the UI's live page) takes its
    events from."""

    def subscribe(self) -> AbstractAsyncContextManager[AsyncIterator[Mapping[str, Any]]]:
        """A subscription: the iterator yields each event published while it is open and ends
        when the feed closes; leaving the context unsubscribes."""
        ...


class _Subscriber:
    def __init__(self, buffer: int) -> None:
        self.queue: deque[Mapping[str, Any]] = deque(maxlen=buffer)
        self.dropped = 0
        self.closed = False
        self.wake = anyio.Event()

    def put(self, event: Mapping[str, Any]) -> None:
        if len(self.queue) == self.queue.maxlen:
            self.dropped += 1
        self.queue.append(event)
        self.wake.set()

    def close(self) -> None:
        self.closed = True
        self.wake.set()

    async def events(self) -> AsyncGenerator[Mapping[str, Any]]:
        while True:
            if self.dropped:
                count, self.dropped = self.dropped, 0
                yield {"kind": DROPPED, "count": count}
            elif self.queue:
                yield self.queue.popleft()
            elif self.closed:
                return
            else:
                # No await between the checks above and here: nothing can slip in unseen.
                self.wake = anyio.Event()
                await self.wake.wait()


class EventHub:
    """An in-memory ``EventFeed``: bounded per subscriber, oldest dropped first (see above).

    Args:
        buffer: events kept for each subscriber that has not read them yet.
    """

    def __init__(self, *, buffer: int = DEFAULT_BUFFER) -> None:
        if buffer < 1:
            raise ValueError("an event hub needs a buffer of at least one event")
        self._buffer = buffer
        self._subscribers: set[_Subscriber] = set()
        self._closed = False
        self._changed: anyio.Event | None = None

    @property
    def subscribers(self) -> int:
        """How many subscriptions are open."""
        return len(self._subscribers)

    def publish(self, event: Mapping[str, Any]) -> None:
        """Hand ``event`` to every subscriber; never blocks. After ``close``, does nothing."""
        for subscriber in self._subscribers:
            subscriber.put(event)

    def close(self) -> None:
        """End every subscription (their streams finish) and refuse new ones; idempotent."""
        self._closed = True
        for subscriber in self._subscribers:
            subscriber.close()

    @asynccontextmanager
    async def subscribe(self) -> AsyncIterator[AsyncIterator[Mapping[str, Any]]]:
        subscriber = _Subscriber(self._buffer)
        if self._closed:
            subscriber.close()
        self._subscribers.add(subscriber)
        self._notify()
        events = subscriber.events()
        try:
            yield events
        finally:
            self._subscribers.discard(subscriber)
            self._notify()
            await events.aclose()

    async def wait_subscribers(self, count: int) -> None:
        """Return once exactly ``count`` subscriptions are open (bound it with a timeout)."""
        while len(self._subscribers) != count:
            if self._changed is None:
                self._changed = anyio.Event()
            await self._changed.wait()

    def _notify(self) -> None:
        if self._changed is not None:
            self._changed.set()
            self._changed = None


def call_event(record: CallRecord) -> dict[str, Any]:
    """The event for one call: ``kind`` is ``"call"``; the other keys are the record's ``at``
    (ISO 8601), ``principal``, ``alias``, ``tool``, ``code``, ``duration_ms`` and ``session``."""
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


def frame(event: Mapping[str, Any]) -> bytes:
    """One server-sent event: ``event: <kind>`` and the whole event as one line of JSON."""
    kind = event.get("kind")
    name = kind if isinstance(kind, str) and _KIND.match(kind) else "message"
    data = json.dumps(event, default=str, ensure_ascii=False, separators=(",", ":"))
    return f"event: {name}\ndata: {data}\n\n".encode()


class EventStream(Response):
    """``text/event-stream`` of a feed's events, with a heartbeat comment when it is quiet.

    It ends when the client disconnects (noticed at once, not at the next write) or when the
    feed ends; the subscription is closed either way.
    """

    media_type = "text/event-stream"

    def __init__(self, feed: EventFeed, heartbeat_s: float) -> None:
        super().__init__(headers={"cache-control": "no-store", "x-accel-buffering": "no"})
        # Response sets content-length for its (empty) body; a stream has none.
        self.raw_headers = [(key, value) for key, value in self.raw_headers if key != b"content-length"]
        self._feed = feed
        self._heartbeat_s = heartbeat_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        lock = anyio.Lock()
        feed_ended = False

        async def emit(chunk: bytes) -> None:
            async with lock:
                await send({"type": "http.response.body", "body": chunk, "more_body": True})

        async with self._feed.subscribe() as events, anyio.create_task_group() as group:
            await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
            await emit(_FIRST)

            async def until_disconnect() -> None:
                while (await receive())["type"] != "http.disconnect":
                    pass
                group.cancel_scope.cancel()

            async def heartbeat() -> None:
                while True:
                    await anyio.sleep(self._heartbeat_s)
                    await emit(_HEARTBEAT)

            group.start_soon(until_disconnect)
            group.start_soon(heartbeat)
            async for event in events:
                await emit(frame(event))
            feed_ended = True
            group.cancel_scope.cancel()
        if feed_ended:  # unsubscribed before the client sees the end
            await send({"type": "http.response.body", "body": b""})
