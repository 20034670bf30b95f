"""The MCP front of the service: toolpool served to MCP clients, on stdio or streamable HTTP.

- ``_gateway``: the ``Gateway``, one pool for the life of the service, and its watcher;
  ``_connecting`` keeps the wanted aliases connected.
- ``_clients``: ``ClientView``, what one client was shown and how it is told of a change, and
  ``ClientBook``, the gateway's clients by key.
- ``_front``: the SDK's server with toolpool's handlers, the same for every transport;
  ``_wire`` turns exposed tools and Envelopes into what the client is sent.
- ``_stdio`` and ``_http``: the two transports; ``_bearer`` is the token gate in front of HTTP.

The admin API (``toolpool.serve.admin``) and the web UI (``toolpool.serve.ui``) sit beside
this part, never inside it; ``toolpool.serve`` puts all three on one port.
"""

from toolpool.serve.gateway._bearer import BearerGate, holder_ticket
from toolpool.serve.gateway._clients import ClientView
from toolpool.serve.gateway._front import build_server
from toolpool.serve.gateway._gateway import Gateway, Readiness
from toolpool.serve.gateway._http import HTTP_PATH, HttpAddress, http_app, listen, rebinding_guard, url_of
from toolpool.serve.gateway._replica_ids import check_replica_name
from toolpool.serve.gateway._stdio import serve_stdio
from toolpool.serve.gateway._wire import CODE_META_KEY

__all__ = [
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
    "rebinding_guard",
    "serve_stdio",
    "url_of",
]
