"""The web UI's approvals page: the calls that wait for a person, with approve and deny forms.

``/approvals`` lists the pending requests (newest first) and the last decided ones; each
pending one shows who asked, for which tool, why (the tool's policy or the ticket's ``ask``)
and the call's arguments (secrets redacted, clipped), with one form whose reason is required
and whose two buttons approve or deny. The decision is recorded as the logged-in UI actor.

The page stays current: ``/approvals/events`` streams the service's ``approval.*`` audit events
(the audit tail publishes what every process did), and the page's script then fetches the
page again and adds the new requests and drops the decided ones, leaving a reason being typed
alone.
"""

# No ``from __future__ import annotations`` here: FastAPI reads the routes' annotations at run
# time, and the session dependency is local to ``add_approval_routes``.
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Path, Request
from starlette.responses import PlainTextResponse, Response

from toolpool.serve._events import DROPPED, EventFeed, EventStream
from toolpool.serve.ui._core import Ui
from toolpool.serve.ui._sessions import COOKIE, UiSession
from toolpool.store import Approval, Store

__all__ = ["ApprovalFeed", "add_approval_routes", "approvals_page"]

APPROVAL_ID_PATH = r"^apr_[A-Za-z0-9_-]{1,60}$"
PENDING_SHOWN = 200  # a page of requests; more waiting at once is an incident, not a queue
DECIDED_SHOWN = 20

ApprovalId = Annotated[str, Path(pattern=APPROVAL_ID_PATH, max_length=64)]
Act = Callable[[Request, UiSession, str, Callable[[dict[str, str]], str]], Awaitable[Response]]
Run = Callable[..., Awaitable[Any]]


class ApprovalFeed:
    """``feed`` narrowed to approval events (audit events whose action is ``approval.*``) and
    ``events.dropped``: an ``EventFeed`` itself."""

    def __init__(self, feed: EventFeed) -> None:
        self._feed = feed

    @asynccontextmanager
    async def subscribe(self) -> AsyncIterator[AsyncIterator[Mapping[str, Any]]]:
        async with self._feed.subscribe() as events:
            approvals = _approvals(events)
            try:
                yield approvals
            finally:
                await approvals.aclose()


async def _approvals(events: AsyncIterator[Mapping[str, Any]]) -> AsyncGenerator[Mapping[str, Any]]:
    async for event in events:
        action = event.get("action")
        if event.get("kind") == DROPPED or (isinstance(action, str) and action.startswith("approval.")):
            yield event


def approvals_page(store: Store) -> tuple[list[Approval], list[Approval], datetime]:
    """The pending requests, the last decided or used ones, and the moment they were read."""
    now = datetime.now(UTC)
    pending = list(store.approvals.list("pending", limit=PENDING_SHOWN, at=now))
    recent = [
        found for found in store.approvals.list(None, limit=PENDING_SHOWN, at=now) if found.state != "pending"
    ]
    return pending, recent[:DECIDED_SHOWN], now


def add_approval_routes(
    app: FastAPI, ui: Ui, current: Callable[..., Awaitable[UiSession]], act: Act, run: Run
) -> None:
    """The page, its event stream and its two actions, on the UI's ``app``."""
    store = ui.store

    @app.get("/approvals")
    async def approvals(request: Request, session: Annotated[UiSession, Depends(current)]) -> Response:
        pending, recent, now = await run(approvals_page, store)
        live = ui.events is not None
        return ui.render(
            request,
            "approvals.html",
            session,
            page="approvals",
            pending=pending,
            recent=recent,
            now=now,
            live=live,
        )

    @app.get("/approvals/events")
    async def approval_events(request: Request) -> Response:
        if ui.sessions.get(request.cookies.get(COOKIE)) is None:
            return PlainTextResponse("log in first", status_code=401)
        if ui.events is None:
            return PlainTextResponse("this service has no event feed", status_code=409)
        return EventStream(ApprovalFeed(ui.events), ui.heartbeat_s)

    def decide(approve: bool) -> Callable[..., Awaitable[Response]]:
        async def route(
            request: Request, approval_id: ApprovalId, session: Annotated[UiSession, Depends(current)]
        ) -> Response:
            def change(form: dict[str, str]) -> str:
                reason = form.get("reason", "")
                if approve:
                    found = store.approvals.approve(approval_id, session.actor, reason, actor=session.actor)
                else:
                    found = store.approvals.deny(approval_id, session.actor, reason, actor=session.actor)
                binding = found.binding
                return f"{approval_id} {found.state}: {binding.alias}/{binding.tool} for {binding.principal}"

            return await act(request, session, "/approvals", change)

        return route

    app.post("/approvals/{approval_id}/approve")(decide(True))
    app.post("/approvals/{approval_id}/deny")(decide(False))
