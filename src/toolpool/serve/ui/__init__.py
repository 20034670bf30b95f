"""The operators' web UI of the service, at ``/ui``: server-rendered pages over the store.

- ``_app``: ``ui_app``, the app and its decisions (login, refusals as messages, untrusted
  text, no blocking on the loop); ``_routes``: the routes; ``_core``: what they share;
- ``_sessions``: the server-side login sessions and their cookie;
- ``_pages``: the page models (what each page shows); ``_charts``: the charts' numbers;
  ``_live``: the live page's feed of call events; ``_usage``: the usage page (the usage
  ledger's table and its charts per day);
- ``templates/`` (Jinja2, autoescaped) and ``static/`` (the style sheet and the live page's
  script), shipped inside this package.
"""

from toolpool.serve.ui._app import ui_app

__all__ = ["ui_app"]
