"""toolpool as an MCP server: any MCP client connects to toolpool instead of the upstream
servers and gets the guarded pool.

    async with Gateway(config, on_report=print) as gateway:      # every wanted alias connected
        await serve_stdio(gateway, "ana", Ticket.allow("demo.*"), stop)
    # or, over streamable HTTP with bearer tokens:
        sock = listen(HttpAddress.parse("127.0.0.1:0"))
        await serve_http(gateway, sock, stop, on_ready=print)      # http://127.0.0.1:PORT/mcp
    # with the admin API (/admin) and the web UI (/ui) beside it, for the operators' token:
        await serve_http(gateway, sock, stop, on_ready=print, admin=AdminPlane(token, EventHub()))

Each client gets a ``toolpool.Session`` (its ticket, its taint, its release, R15);
``tools/list`` is that session's ticket-filtered snapshot, ``tools/call`` runs every gate, and
the result is the Envelope as a ``CallToolResult`` (the code in ``_meta["toolpool/code"]``).
A client whose view changes is sent ``notifications/tools/list_changed`` (2026-07-28 clients:
on their ``subscriptions/listen`` streams). Both protocol eras are served on every transport.

The package is in three parts, none reaching into another's private modules:

- ``gateway/``: the MCP front (the ``Gateway``, each client's ``ClientView``, the bearer gate,
  the stdio and streamable-HTTP transports, the wire format);
- ``admin/``: the admin REST API at ``/admin`` (``admin_app``, its models);
- ``ui/``: the web UI at ``/ui`` (``ui_app``, its pages, templates and static files).

What they share sits here: ``_events`` (the live-event hub the admin API and the UI stream
from, fed with the gateway's calls), ``_guard`` (failed authentication on every plane),
``_headers`` (the admin API's and the UI's security headers), ``_patterns`` (the names both
accept), and ``_service``, which puts ``/mcp``, ``/admin`` and ``/ui`` on one port.

Names are imported from their modules when first used (``toolpool._lazy``).
"""

from typing import TYPE_CHECKING

from toolpool._lazy import lazy_names

if TYPE_CHECKING:
    from toolpool.serve._events import EventHub, call_event
    from toolpool.serve._grace import GRACE_S
    from toolpool.serve._health import HEALTHZ_PATH, READYZ_PATH
    from toolpool.serve._service import (
        METRICS_PATH,
        AdminPlane,
        MetricsPlane,
        serve_http,
        service_app,
    )
    from toolpool.serve.gateway import (
        CODE_META_KEY,
        HTTP_PATH,
        BearerGate,
        ClientView,
        Gateway,
        HttpAddress,
        Readiness,
        build_server,
        check_replica_name,
        holder_ticket,
        http_app,
        listen,
        serve_stdio,
    )

_HOMES: dict[str, tuple[str, ...]] = {
    "toolpool.serve._events": ("EventHub", "call_event"),
    "toolpool.serve._health": ("HEALTHZ_PATH", "READYZ_PATH"),
    "toolpool.serve._grace": ("GRACE_S",),
    "toolpool.serve._service": (
        "METRICS_PATH",
        "AdminPlane",
        "MetricsPlane",
        "serve_http",
        "service_app",
    ),
    "toolpool.serve.gateway": (
        "CODE_META_KEY",
        "HTTP_PATH",
        "BearerGate",
        "ClientView",
        "Gateway",
        "HttpAddress",
        "Readiness",
        "build_server",
        "check_replica_name",
        "holder_ticket",
        "http_app",
        "listen",
        "serve_stdio",
    ),
}

__all__ = [
    "CODE_META_KEY",
    "GRACE_S",
    "HEALTHZ_PATH",
    "HTTP_PATH",
    "METRICS_PATH",
    "READYZ_PATH",
    "AdminPlane",
    "BearerGate",
    "ClientView",
    "EventHub",
    "Gateway",
    "HttpAddress",
    "MetricsPlane",
    "Readiness",
    "build_server",
    "call_event",
    "check_replica_name",
    "holder_ticket",
    "http_app",
    "listen",
    "serve_http",
    "serve_stdio",
    "service_app",
]

__getattr__, __dir__ = lazy_names(__name__, _HOMES, globals())
