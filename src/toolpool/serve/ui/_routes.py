"""The web UI's routes: login and logout, the pages, and the POST actions behind their buttons.

Paths are relative to the mount (``/ui``). Pages: ``/`` servers and tools, ``/approvals`` (and
its stream ``/approvals/events``), ``/quarantine``,
``/audit``, ``/live`` (and its stream ``/live/events``), ``/charts``, ``/usage``. Every action is a POST
form with the session's CSRF token and answers with a redirect to its page (post/redirect/get),
where a flash message says what happened or why the store refused.
"""

# No ``from __future__ import annotations`` here: FastAPI reads the routes' annotations at run
# time, and ``Session`` is local to ``register``.
import functools
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, Any

import anyio.to_thread
from fastapi import Depends, FastAPI, HTTPException, Path, Query, Request
from starlette.responses import PlainTextResponse, Response

from toolpool.errors import ToolpoolError, UsageError
from toolpool.serve._cursor import CURSOR_MAX, decode_cursor, encode_cursor
from toolpool.serve._events import EventStream
from toolpool.serve._patterns import ACTOR_PATTERN, ALIAS_MAX, ALIAS_PATH, TOOL_MAX, TOOL_PATH
from toolpool.serve.ui import _charts as charts
from toolpool.serve.ui import _pages as pages
from toolpool.serve.ui._approvals import add_approval_routes
from toolpool.serve.ui._core import Ui, base
from toolpool.serve.ui._live import CallFeed
from toolpool.serve.ui._sessions import COOKIE, FormError, UiSession, clear_cookie, read_form, set_cookie
from toolpool.serve.ui._usage import usage_page
from toolpool.store import UsageBy, usage_day

__all__ = ["register"]

# Tools per page of the servers-and-tools page: each row carries its forms, and a browser
# renders a few hundred rows at once comfortably, not 100,000.
TOOLS_PAGE = 200
AUDIT_PAGE = 50  # events per audit page by default
AUDIT_PAGE_MAX = 500
LIVE_BACKLOG = 20  # call records shown when the live page opens, before live events arrive
CHART_MINUTES = 60  # the charts' window: the last hour, minute by minute
_ACTOR = re.compile(ACTOR_PATTERN)

Alias = Annotated[str, Path(pattern=ALIAS_PATH, max_length=ALIAS_MAX)]
ToolName = Annotated[str, Path(pattern=TOOL_PATH, max_length=TOOL_MAX)]


async def _run(function: Callable[..., Any], *args: Any) -> Any:
    """A store call, in a worker thread: the store blocks."""
    return await anyio.to_thread.run_sync(functools.partial(function, *args))


async def _form(request: Request, session: UiSession | None) -> dict[str, str]:
    """The request's form; with a session, only if it carries that session's CSRF token."""
    try:
        form = await read_form(request)
    except FormError as exc:
        raise HTTPException(exc.status, str(exc)) from None
    if session is not None and not session.csrf_ok(form):
        raise HTTPException(403, "this form is stale or was not sent by this UI: reload the page")
    return form


