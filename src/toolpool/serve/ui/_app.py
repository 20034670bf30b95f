"""The operators' web UI: server-rendered pages over the store, mounted at ``/ui`` by the service.

``ui_app(store, admin_token=...)`` builds a FastAPI app whose routes are relative to where it
is mounted (``Mount("/ui", ui_app(...))``); links follow the mount's ``root_path``. Decisions:

- **Login** takes the admin token (compared in constant time) and an optional name for the
  audit log (actor ``ui:<name>``, or ``ui``). It opens a server-side session
  (``_sessions``): the cookie holds a random id only, HttpOnly, SameSite=Strict, Secure
  over https. Every page needs a session (else a redirect to the login page; the event
  stream answers 401). Every change is a POST form carrying the session's CSRF token
  (else 403). Logins and logouts are audited.
- **Refusals are messages**: a store refusal (R9: a write tool is approved, not enabled) or a
  usage error comes back as a flash message on the page the action came from, never a 500.
- **Untrusted text** (descriptions, schemas, reasons, audit details) is escaped by Jinja2's
  autoescape; no template marks upstream text safe. The Content-Security-Policy allows
  scripts, styles and connections from this origin only, and no inline script: the live
  pages' few lines of JavaScript are ``static/live.js`` and ``static/approvals.js``.
- **No blocking on the loop**: store calls run in worker threads; pool calls (approving a
  quarantined change) run on the loop, where the pool lives.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from jinja2 import Environment, PackageLoader, StrictUndefined
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response
from starlette.staticfiles import StaticFiles

from toolpool.errors import UsageError
from toolpool.pool import Pool
from toolpool.serve._events import HEARTBEAT_S, EventFeed
from toolpool.serve._guard import AuthGuard
from toolpool.serve._headers import UI_HEADERS, SecurityHeaders
from toolpool.serve.ui._core import LoginRequired, Ui
from toolpool.serve.ui._routes import register
from toolpool.serve.ui._sessions import Sessions
from toolpool.store import Store

__all__ = ["ui_app"]

_STATIC = Path(__file__).parent / "static"


def ui_app(
    store: Store,
    *,
    admin_token: str,
    pool: Pool | None = None,
    events: EventFeed | None = None,
    title: str = "toolpool",
    actor_prefix: str = "ui",
    heartbeat_s: float = HEARTBEAT_S,
    sessions: Sessions | None = None,
    guard: AuthGuard | None = None,
) -> FastAPI:
    """The web UI over ``store``, to mount at ``/ui``.

    Args:
        store: the open management store; the app does not close it.
        admin_token: what the login form must be given.
        pool: an entered pool on the same store: its configured aliases are listed, and
            approving a changed definition also releases the pool's quarantine.
        events: the feed whose call events the live page shows (``call_event``); without it
            the live page says so.
        title: shown in every page's header and title.
        actor_prefix: who changes are recorded as (``ui`` or ``ui:<name>``).
        heartbeat_s: seconds of quiet after which the live stream sends a comment.
        sessions: the session table (a fresh one by default).
        guard: counts each wrong token given to the login form for the client's address.

    Raises:
        UsageError: an empty token or actor prefix.
    """
    if not admin_token or not actor_prefix:
        raise UsageError("the web UI needs a non-empty admin token and actor prefix")
    templates = Environment(
        loader=PackageLoader("toolpool.serve.ui", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    templates.filters["utc"] = _utc
    ui = Ui(
        store=store,
        pool=pool,
        events=events,
        sessions=sessions if sessions is not None else Sessions(),
        templates=templates,
        title=title,
        token=admin_token.encode("utf-8", "surrogatepass"),
        actor_prefix=actor_prefix,
        heartbeat_s=heartbeat_s,
        guard=guard,
    )
    app = FastAPI(title=f"{title} web UI", openapi_url=None, docs_url=None, redoc_url=None)
    app.add_middleware(SecurityHeaders, headers=UI_HEADERS)
    app.mount("/static", StaticFiles(directory=_STATIC), name="static")
    _install_error_handlers(app, ui)
    register(app, ui)
    return app


def _install_error_handlers(app: FastAPI, ui: Ui) -> None:
    async def login_required(request: Request, exc: Exception) -> Response:
        return ui.redirect(request, "/login")

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        return _error_page(ui, request, exc.status_code, str(exc.detail))

    async def invalid(request: Request, exc: Exception) -> Response:
        return _error_page(ui, request, 400, "this address or form is not one the UI makes")

    async def internal(request: Request, exc: Exception) -> Response:
        return _error_page(ui, request, 500, "internal error; the service log has the details")

    app.add_exception_handler(LoginRequired, login_required)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(Exception, internal)


def _error_page(ui: Ui, request: Request, status: int, text: str) -> Response:
    response = ui.render(request, "error.html", None, status, status=status, message=text)
    # An unhandled error's response bypasses the middleware: set the headers here as well.
    response.headers.update(UI_HEADERS)
    return response


def _utc(moment: datetime | str | None) -> str:
    if moment is None:
        return ""
    if isinstance(moment, str):
        return moment
    return moment.strftime("%Y-%m-%d %H:%M:%S")
