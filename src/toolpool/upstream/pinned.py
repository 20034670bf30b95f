"""httpx2 clients that can reach only one pinned origin (R14), for both HTTP transports.

How the pinning works in httpcore2: ``httpcore2.AsyncHTTPConnection._connect`` asks its
network backend for ``connect_tcp(origin.host, origin.port)`` and then, for https, calls
``start_tls(server_hostname=origin.host)``; httpx2 sets the ``Host`` header from the URL
before any of that. ``_PinnedBackend.connect_tcp`` therefore swaps only the TCP destination
for the pinned address: SNI, the certificate's name check and ``Host`` keep the host name,
and DNS is never consulted. It refuses any other host outright, so a redirect, an SSE
message endpoint or anything else that points elsewhere cannot leave the pinned address,
whatever the SDK's own origin checks conclude. Nothing global is patched: each
``AddressGuard`` builds its own transport around its own connection pool.

A refusal is recorded on the guard and reported through ``on_refusal``, because the SDK's
transports swallow some exceptions (its SSE ``post_writer`` logs and drops them; its SSE
reader parks a refused endpoint in a stream nobody reads yet): ``open_session`` cancels the
connect and raises the recorded ``AddressBlocked`` instead of waiting for its deadline.
"""

from __future__ import annotations

import re
import ssl
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Final
from urllib.parse import urljoin

import httpcore2
import httpx2

from toolpool._tls_rule import PLAIN_HTTP_REFUSED
from toolpool.errors import AddressBlocked
from toolpool.upstream.ssrf import PinnedOrigin

__all__ = ["AddressGuard"]

# The SDK's own cap on one SSE event; past it the endpoint watch stops looking.
_MAX_EVENT_BYTES: Final = 1024 * 1024
_LINE_END: Final = re.compile(rb"\r\n|\r|\n")
# The SDK's transports always pass their own timeout; this bounds any other use of a client.
_DEFAULT_TIMEOUT: Final = httpx2.Timeout(30.0)
_LIMITS: Final = httpx2.Limits(max_connections=100, max_keepalive_connections=20, keepalive_expiry=5.0)


class AddressGuard:
    """One session's pinned origin; makes the httpx2 clients its transport uses.

    ``client`` fits the SDK's ``McpHttpClientFactory``. Pass ``watch_sse_endpoint=True`` for
    the SSE transport, so a message endpoint announced on another origin is refused at once,
    and ``https_only=True`` (``require_tls``) to refuse any request that is not ``https://``.
    """

    def __init__(
        self,
        alias: str,
        origin: PinnedOrigin,
        *,
        watch_sse_endpoint: bool = False,
        ssl_context: ssl.SSLContext | None = None,
        https_only: bool = False,
    ) -> None:
        self.alias = alias
        self.https_only = https_only
        self.origin = origin
        self.refusal: AddressBlocked | None = None
        self.on_refusal: Callable[[], None] | None = None
        self.watch_sse_endpoint = watch_sse_endpoint
        self._ssl_context = ssl_context

    def client(
        self,
        headers: dict[str, str] | None = None,
        timeout: httpx2.Timeout | None = None,
        auth: httpx2.Auth | None = None,
    ) -> httpx2.AsyncClient:
        """A client bound to the pinned address: no redirects, no proxies, nothing from the env."""
        return httpx2.AsyncClient(
            headers=headers,
            timeout=timeout if timeout is not None else _DEFAULT_TIMEOUT,
            auth=auth,
            follow_redirects=False,
            trust_env=False,
            transport=_PinnedTransport(self, self._ssl_context),
        )

    def refuse(self, problem: str) -> AddressBlocked:
        """Record a refusal (the first one wins), tell ``on_refusal``, return it to raise."""
        if self.refusal is None:
            self.refusal = AddressBlocked(self.alias, problem)
            if self.on_refusal is not None:
                self.on_refusal()
        return self.refusal

    def check_endpoint(self, base: str, announced: str) -> None:
        """Refuse an SSE message endpoint that is not on the pinned origin."""
        try:
            url = httpx2.URL(urljoin(base, announced))
        except httpx2.InvalidURL:
            url = None
        if url is None or not self.origin.same_origin(url):
            raise self.refuse("the server announced its SSE message endpoint on another origin")