def register(app: FastAPI, ui: Ui) -> None:
    """Add every route of the UI to ``app``."""
    store = ui.store

    async def current(request: Request) -> UiSession:
        return ui.session(request)

    Session = Annotated[UiSession, Depends(current)]

    async def act(
        request: Request, session: UiSession, back: str, change: Callable[[dict[str, str]], str]
    ) -> Response:
        form = await _form(request, session)
        try:
            session.flash("ok", await _run(change, form))
        except ToolpoolError as exc:  # a refusal (R9) or a usage error: a message, not a 500
            session.flash("error", str(exc))
        return ui.redirect(request, back)

    # -- login -----------------------------------------------------------------------------

    @app.get("/login")
    async def login_page(request: Request) -> Response:
        if ui.sessions.get(request.cookies.get(COOKIE)) is not None:
            return ui.redirect(request, "/")
        return ui.render(request, "login.html", None, error=None, name="")

    @app.post("/login")
    async def login(request: Request) -> Response:
        form = await _form(request, None)
        name = form.get("name", "").strip()
        if not ui.token_ok(request, form.get("token", "")):
            return ui.render(request, "login.html", None, 401, error="wrong admin token", name=name)
        if name and not _ACTOR.match(name):
            error = "a name is letters, digits and _ . @ - (at most 64), or nothing"
            return ui.render(request, "login.html", None, 400, error=error, name="")
        session = ui.sessions.open(f"{ui.actor_prefix}:{name}" if name else ui.actor_prefix)
        await _run(store.audit.audit, session.actor, "ui.login", "ui", {})
        response = ui.redirect(request, "/")
        set_cookie(response, request, session, base(request) or "/")
        return response

    @app.post("/logout")
    async def logout(request: Request, session: Session) -> Response:
        await _form(request, session)
        ui.sessions.close(session.id)
        await _run(store.audit.audit, session.actor, "ui.logout", "ui", {})
        response = ui.redirect(request, "/login")
        clear_cookie(response, request, base(request) or "/")
        return response

    # -- servers and tools -----------------------------------------------------------------

    @app.get("/")
    async def tools_page(
        request: Request,
        session: Session,
        cursor: Annotated[str | None, Query(min_length=1, max_length=CURSOR_MAX)] = None,
    ) -> Response:
        after = None if cursor is None else decode_cursor(cursor)
        if cursor is not None and after is None:
            raise HTTPException(400, "cursor: not a cursor of this page (follow its links)")
        configured = None if ui.pool is None else set(ui.pool.config.servers)
        shown = await _run(pages.tools_page, store, configured, after, TOOLS_PAGE)
        following = None if shown.next_after is None else encode_cursor(*shown.next_after)
        return ui.render(
            request,
            "tools.html",
            session,
            page="tools",
            servers=shown.servers,
            listing=shown,
            following=following,
        )

    def server_action(enabled: bool) -> Callable[..., Any]:
        async def route(request: Request, alias: Alias, session: Session) -> Response:
            def change(form: dict[str, str]) -> str:
                store.tools.set_server_enabled(alias, enabled, session.actor)
                return f"server {alias} {'enabled' if enabled else 'disabled'} (release {store.releases.version})"

            return await act(request, session, "/", change)

        return route

    app.post("/servers/{alias}/enable")(server_action(True))
    app.post("/servers/{alias}/disable")(server_action(False))

    @app.post("/tools/{alias}/{name}/enable")
    async def enable_tool(request: Request, alias: Alias, name: ToolName, session: Session) -> Response:
        def change(form: dict[str, str]) -> str:
            store.tools.enable(alias, name, session.actor)
            return f"{alias}/{name} enabled (release {store.releases.version})"

        return await act(request, session, "/", change)

    @app.post("/tools/{alias}/{name}/disable")
    async def disable_tool(request: Request, alias: Alias, name: ToolName, session: Session) -> Response:
        def change(form: dict[str, str]) -> str:
            store.tools.disable(alias, name, session.actor)
            return f"{alias}/{name} disabled (release {store.releases.version})"

        return await act(request, session, "/", change)

    @app.post("/tools/{alias}/{name}/approve-write")
    async def approve_write(request: Request, alias: Alias, name: ToolName, session: Session) -> Response:
        def change(form: dict[str, str]) -> str:
            by, reason = form.get("by", ""), form.get("reason", "")
            store.tools.approve_write(alias, name, by, reason, session.actor)
            return f"{alias}/{name} approved to write by {by.strip()} and enabled (release {store.releases.version})"

        return await act(request, session, "/", change)

    # -- approvals of single calls ---------------------------------------------------------

    add_approval_routes(app, ui, current, act, _run)

    # -- quarantine (R7) -------------------------------------------------------------------

    @app.get("/quarantine")
    async def quarantine_page(request: Request, session: Session) -> Response:
        held = set(ui.pool.quarantined()) if ui.pool is not None else set()
        tools = await _run(pages.quarantined, store, held)
        pool_only = sorted(held - {(tool.alias, tool.name) for tool in tools})
        return ui.render(
            request, "quarantine.html", session, page="quarantine", tools=tools, pool_only=pool_only
        )

    def reviewed(alias: str, name: str, seen: str) -> tuple[str, str]:
        """The (approved, new) hashes of a tool whose new definition is still ``seen``."""
        for state in store.tools.tool_states(alias):
            if (
                state.name == name
                and state.approved_hash
                and state.current_hash == seen != state.approved_hash
            ):
                return state.approved_hash, seen
        raise UsageError(
            f"{alias}/{name} is no longer quarantined with that definition: review the page again"
        )

    @app.post("/quarantine/{alias}/{name}/approve")
    async def approve_change(request: Request, alias: Alias, name: ToolName, session: Session) -> Response:
        form = await _form(request, session)

        def pin() -> None:
            _, new = reviewed(alias, name, form.get("hash", ""))
            definition = store.tools.published_definition(alias, name) or {}
            store.pins.approve_pin(alias, name, definition, new, session.actor)

        try:
            await _run(pin)
        except ToolpoolError as exc:
            session.flash("error", str(exc))
            return ui.redirect(request, "/quarantine")
        text = f"{alias}/{name}: the new definition is approved and pinned"
        if ui.pool is not None and (alias, name) in ui.pool.quarantined():
            ui.pool.approve_change(alias, name)  # on the loop, where the pool lives
            text += "; the running pool exposes it from its next connect"
        session.flash("ok", text)
        return ui.redirect(request, "/quarantine")

    @app.post("/quarantine/{alias}/{name}/keep-blocked")
    async def keep_blocked(request: Request, alias: Alias, name: ToolName, session: Session) -> Response:
        def change(form: dict[str, str]) -> str:
            approved, new = reviewed(alias, name, form.get("hash", ""))
            detail = {"approved_hash": approved, "new_hash": new}
            store.audit.audit(session.actor, "tool.keep_blocked", f"{alias}/{name}", detail)
            return f"{alias}/{name} stays blocked; the decision is in the audit log"

        return await act(request, session, "/quarantine", change)

    # -- audit, live calls, charts ---------------------------------------------------------

    @app.get("/audit")
    async def audit_page(
        request: Request,
        session: Session,
        after_id: Annotated[int | None, Query(ge=0, le=2**53)] = None,
        limit: Annotated[int, Query(ge=1, le=AUDIT_PAGE_MAX)] = AUDIT_PAGE,
    ) -> Response:
        audit = await _run(pages.audit_page, store, limit, after_id)
        return ui.render(request, "audit.html", session, page="audit", audit=audit, limit=limit)

    @app.get("/live")
    async def live_page(request: Request, session: Session) -> Response:
        calls = await _run(charts.recent_calls, store, LIVE_BACKLOG)
        live = ui.events is not None
        return ui.render(request, "live.html", session, page="live", calls=calls, live=live)

    @app.get("/live/events")
    async def live_events(request: Request) -> Response:
        if ui.sessions.get(request.cookies.get(COOKIE)) is None:
            return PlainTextResponse("log in first", status_code=401)
        if ui.events is None:
            return PlainTextResponse("this service has no event feed", status_code=409)
        return EventStream(CallFeed(ui.events), ui.heartbeat_s)

    @app.get("/charts")
    async def charts_page(request: Request, session: Session) -> Response:
        now = datetime.now(UTC)
        since = charts.window_start(now, CHART_MINUTES)
        records, clipped = await _run(charts.calls_since, store, since)
        shown = [charts.minute_chart(records, now, CHART_MINUTES), charts.code_chart(records, CHART_MINUTES)]
        return ui.render(request, "charts.html", session, page="charts", charts=shown, clipped=clipped)

    @app.get("/usage")
    async def usage(
        request: Request,
        session: Session,
        by: UsageBy = "principal",
        since: Annotated[str | None, Query(max_length=64)] = None,
    ) -> Response:
        try:
            day = None if not since else usage_day(since)
        except UsageError as exc:
            raise HTTPException(400, f"since: {exc}") from None
        principals = None if ui.pool is None else ui.pool.config.principals
        page = await _run(usage_page, store, by, day, datetime.now(UTC).date(), principals)
        return ui.render(request, "usage.html", session, page="usage", usage=page)
