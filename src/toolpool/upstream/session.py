"""One protocol session with one upstream server, through the official SDK ``Client``.

``open_session`` starts the transport, negotiates the era and yields an ``UpstreamSession``
with the three operations toolpool needs — read every page of ``tools/list``, call a tool,
probe liveness — each bounded by a timeout and each mapping failures through
``upstream_fault``. The session must be entered and left in one task; ``Connection`` gives
persistent sessions an owner task of their own.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Literal

import anyio
import httpx2
import mcp_types
from mcp import Client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from toolpool._exit_stack import ExitStack
from toolpool._tls_rule import plain_http_problem
from toolpool.errors import AddressBlocked, UpstreamError, UpstreamProtocolError, UpstreamUnavailable
from toolpool.upstream._published import PublishedTool
from toolpool.upstream.faults import collapse_group, is_own_cancellation, upstream_fault
from toolpool.upstream.pinned import AddressGuard
from toolpool.upstream.ssrf import Resolver, SystemResolver, pin_origin
from toolpool.upstream.stdio import StdioLaunch, StdioTransport
from toolpool.upstream.tls import ClientTls, ssl_context

__all__ = ["Era", "HttpTarget", "ListingTooLarge", "UpstreamSession", "open_session"]

# Slack on top of the SDK's own request timeout, so the SDK reports first and a stuck
# transport still cannot outlive the bound.
_TIMEOUT_SLACK_S = 1.0
_CLIENT_INFO = mcp_types.Implementation(name="toolpool", version="0.1.0")


_SYSTEM_RESOLVER = SystemResolver()


@dataclass(frozen=True, slots=True)
class HttpTarget:
    """A remote server: streamable HTTP (``http``) or the older HTTP+SSE (``sse``).

    Every session resolves ``url``'s host once through ``resolver`` and connects only to
    that address, which must pass the SSRF guard (``toolpool.upstream.ssrf``);
    ``allow_private_network`` lets it be loopback or private, never metadata or link-local.
    With ``require_tls`` every request must be ``https://``, unless that address is loopback
    and ``allow_private_network`` is set; ``tls`` is the client certificate and CA (mTLS).
    """

    kind: Literal["http", "sse"]
    url: str
    headers: Mapping[str, str]
    allow_private_network: bool = False
    resolver: Resolver = _SYSTEM_RESOLVER
    require_tls: bool = False
    tls: ClientTls | None = None


@dataclass(frozen=True, slots=True)
class Era:
    """What a connect negotiated, remembered per alias so the next connect skips the probe."""

    mode: str  # "legacy" or a modern protocol version: a valid ``Client(mode=...)``
    discover: mcp_types.DiscoverResult | None = None


class ListingTooLarge(Exception):
    """``tools/list`` went past the page or tool cap, or repeated a cursor."""


class UpstreamSession:
    """An initialized session: list tools, call tools, probe; nothing else."""

    def __init__(self, alias: str, client: Client, stdio: StdioTransport | None) -> None:
        self.alias = alias
        self._client = client
        self._stdio = stdio
        self.lost = stdio.lost if stdio is not None else anyio.Event()

    @property
    def era(self) -> Era:
        version = self._client.protocol_version
        if version in MODERN_PROTOCOL_VERSIONS:
            return Era(version, self._client.session.discover_result)
        return Era("legacy")

    @property
    def pid(self) -> int | None:
        return None if self._stdio is None else self._stdio.pid

    def stderr_tail(self) -> str:
        return "" if self._stdio is None else self._stdio.stderr_tail()

    async def list_tools(self, timeout: float, max_pages: int, max_tools: int) -> list[PublishedTool]:
        """Read every page (an empty-string cursor is a cursor, not the end).

        Raises:
            ListingTooLarge: more than ``max_pages`` pages or ``max_tools`` tools, or a
                cursor that repeats.
            UpstreamError: the request failed.
        """
        tools: list[PublishedTool] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(max_pages):
            params = mcp_types.PaginatedRequestParams(cursor=cursor)
            page = await self._request("tools/list", timeout, self._client.session.list_tools(params=params))
            tools.extend(PublishedTool.from_wire(tool) for tool in page.tools)
            if len(tools) > max_tools:
                raise ListingTooLarge(f"the server publishes more than {max_tools} tools")
            cursor = page.next_cursor
            if cursor is None:
                return tools
            if cursor in seen:
                raise ListingTooLarge("the server repeated a tools/list cursor")
            seen.add(cursor)
        raise ListingTooLarge(f"tools/list did not end within {max_pages} pages")

    async def call_tool(
        self,
        remote_name: str,
        arguments: Mapping[str, Any],
        timeout: float,
        meta: Mapping[str, Any] | None = None,
    ) -> mcp_types.CallToolResult:
        """Call one tool; a result with ``isError`` is returned, not raised. ``meta`` is sent
        as ``params._meta`` (the caller's trace context).

        Raises:
            UpstreamError: timeout, lost connection, JSON-RPC error or malformed result.
        """
        # A plain request, not the SDK's ``call_tool``: that one checks ``structuredContent``
        # against the server's own outputSchema with ``jsonschema`` on Python's ``re`` (a
        # hostile pattern there holds the event loop) and, for a tool this session never
        # listed, sends another ``tools/list`` first. Gate 9 checks the vetted output schema.
        params = mcp_types.CallToolRequestParams(name=remote_name, arguments=dict(arguments))
        if meta:
            params = mcp_types.CallToolRequestParams.model_validate(
                {"name": remote_name, "arguments": dict(arguments), "_meta": dict(meta)}
            )
        # One clock per call: the deadline scope of ``_request`` bounds the write and the wait
        # together at ``timeout``; the SDK's own read timeout would arm a second timer for the
        # wait alone (bench/RESULTS.md §9b), so it is left unset (the session sets none either).
        request = self._client.session.send_request(
            mcp_types.CallToolRequest(params=params), mcp_types.CallToolResult
        )
        result = await self._request("tools/call", timeout, request, slack=0.0)
        if not isinstance(result, mcp_types.CallToolResult):
            raise UpstreamProtocolError(self.alias, "tools/call returned a result of an unsupported kind")
        return result

    async def probe(self, timeout: float) -> None:
        """A cheap round trip that proves the peer still answers (the watchdog's check).

        Raises:
            UpstreamError: it does not.
        """
        if self._client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            request: Any = self._client.session.send_discover(self._client.protocol_version)
        else:
            request = self._client.session.send_request(mcp_types.PingRequest(), mcp_types.EmptyResult)
        await self._request("ping", timeout, request)

    async def _request(
        self, during: str, timeout: float, request: Any, *, slack: float = _TIMEOUT_SLACK_S
    ) -> Any:
        try:
            # A bare deadline scope costs half of fail_after, and this is on every call.
            with anyio.CancelScope(deadline=anyio.current_time() + timeout + slack):
                return await request
            raise TimeoutError  # only reached when the deadline cancelled the request
        except BaseException as exc:
            if is_own_cancellation(exc) or not isinstance(exc, Exception | anyio.get_cancelled_exc_class()):
                raise
            if isinstance(exc, ListingTooLarge):
                raise
            raise upstream_fault(self.alias, exc, during) from exc


@asynccontextmanager
async def open_session(
    alias: str,
    target: StdioLaunch | HttpTarget,
    era: Era | None,
    connect_timeout: float,
) -> AsyncIterator[UpstreamSession]:
    """Start the transport and negotiate; ``era=None`` means probe (``mode="auto"``).

    Raises:
        AddressBlocked: an ``HttpTarget``'s URL or address failed the SSRF guard; raised
            before any connection is made (or, for a redirect or SSE endpoint that points
            elsewhere, instead of making it).
        UpstreamUnavailable: the server could not be started, reached or initialized in time.
    """
    stdio = StdioTransport(target) if isinstance(target, StdioLaunch) else None
    guard: AddressGuard | None = None
    # The deadline scope must enclose the whole session (the SDK's task groups live inside
    # it); it is lifted once the handshake is done.
    with anyio.CancelScope(deadline=anyio.current_time() + connect_timeout) as deadline:
        if isinstance(target, HttpTarget):
            guard = await _guard(alias, target)
            # The SDK swallows some refusals and would wait for the deadline; stop at once.
            guard.on_refusal = deadline.cancel
        try:
            async with ExitStack() as stack:
                try:
                    transport = (
                        stdio
                        if stdio is not None
                        else await _http_transport(stack, target, guard, connect_timeout)
                    )
                    client = Client(
                        transport,
                        mode=era.mode if era is not None else "auto",
                        prior_discover=era.discover if era is not None else None,
                        client_info=_CLIENT_INFO,
                        cache=None,
                    )
                    await stack.enter_async_context(client)
                except BaseException as exc:
                    if is_own_cancellation(exc) or not isinstance(
                        exc, Exception | anyio.get_cancelled_exc_class()
                    ):
                        raise
                    if guard is not None and guard.refusal is not None:
                        raise guard.refusal from None
                    fault = upstream_fault(alias, exc, "connect")
                    raise UpstreamUnavailable(
                        alias, _connect_problem(fault, stdio), detail=fault.detail
                    ) from exc
                deadline.deadline = math.inf
                yield UpstreamSession(alias, client, stdio)
        except BaseExceptionGroup as group:
            # Leaving the SDK's task groups wraps whatever ended the session.
            if guard is not None and guard.refusal is not None:
                raise guard.refusal from None
            collapsed = collapse_group(alias, group, "the session")
            if collapsed is group:
                raise
            raise collapsed from group
    if guard is not None and guard.refusal is not None:
        raise guard.refusal
    if deadline.cancelled_caught:
        raise UpstreamUnavailable(alias, f"could not connect within {connect_timeout:g} s")


async def _guard(alias: str, target: HttpTarget) -> AddressGuard:
    """Resolve once and check, before anything connects (R14, and ``require_tls`` on the
    pinned address: the configuration could judge only the URL's spelling).

    Raises:
        AddressBlocked: as ``pin_origin``, or plain http that ``require_tls`` refuses.
        UsageError: the client certificate or CA bundle cannot be loaded.
    """
    origin = await pin_origin(
        alias, target.url, resolver=target.resolver, allow_private_network=target.allow_private_network
    )
    https_only = False
    if target.require_tls:
        problem = plain_http_problem(str(origin.address), allow_private_network=target.allow_private_network)
        if origin.scheme == "http" and problem is not None:
            raise AddressBlocked(alias, problem)
        https_only = problem is not None
    context = None if target.tls is None else ssl_context(alias, target.tls)
    return AddressGuard(
        alias, origin, watch_sse_endpoint=target.kind == "sse", ssl_context=context, https_only=https_only
    )


async def _http_transport(
    stack: ExitStack, target: StdioLaunch | HttpTarget, guard: AddressGuard | None, timeout: float
) -> Any:
    assert isinstance(target, HttpTarget)
    assert guard is not None
    headers = dict(target.headers)
    if target.kind == "sse":
        return sse_client(target.url, headers=headers, timeout=timeout, httpx_client_factory=guard.client)
    http = guard.client(headers=headers, timeout=httpx2.Timeout(timeout, read=None))
    await stack.enter_async_context(http)
    return streamable_http_client(target.url, http_client=http)


def _connect_problem(fault: UpstreamError, stdio: StdioTransport | None) -> str:
    message = str(fault).partition(": ")[2] or "connect failed"
    if stdio is not None and stdio.pid is None:
        return "could not start the server's command"
    return f"could not connect: {message}"
