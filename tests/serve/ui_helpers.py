"""Serving the web UI (or any ASGI app) on a real port for tests, and logging in to it.

``serve_asgi`` runs an app under uvicorn on a blocking portal's event loop in a background
thread, on a socket bound *before* the server starts: a client that connects early waits in
the backlog, so no test polls for readiness. ``serve_ui`` mounts ``ui_app`` at ``/ui`` as the
service does, with a real ``EventHub`` on that same loop (publish through ``UiServer.publish``)
and, given a configuration, a real ``Pool`` entered on that loop.
"""

from __future__ import annotations

import functools
import re
import socket
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx
import uvicorn
from anyio.from_thread import BlockingPortal, start_blocking_portal
from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.types import ASGIApp

from toolpool import load_config
from toolpool.pool import Pool
from toolpool.serve import EventHub
from toolpool.serve.ui import ui_app
from toolpool.store import Store

TOKEN = "ui-admin-4c1d7e9a2b"
WAIT_S = 10  # any wait on the local server: an answer takes milliseconds
STOP_S = 10  # uvicorn polls its exit flag every 0.1 s, then drains for at most GRACE_S
GRACE_S = 2
_CSRF = re.compile(r'name="csrf" value="([^"]+)"')


@contextmanager
def serve_asgi(portal: BlockingPortal, app: ASGIApp) -> Iterator[str]:
    """``app`` served on a free 127.0.0.1 port on ``portal``'s loop: yields its base URL."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        config = uvicorn.Config(
            app, log_config=None, log_level="warning", access_log=False, timeout_graceful_shutdown=GRACE_S
        )
        server = uvicorn.Server(config)
        finished = portal.start_task_soon(server.serve, [listener])
        try:
            yield f"http://127.0.0.1:{listener.getsockname()[1]}"
        finally:
            server.should_exit = True
            finished.result(timeout=STOP_S)


async def _bounded(function: Callable[..., Awaitable[Any]], *args: Any) -> Any:
    with anyio.fail_after(WAIT_S):
        return await function(*args)


@dataclass(frozen=True, slots=True)
class UiServer:
    url: str  # the UI's own URL: the service's root and "/ui"
    hub: EventHub
    portal: BlockingPortal
    pool: Pool | None

    def publish(self, event: Mapping[str, Any]) -> None:
        """Publish on the server's loop, where the hub lives."""
        self.portal.call(self.hub.publish, event)

    def wait_subscribers(self, count: int) -> None:
        self.portal.call(_bounded, self.hub.wait_subscribers, count)

    def on_loop(self, function: Callable[..., Any], *args: Any) -> Any:
        """Call a synchronous ``function`` on the server's loop (a pool lives there)."""
        return self.portal.call(functools.partial(function, *args))

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=WAIT_S)


@contextmanager
def serve_ui(store: Store, *, config: Path | None = None, **options: Any) -> Iterator[UiServer]:
    """``ui_app(store)`` mounted at ``/ui`` on a free port (with a ``Pool`` on ``config`` if given)."""
    with start_blocking_portal("asyncio") as portal, ExitStack() as stack:
        pool = None
        if config is not None:
            made = portal.call(functools.partial(Pool, load_config(config), store=store))
            pool = stack.enter_context(portal.wrap_async_context_manager(made))
        hub = EventHub()
        app = ui_app(store, admin_token=TOKEN, pool=pool, events=hub, **options)
        root = stack.enter_context(serve_asgi(portal, Starlette(routes=[Mount("/ui", app=app)])))
        stack.callback(portal.call, hub.close)  # first: the live streams end, the server can stop
        yield UiServer(root + "/ui", hub, portal, pool)


def log_in(client: httpx.Client, name: str = "ana") -> httpx.Response:
    """Log ``client`` in (its cookie jar keeps the session); the login's response."""
    response = client.post("/login", data={"token": TOKEN, "name": name})
    assert response.status_code == 303, response.text
    return response


def csrf_of(client: httpx.Client, path: str = "/") -> str:
    """The session's CSRF token, as a page's forms carry it."""
    page = client.get(path)
    assert page.status_code == 200, page.text
    found = _CSRF.search(page.text)
    assert found is not None, "the page has no form"
    return found.group(1)