class _PinnedBackend(httpcore2.AsyncNetworkBackend):
    """Connects every TCP stream to the pinned address, and only for the pinned host."""

    def __init__(self, guard: AddressGuard) -> None:
        self._guard = guard
        self._inner = httpcore2.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore2.SOCKET_OPTION] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        # Another port of the same host keeps the vetted address (the SDK's http -> https
        # upgrade); another host never gets a connection.
        if host != self._guard.origin.host:
            raise self._guard.refuse("a request tried to leave the server's host")
        return await self._inner.connect_tcp(
            str(self._guard.origin.address),
            port,
            timeout=timeout,
            local_address=local_address,
            socket_options=socket_options,
        )

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore2.SOCKET_OPTION] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        raise self._guard.refuse("a request tried to use a unix socket")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class _PinnedTransport(httpx2.AsyncHTTPTransport):
    """httpx2's own transport (request mapping, errors, streams) over a pinned pool."""

    def __init__(self, guard: AddressGuard, ssl_context: ssl.SSLContext | None) -> None:
        context = ssl_context or httpx2.create_ssl_context(trust_env=False)
        super().__init__(verify=context, trust_env=False)
        # httpx2 offers no public way to hand its pool a network backend; replace the pool
        # it built (no I/O has happened yet) and fail loudly if that attribute ever moves.
        if not isinstance(getattr(self, "_pool", None), httpcore2.AsyncConnectionPool):
            raise RuntimeError("httpx2.AsyncHTTPTransport changed: the SSRF guard cannot pin it")
        self._pool = httpcore2.AsyncConnectionPool(
            ssl_context=context,
            max_connections=_LIMITS.max_connections,
            max_keepalive_connections=_LIMITS.max_keepalive_connections,
            keepalive_expiry=_LIMITS.keepalive_expiry,
            network_backend=_PinnedBackend(guard),
        )
        self._guard = guard

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if self._guard.https_only and request.url.scheme != "https":
            raise self._guard.refuse(PLAIN_HTTP_REFUSED)
        response = await super().handle_async_request(request)
        content_type = response.headers.get("content-type", "")
        if not (self._guard.watch_sse_endpoint and content_type.startswith("text/event-stream")):
            return response
        assert isinstance(response.stream, httpx2.AsyncByteStream)
        watched = _EndpointWatch(response.stream, self._guard, str(request.url))
        return httpx2.Response(
            status_code=response.status_code,
            headers=response.headers,
            stream=watched,
            extensions=response.extensions,
        )


class _EndpointWatch(httpx2.AsyncByteStream):
    """Passes an SSE body through untouched, checking the first ``endpoint`` event on the way."""

    def __init__(self, inner: httpx2.AsyncByteStream, guard: AddressGuard, base: str) -> None:
        self._inner = inner
        self._guard = guard
        self._base = base
        self._pending = b""
        self._event = b""
        self._data: list[bytes] = []
        self._done = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            if not self._done:
                self._feed(chunk)
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()

    def _feed(self, chunk: bytes) -> None:
        buffer = self._pending + chunk
        held = b"\r" if buffer.endswith(b"\r") else b""  # maybe the first half of a CRLF
        *lines, rest = _LINE_END.split(buffer[: len(buffer) - len(held)])
        self._pending = rest + held
        if len(self._pending) > _MAX_EVENT_BYTES:
            self._done = True
        for line in lines:
            if not self._done:
                self._line(line)

    def _line(self, line: bytes) -> None:
        if not line:
            if self._event == b"endpoint" and self._data:
                self._done = True
                self._guard.check_endpoint(self._base, b"\n".join(self._data).decode("utf-8", "replace"))
            self._event, self._data = b"", []
            return
        name, _, value = line.partition(b":")
        value = value.removeprefix(b" ")
        if name == b"event":
            self._event = value
        elif name == b"data":
            self._data.append(value)
