"""Reading an ASGI request's body ahead of the app that serves it, and handing it on unchanged."""

from __future__ import annotations

from collections import deque

from starlette.types import Message, Receive

__all__ = ["read_body", "replaying"]


async def read_body(receive: Receive, limit: int) -> tuple[bytes, Message | None]:
    """The body, or as much of it as passes ``limit`` and the message that follows it (a
    disconnect, or an empty ``more_body`` marker: the rest is still unread)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks), message
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks), None
        if size > limit:
            return b"".join(chunks), {"type": "http.request", "body": b"", "more_body": True}


def replaying(body: bytes, rest: Message | None, receive: Receive) -> Receive:
    """A ``receive`` that gives ``body`` (and what ``read_body`` read after it) first, then
    whatever ``receive`` gives."""
    replayed: deque[Message] = deque([{"type": "http.request", "body": body, "more_body": rest is not None}])
    if rest is not None and rest["type"] != "http.request":
        replayed.append(rest)

    async def replay() -> Message:
        return replayed.popleft() if replayed else await receive()

    return replay
