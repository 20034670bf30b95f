"""The whole HTTP service on one port: MCP at ``/mcp``, the admin API at ``/admin``, the UI at ``/ui``.

The planes stay apart: MCP clients authenticate with their bearer tokens (``BearerGate``) and
only ever reach ``/mcp``; operators use the admin token, which the MCP side never accepts.
Without an admin token the service is MCP only: ``/admin`` and ``/ui`` are paths like any
other, behind the bearer gate (401 without a client token, 404 with one).

Every path is guarded against DNS rebinding: ``/mcp`` by the SDK's transport check, the admin
API and the UI by the same Host rule here (a page on another origin that rebinds its name to
this listener must not reach the login form, nor a browser's open session). Host names are
case-insensitive: ``Host`` and ``Origin`` are lowercased first, so ``LOCALHOST:port`` is
``localhost:port`` on every path and ``EVIL.example`` is refused like ``evil.example``.

Guessing is noticed: every plane counts its failed authentications for the client's address
in one ``AuthGuard`` (``[pool] auth_*`` in the configuration); an address over the limit gets
429 with ``Retry-After`` on every path until its refusal ends, and ``report_failures`` logs and
audits the counts (``auth.failed``, one per address per window, never a token).

Metrics: with a ``MetricsPlane``, ``/metrics`` answers a Prometheus scrape that presents its
own bearer token (neither a client's nor the admin's; a wrong one counts as a failed
authentication); without one, ``/metrics`` is a path like any other, behind the bearer gate.

Live events: one ``EventHub`` per service. Each call record is published as it is made
(``call_event``, pushed by the pool); management events (an enable from the CLI in another
process, an import, a login, a connection lost) are read from the audit log by ``AuditTail``,
so the stream shows what every process did, not just this one.
"""

from __future__ import annotations

import hmac
import math
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

import anyio
import anyio.abc
import anyio.to_thread
import uvicorn
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from toolpool.config import Config
from toolpool.errors import UsageError
from toolpool.serve._events import EventHub
from toolpool.serve._grace import GRACE_S
from toolpool.serve._guard import AuthGuard, GuardSettings, address_of, report_failures
from toolpool.serve._headers import API_HEADERS
from toolpool.serve._health import HEALTHZ_PATH, READYZ_PATH, answer_health
from toolpool.serve.admin import admin_app
from toolpool.serve.gateway import Gateway, http_app, rebinding_guard, url_of
from toolpool.serve.ui import ui_app
from toolpool.store import AuditEvent, Store
from toolpool.telemetry import PROMETHEUS_CONTENT_TYPE

__all__ = [
    "ADMIN_PATH",
    "GRACE_S",
    "METRICS_PATH",
    "UI_PATH",
    "AdminPlane",
    "AuditTail",
    "MetricsPlane",
    "audit_event",
    "guard_settings",
    "serve_http",
    "service_app",
]

ADMIN_PATH = "/admin"
UI_PATH = "/ui"
METRICS_PATH = "/metrics"
AUDIT_EVENT = "audit"
TAIL_S = 0.5  # how often the audit log is read for new events: the stream's latency at most
_TAIL_PAGE = 200
_READ_S = 10.0
_T = TypeVar("_T")
_BAD_HOST = b'{"error": "invalid Host header"}'
_UNAUTHORIZED = b'{"error": "a metrics token is required"}'
_REFUSED = b'{"error": "too many failed authentications from this address; retry later"}'
_CASELESS = frozenset({b"host", b"origin"})
_HEALTH = frozenset({HEALTHZ_PATH, READYZ_PATH})


@dataclass(frozen=True, slots=True)
class AdminPlane:
    """What the admin API and the UI need: the operators' token and the hub of live events."""

    token: str
    events: EventHub

    def __post_init__(self) -> None:
        if not self.token.strip():
            raise UsageError("the admin token is empty")


@dataclass(frozen=True, slots=True)
class MetricsPlane:
    """``/metrics``: the scrape's own token, and what renders the metrics (called off the loop)."""

    token: str
    render: Callable[[], bytes]

    def __post_init__(self) -> None:
        if not self.token.strip():
            raise UsageError("the metrics token is empty")


def audit_event(event: AuditEvent) -> dict[str, Any]:
    """The live event for one audit row: ``kind`` is ``"audit"``; ``action`` says what happened."""
    return {
        "kind": AUDIT_EVENT,
        "id": event.id,
        "at": event.at.isoformat(),
        "actor": event.actor,
        "action": event.action,
        "resource": event.resource,
        "detail": dict(event.detail),
    }


