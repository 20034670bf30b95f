"""``Retry-After`` for HTTP clients whose ``tools/call`` was refused by the limits gate.

The refusal is a JSON-RPC *result* (``isError``, ``_meta["toolpool/code"]`` =
``rate_limited`` or ``quota_exceeded``, ``_meta["toolpool/retry_after_s"]``), written by the
SDK's transport: a JSON body (2026-07-28) or a server-sent-events stream whose first event is
the answer (legacy). Either way the status line and headers go out before the body, so this
middleware holds a POST's ``http.response.start`` until the first body chunk and adds
``Retry-After`` (whole seconds, rounded up) when that chunk is such a refusal.

It holds the headers at most ``HOLD_S``: a refusal is made without calling any server and is
ready long before that, while a slow call must not keep its client waiting for headers (an
SSE client's read timeout may count from the request). Later chunks, GET streams and
everything else pass unchanged.
"""

from __future__ import annotations

import json
import math

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toolpool import errors

__all__ = ["HOLD_S", "RetryAfter", "retry_after_of"]

HOLD_S = 0.25
_MARK = b'"toolpool/retry_after_s"'
_REFUSALS = frozenset({errors.RATE_LIMITED, errors.QUOTA_EXCEEDED})


def retry_after_of(body: bytes) -> int | None:
    """Whole seconds to wait, if ``body`` (JSON, or an SSE event of it) answers a call with a
    limits refusal; else None. Only the result's own ``_meta`` counts, never its content."""
    if _MARK not in body:
        return None
    text = body.strip()
    if not text.startswith(b"{"):
        data = [line[5:].strip() for line in text.splitlines() if line.startswith(b"data:")]
        text = b"".join(data)
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):
        return None
    result = message.get("result") if isinstance(message, dict) else None
    meta = result.get("_meta") if isinstance(result, dict) else None
    if not isinstance(meta, dict) or meta.get("toolpool/code") not in _REFUSALS:
        return None
    wait = meta.get("toolpool/retry_after_s")
    if isinstance(wait, bool) or not isinstance(wait, int | float) or not 0 < wait < 10**9:
        return None
    return max(1, math.ceil(wait))


class RetryAfter:
    """Adds ``Retry-After`` to a POST whose first body chunk is a limits refusal."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self._app(scope, receive, send)
            return
        held: list[Message] = []
        lock = anyio.Lock(fast_acquire=True)  # uncontended nearly always: no checkpoint per message

        async def release(extra: int | None) -> None:
            start = held.pop()
            if extra is not None:
                start = {**start, "headers": [*start.get("headers", ()), (b"retry-after", b"%d" % extra)]}
            await send(start)

        async def held_send(message: Message) -> None:
            async with lock:
                if message["type"] == "http.response.start":
                    held.append(message)
                    tasks.start_soon(release_late)
                    return
                if held and message["type"] == "http.response.body":
                    await release(retry_after_of(message.get("body", b"")))
                await send(message)

        async def release_late() -> None:
            await anyio.sleep(HOLD_S)
            async with lock:
                if held:
                    await release(None)

        async with anyio.create_task_group() as tasks:
            await self._app(scope, receive, held_send)
            tasks.cancel_scope.cancel()
        if held:  # a response without a body chunk: its headers still go out
            await release(None)
