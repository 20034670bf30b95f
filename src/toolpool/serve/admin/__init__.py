"""The admin REST API of the service, at ``/admin``: servers, tools, releases, audit, calls,
usage, and the live event stream (``/admin/events``).

- ``_api``: ``admin_app``, the routes and their decisions (auth, headers, actor, errors);
- ``_models``: the request and response bodies, and how the store's values become them;
- ``_usage``: the same for the usage ledger (``/admin/usage``).

The event hub it streams from is shared with the web UI (``toolpool.serve._events``).
"""

from toolpool.serve.admin._api import admin_app, status_of

__all__ = ["admin_app", "status_of"]