class AuditTail:
    """Publishes every audit event written after it started, except calls (published as they
    happen, with their own kind)."""

    def __init__(self, store: Store, hub: EventHub, *, interval_s: float = TAIL_S) -> None:
        self._store = store
        self._hub = hub
        self._interval_s = interval_s
        self._after: int | None = None

    async def run(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Follow the log until cancelled; a store that does not answer is retried next time."""
        self._after = await self._read(self._store.audit.last_audit_id)
        task_status.started()
        while True:
            await anyio.sleep(self._interval_s)
            await self.step()

    async def step(self) -> None:
        """Publish what was appended since the last step."""
        while True:
            try:
                events = await self._read(partial(self._store.audit.audit_events, _TAIL_PAGE, self._after))
            except UsageError:
                return
            for event in events:
                self._after = event.id
                if event.action != "call":
                    self._hub.publish(audit_event(event))
            if len(events) < _TAIL_PAGE:
                return

    @staticmethod
    async def _read(read: Callable[[], _T]) -> _T:
        try:
            with anyio.fail_after(_READ_S):
                return await anyio.to_thread.run_sync(read, abandon_on_cancel=True)
        except TimeoutError as exc:
            raise UsageError("the store did not answer in time") from exc


def guard_settings(config: Config) -> GuardSettings:
    """The failed-authentication limits of the configuration (``[pool] auth_*``)."""
    pool = config.pool
    return GuardSettings(
        limit=pool.auth_failure_limit, window_s=pool.auth_failure_window_s, refusal_s=pool.auth_refusal_s
    )


def service_app(
    gateway: Gateway,
    host: str,
    port: int,
    admin: AdminPlane | None,
    *,
    guard: AuthGuard | None = None,
    metrics: MetricsPlane | None = None,
    lean: bool = True,
    public_hosts: Sequence[str] = (),
) -> ASGIApp:
    """MCP for token holders; with ``admin``, the admin API and the UI beside it; with
    ``metrics``, ``/metrics`` for its token; ``/healthz`` and ``/readyz`` for anyone
    (``_health``). ``guard`` (by default one with the configuration's limits) counts and
    refuses failed authentication. ``lean``: hot 2026-07-28 requests are answered on the
    gateway's lean front (off: the SDK's server answers every one). ``public_hosts``
    (``HOST:PORT``): the names a proxy in front gives, accepted by the Host checks too."""
    guard = guard if guard is not None else AuthGuard(guard_settings(gateway.config))
    mcp = http_app(gateway, host, port, guard=guard, lean=lean, public_hosts=public_hosts)
    hosts = _allowed_hosts(host, port, public_hosts)
    if admin is None:
        return _Service(gateway, mcp, None, None, hosts, guard, metrics)
    api = admin_app(
        gateway.store, admin_token=admin.token, pool=gateway.pool, events=admin.events, guard=guard
    )
    ui = ui_app(gateway.store, admin_token=admin.token, pool=gateway.pool, events=admin.events, guard=guard)
    return _Service(gateway, mcp, api, ui, hosts, guard, metrics)


async def serve_http(
    gateway: Gateway,
    sock: socket.socket,
    stop: anyio.Event,
    on_ready: Callable[[str], None],
    *,
    admin: AdminPlane | None = None,
    metrics: MetricsPlane | None = None,
    lean: bool = True,
    grace_s: float = GRACE_S,
    public_hosts: Sequence[str] = (),
) -> None:
    """Serve ``gateway`` on the listening ``sock`` until ``stop`` is set (or SIGINT/SIGTERM),
    then shut down gracefully: the listener closes (a load balancer's next connection goes
    to another replica), ``/readyz`` says draining, event streams end, and calls in flight
    get up to ``grace_s`` seconds to finish before they are cancelled. ``on_ready`` gets the
    MCP URL first. With ``admin``, the admin API and the UI are served too, and the
    hub gets every call and every management event until the service stops.

    uvicorn handles SIGINT and SIGTERM itself while it serves, and raises the signal again
    once it has stopped: run this where a signal receiver is installed (the CLI's), or that
    signal's default action ends the process before the gateway reaps its children.
    """
    host, port = sock.getsockname()[:2]
    guard = AuthGuard(guard_settings(gateway.config))
    config = uvicorn.Config(
        service_app(
            gateway, host, port, admin, guard=guard, metrics=metrics, lean=lean, public_hosts=public_hosts
        ),
        log_level="warning",
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=math.ceil(grace_s),
    )

    def draining() -> None:
        gateway.draining = True
        if admin is not None:
            admin.events.close()

    server = _Server(config, draining)

    async def stop_when_asked() -> None:
        await stop.wait()
        server.should_exit = True

    async with anyio.create_task_group() as tasks:
        if admin is not None:
            await tasks.start(AuditTail(gateway.store, admin.events).run)
        tasks.start_soon(stop_when_asked)
        tasks.start_soon(partial(report_failures, guard, gateway.store.audit.audit))
        on_ready(url_of(sock))
        try:
            await server.serve(sockets=[sock])
        finally:
            if admin is not None:
                admin.events.close()
            tasks.cancel_scope.cancel()


class _Server(uvicorn.Server):
    """uvicorn, ending the event streams before it waits for open connections to finish."""

    def __init__(self, config: uvicorn.Config, on_shutdown: Callable[[], None]) -> None:
        super().__init__(config)
        self._on_shutdown = on_shutdown

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self._on_shutdown()
        await super().shutdown(sockets)


def _allowed_hosts(host: str, port: int, public_hosts: Sequence[str]) -> frozenset[str] | None:
    guard = rebinding_guard(host, port, public_hosts)
    if not guard.enable_dns_rebinding_protection:
        return None
    return frozenset(guard.allowed_hosts)


class _Service:
    """Routes by path prefix; the lifespan belongs to the MCP app (the SDK's session manager)."""

    def __init__(
        self,
        gateway: Gateway,
        mcp: ASGIApp,
        api: ASGIApp | None,
        ui: ASGIApp | None,
        hosts: frozenset[str] | None,
        guard: AuthGuard,
        metrics: MetricsPlane | None = None,
    ):
        self._gateway = gateway
        self._mcp = mcp
        self._api = api
        self._ui = ui
        self._hosts = hosts
        self._guard = guard
        self._metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._mcp(scope, receive, send)
            return
        if scope["type"] == "http" and scope.get("path") in _HEALTH:
            await answer_health(scope["path"], scope["method"], self._gateway, send)
            return
        if scope["type"] == "http" and len(self._guard):  # nothing to look up while nobody failed
            refused_for = self._guard.refusal(address_of(scope))
            if refused_for is not None:
                retry = (b"retry-after", str(math.ceil(refused_for)).encode())
                await _answer(send, 429, _REFUSED, retry)
                return
        scope = _lowercase_host(scope)
        path: str = scope.get("path", "")
        if self._metrics is not None and path == METRICS_PATH and scope["type"] == "http":
            await self._scrape(scope, send, self._metrics)
            return
        ui = self._ui is not None and _under(path, UI_PATH)
        api = self._api is not None and _under(path, ADMIN_PATH)
        if not (ui or api):
            # MCP, and every other path: behind the bearer gate (no token, 401 and nothing
            # else); the SDK checks Host and Origin itself
            await self._mcp(scope, receive, send)
            return
        if scope["type"] != "http":
            return
        if self._hosts is not None and Headers(scope=scope).get("host", "") not in self._hosts:
            await _answer(send, 421, _BAD_HOST)
        elif ui:
            assert self._ui is not None
            await self._ui(_mounted(scope, UI_PATH), receive, send)
        else:
            assert self._api is not None
            await self._api(scope, receive, send)

    async def _scrape(self, scope: Scope, send: Send, metrics: MetricsPlane) -> None:
        headers = Headers(scope=scope)
        if self._hosts is not None and headers.get("host", "") not in self._hosts:
            await _answer(send, 421, _BAD_HOST)
            return
        scheme, _, given = headers.get("authorization", "").partition(" ")
        expected = metrics.token.encode("utf-8")
        if scheme.lower() != "bearer" or not hmac.compare_digest(
            given.strip().encode("utf-8", "surrogatepass"), expected
        ):
            self._guard.failed(address_of(scope), "metrics")
            await _answer(send, 401, _UNAUTHORIZED, (b"www-authenticate", b'Bearer realm="metrics"'))
            return
        body = await anyio.to_thread.run_sync(metrics.render)
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", PROMETHEUS_CONTENT_TYPE.encode()),
                    (b"content-length", str(len(body)).encode()),
                    (b"cache-control", b"no-store"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix + "/")


def _mounted(scope: Scope, prefix: str) -> Scope:
    """``scope`` as a Starlette ``Mount(prefix, ...)`` hands it to the mounted app."""
    root_path = scope.get("root_path", "") + prefix
    return {**scope, "root_path": root_path, "app_root_path": scope.get("app_root_path", root_path)}


def _lowercase_host(scope: Scope) -> Scope:
    """``scope`` with its ``Host`` and ``Origin`` in lower case: every later check compares
    them exactly, and host names (and URL schemes) are case-insensitive."""
    headers = scope.get("headers", ())
    if all(value == value.lower() for name, value in headers if name in _CASELESS):
        return scope
    lowered = [(name, value.lower() if name in _CASELESS else value) for name, value in headers]
    return {**scope, "headers": lowered}


async def _answer(send: Send, status: int, body: bytes, *extra: tuple[bytes, bytes]) -> None:
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *((name.encode(), value.encode()) for name, value in API_HEADERS.items()),
        (b"cache-control", b"no-store"),
        *extra,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
