"""The lean front over streamable HTTP: a 2026-07-28 POST of ``tools/call``, ``tools/list`` or
``ping`` answered without the SDK's session manager and server (``_lean`` says why and how).

A request is taken only when the SDK's modern single-exchange entry would serve it: the
``MCP-Protocol-Version`` header names a 2026-07-28 version; the body is one JSON object that the
same parser (``json.loads``) reads, within the body limit; the SDK's own checks pass on it --
the DNS-rebinding guard and ``Content-Type`` (``TransportSecurityMiddleware``), the ``Accept``
header, no duplicated routing header, the envelope and header ladder
(``classify_inbound_request`` with the headers) and the per-version params surface. Everything
else, and every handshake-era request, goes to the SDK unchanged, its body replayed.

The answer is what the SDK's entry sends: ``application/json`` encoded as it encodes
(``json.dumps``, compact), status 200 (an error maps to the SDK's table), once the call
finished within the SDK's deferral window; a call that runs longer commits to
``text/event-stream`` with the SDK's keepalive comment until it ends, and a client that
disconnects cancels the call. A limits refusal gets ``Retry-After`` (``_retry_after``) here,
as ``RetryAfter`` gives it to the SDK's answers. ``Mcp-Param-*`` headers never fail here: the
gateway's front announces no tool input schema for them (``build_server``), so the SDK checks
nothing either.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from weakref import WeakKeyDictionary

import anyio
from mcp.server.lowlevel import Server
from mcp.server.streamable_http import check_accept_headers
from mcp.server.transport_security import (
    DEFAULT_MAX_REQUEST_BODY_SIZE,
    TransportSecurityMiddleware,
    TransportSecuritySettings,
)
from mcp.shared.inbound import (
    ERROR_CODE_HTTP_STATUS,
    InboundModernRoute,
    classify_inbound_request,
    find_duplicated_routing_header,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toolpool.serve.gateway._asgi_body import read_body, replaying
from toolpool.serve.gateway._clients import ClientView
from toolpool.serve.gateway._gateway import Gateway
from toolpool.serve.gateway._lean import HotRequest, LeanAnswers
from toolpool.serve.gateway._retry_after import retry_after_of

__all__ = ["LeanHttp"]

_VERSION_HEADER = b"mcp-protocol-version"
_MODERN = frozenset(version.encode() for version in MODERN_PROTOCOL_VERSIONS)
# The SDK's deferral window: a call that ends within it is answered as JSON, a longer one on
# an event stream kept alive by a comment this often.
_SSE_PING_S = 15.0
_SSE_HEADERS = [
    (b"content-type", b"text/event-stream"),
    (b"cache-control", b"no-cache, no-transform"),
    (b"connection", b"keep-alive"),
    (b"x-accel-buffering", b"no"),
]


def _dumps(value: Any) -> bytes:
    """As the SDK's modern HTTP entry encodes its answers."""
    return json.dumps(value, separators=(",", ":")).encode()


class LeanHttp:
    """ASGI middleware in front of the SDK's streamable HTTP app: serves the hot 2026-07-28
    requests it is sure of, passes everything else on.

    Args:
        app: the SDK's app.
        gateway: the gateway served.
        server: the front's ``Server`` (its cache hints and server-info stamp).
        view_of: the client view of an authenticated request's scope.
        security: the DNS-rebinding settings the SDK's app enforces.
        path: the MCP endpoint's path.
    """

    def __init__(
        self,
        app: ASGIApp,
        gateway: Gateway,
        server: Server[Any],
        view_of: Callable[[Scope], ClientView],
        security: TransportSecuritySettings,
        path: str,
    ) -> None:
        self._app = app
        self._gateway = gateway
        self._server = server
        self._view_of = view_of
        self._security = TransportSecurityMiddleware(security)
        self._path = path
        self._answers: WeakKeyDictionary[ClientView, LeanAnswers] = WeakKeyDictionary()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self._candidate(scope):
            await self._app(scope, receive, send)
            return
        body, rest = await read_body(receive, DEFAULT_MAX_REQUEST_BODY_SIZE)
        taken = None if rest is not None else await self._take(scope, body)
        if taken is None:
            await self._app(scope, replaying(body, rest, receive), send)
            return
        answers, request = taken
        await _answer(answers, request, receive, send)

    def _candidate(self, scope: Scope) -> bool:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != self._path:
            return False
        if self._gateway.pool.telemetry.active:
            return False
        versions = [value for name, value in scope["headers"] if name == _VERSION_HEADER]
        return len(versions) == 1 and versions[0] in _MODERN

    async def _take(self, scope: Scope, body: bytes) -> tuple[LeanAnswers, HotRequest] | None:
        request = Request(scope)
        if await self._security.validate_request(request, is_post=True) is not None:
            return None
        has_json, has_sse = check_accept_headers(request)
        if not (has_json and has_sse) or find_duplicated_routing_header(request.headers.items()) is not None:
            return None
        try:
            message = json.loads(body)
        except (ValueError, RecursionError):
            return None
        if not isinstance(message, dict) or not isinstance(message.get("params"), dict):
            return None
        route = classify_inbound_request(message, headers=dict(request.headers))
        if not isinstance(route, InboundModernRoute):
            return None
        view = self._view_of(scope)
        answers = self._answers.get(view)
        if answers is None:
            answers = self._answers[view] = LeanAnswers(self._gateway, self._server, view, _dumps)
        hot = answers.hot(message, route.protocol_version)
        return None if hot is None else (answers, hot)


async def _answer(answers: LeanAnswers, request: HotRequest, receive: Receive, send: Send) -> None:
    """Serve ``request``: JSON when it ends within the deferral window, else an event stream;
    a disconnect cancels it."""
    outcome: list[tuple[bytes, int]] = []
    done = anyio.Event()

    async def run() -> None:
        outcome.append(await answers.respond(request))
        done.set()

    async def watch_disconnect(scope: anyio.CancelScope) -> None:
        while (await receive())["type"] != "http.disconnect":
            pass
        scope.cancel()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(run)
        tasks.start_soon(watch_disconnect, tasks.cancel_scope)
        with anyio.move_on_after(_SSE_PING_S):
            await done.wait()
        if done.is_set():
            body, code = outcome[0]
            status = ERROR_CODE_HTTP_STATUS.get(code, 200) if code else 200
            await _send_json(send, status, body)
        else:
            await send({"type": "http.response.start", "status": 200, "headers": _SSE_HEADERS})
            while not done.is_set():
                await send({"type": "http.response.body", "body": b": ping\r\n\r\n", "more_body": True})
                with anyio.move_on_after(_SSE_PING_S):
                    await done.wait()
            event = b"event: message\r\ndata: " + outcome[0][0] + b"\r\n\r\n"
            await send({"type": "http.response.body", "body": event, "more_body": False})
        tasks.cancel_scope.cancel()


async def _send_json(send: Send, status: int, body: bytes) -> None:
    headers = [(b"content-length", str(len(body)).encode()), (b"content-type", b"application/json")]
    wait = retry_after_of(body)
    if wait is not None:
        headers.append((b"retry-after", b"%d" % wait))
    start: Message = {"type": "http.response.start", "status": status, "headers": headers}
    await send(start)
    await send({"type": "http.response.body", "body": body})
