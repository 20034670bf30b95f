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
"""

from toolpool.serve._admin_events import EventHub
from toolpool.serve._bearer import BearerGate, holder_ticket
from toolpool.serve._front import build_server
from toolpool.serve._gateway import Gateway
from toolpool.serve._http import HTTP_PATH, HttpAddress, http_app, listen
from toolpool.serve._service import AdminPlane, serve_http, service_app
from toolpool.serve._stdio import serve_stdio
from toolpool.serve._ui_live import call_event
from toolpool.serve._views import ClientView
from toolpool.serve._wire import CODE_META_KEY

__all__ = [
    "CODE_META_KEY",
    "HTTP_PATH",
    "AdminPlane",
    "BearerGate",
    "ClientView",
    "EventHub",
    "Gateway",
    "HttpAddress",
    "build_server",
    "call_event",
    "holder_ticket",
    "http_app",
    "listen",
    "serve_http",
    "serve_stdio",
    "service_app",
]
