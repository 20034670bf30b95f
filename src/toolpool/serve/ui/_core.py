"""What every route of the web UI shares: the app's state, its rendering, its login check."""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Any

from jinja2 import Environment
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse

from toolpool.errors import UsageError
from toolpool.pool import Pool
from toolpool.serve._events import EventFeed
from toolpool.serve._guard import AuthGuard, address_of
from toolpool.serve.ui._sessions import COOKIE, Sessions, UiSession
from toolpool.store import AuditEvent, Store

__all__ = ["LoginRequired", "Ui", "base"]


class LoginRequired(Exception):
    """No live session: pages redirect to the login page."""


@dataclass(frozen=True, slots=True)
class Ui:
    """What every route of one UI app shares."""

    store: Store
    pool: Pool | None
    events: EventFeed | None
    sessions: Sessions
    templates: Environment
    title: str
    token: bytes
    actor_prefix: str
    heartbeat_s: float
    guard: AuthGuard | None = None

    def token_ok(self, request: Request, given: str) -> bool:
        """Whether ``given`` is the admin token; a wrong one is counted for the client's address."""
        if hmac.compare_digest(given.encode("utf-8", "surrogatepass"), self.token):
            return True
        if self.guard is not None:
            self.guard.failed(address_of(request.scope), "ui")
        return False

    def session(self, request: Request) -> UiSession:
        """The request's live session.

        Raises:
            LoginRequired: there is none.
        """
        found = self.sessions.get(request.cookies.get(COOKIE))
        if found is None:
            raise LoginRequired
        return found

    def render(
        self,
        request: Request,
        template: str,
        session: UiSession | None,
        status_code: int = 200,
        **context: Any,
    ) -> HTMLResponse:
        flashes = session.take_flashes() if session is not None else []
        alarms = self.alarms() if session is not None else []
        page = self.templates.get_template(template).render(
            title=self.title, base=base(request), session=session, flashes=flashes, alarms=alarms, **context
        )
        return HTMLResponse(page, status_code=status_code)

    def alarms(self) -> list[AuditEvent]:
        """Recent ``mcp.tools_grew`` events, for the banner on every page (none if the store
        cannot say: a banner must never break a page)."""
        try:
            return self.store.audit.recent("mcp.tools_grew")
        except UsageError:
            return []

    def redirect(self, request: Request, path: str) -> RedirectResponse:
        return RedirectResponse(base(request) + path, status_code=303)


def base(request: Request) -> str:
    """Where the app is mounted (``/ui``), for links: the mount's ``root_path``."""
    return str(request.scope.get("root_path", "")).rstrip("/")
