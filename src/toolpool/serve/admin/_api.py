"""The admin REST API of the toolpool service: servers, tools, releases, audit, calls, usage,
approvals of single calls, events.

``admin_app(store, admin_token=...)`` builds a FastAPI app whose routes all live under
``/admin``: mount it at the root of the service. Decisions, in one place:

- **Auth.** Every route but ``GET /admin/health`` needs ``Authorization: Bearer <token>``,
  compared in constant time; missing or wrong → 401 (a wrong one is counted for the client's
  address by the service's ``AuthGuard``). The OpenAPI spec (``/admin/openapi.json``) needs the token too:
  nothing about the admin surface is readable without it. Interactive docs are off (they
  would load scripts from a CDN).
- **Headers.** Every answer carries ``API_HEADERS`` (a CSP that allows nothing, no framing,
  no sniffing, no referrer) and ``cache-control: no-store`` unless it set its own.
- **Actor.** Changes are recorded as ``actor_prefix`` (the token names nobody); an
  ``X-Toolpool-Actor: ana`` header (``[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}``) refines it to
  ``admin:ana``. It is a label the token holder chooses, not an authentication.
- **Errors** are ``{"error": "<one line>"}``; toolpool's exceptions are mapped in
  ``status_of`` only: unknown tool, alias or release → 404, a policy refusal (R9, an
  admission rule) → 409, an upstream failure during import → 502, a store that cannot answer
  → 503, any other usage error → 409; invalid input → 422.
- **No blocking.** Store methods are synchronous: the routes that call them are plain ``def``
  routes, which FastAPI runs in its thread pool.
- **Secrets** are never read: the store redacts them from audit details before they are stored.
"""

import hmac
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, FastAPI, Header, HTTPException, Path, Query, Request, Security
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from toolpool.errors import PolicyRefusal, ToolpoolError, UnknownAlias, UpstreamError, UsageError
from toolpool.importing import import_alias
from toolpool.pool import Pool
from toolpool.serve._cursor import decode_cursor, encode_cursor
from toolpool.serve._events import HEARTBEAT_S, EventFeed, EventStream
from toolpool.serve._guard import AuthGuard, address_of
from toolpool.serve._headers import API_HEADERS, SecurityHeaders
from toolpool.serve._patterns import ACTOR_PATTERN, ALIAS_MAX, ALIAS_PATH, TOOL_MAX, TOOL_PATH
from toolpool.serve.admin import _models as m
from toolpool.serve.admin._approvals import add_approval_routes
from toolpool.serve.admin._usage import UsageQuery, UsageTotalOut, usage_total_out
from toolpool.store import Store, ToolState

__all__ = ["admin_app", "status_of"]

_NOT_FOUND = ("unknown tool ", "there is no release ", "there is no approval request ")

Alias = Annotated[str, Path(pattern=ALIAS_PATH, max_length=ALIAS_MAX, description="a configured alias")]
ToolName = Annotated[str, Path(pattern=TOOL_PATH, max_length=TOOL_MAX, description="the remote name")]


def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {code: {"model": m.ErrorBody} for code in codes}


def _json_errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """As ``_errors``, for a route whose own media type is not JSON."""
    schema = {"$ref": "#/components/schemas/ErrorBody"}
    return {code: {"content": {"application/json": {"schema": schema}}} for code in codes}


def status_of(exc: ToolpoolError) -> int:
    """The HTTP status for one of toolpool's exceptions (see the module docstring)."""
    if isinstance(exc, UnknownAlias):
        return 404
    if isinstance(exc, PolicyRefusal):
        return 409
    if isinstance(exc, UpstreamError):
        return 502
    text = str(exc)
    if text.startswith(_NOT_FOUND):
        return 404
    if text.startswith("the store"):
        return 503
    return 409


def admin_app(
    store: Store,
    *,
    admin_token: str,
    pool: Pool | None = None,
    events: EventFeed | None = None,
    actor_prefix: str = "admin",
    heartbeat_s: float = HEARTBEAT_S,
    guard: AuthGuard | None = None,
) -> FastAPI:
    """The admin API over ``store``.

    Args:
        store: the open management store; the app does not close it.
        admin_token: the bearer token every route but ``/admin/health`` requires.
        pool: an entered pool on the same store, for ``POST /admin/servers/{alias}/import``
            (without it, that route answers 409).
        events: the feed behind ``GET /admin/events`` (without it, 409).
        actor_prefix: who changes are recorded as in the audit log.
        heartbeat_s: seconds of quiet after which the event stream sends a comment.
        guard: counts each missing or wrong token for the client's address.

    Raises:
        UsageError: an empty token or actor prefix.
    """
    if not admin_token or not actor_prefix:
        raise UsageError("the admin API needs a non-empty admin token and actor prefix")
    app = FastAPI(
        title="toolpool admin",
        version="1",
        openapi_url=None,
        docs_url=None,
        redoc_url=None,
    )
    app.add_middleware(SecurityHeaders, headers=API_HEADERS)
    _install_error_handlers(app)
    token = admin_token.encode()
    bearer = HTTPBearer(auto_error=False, description="the admin token")

    async def authorized(
        request: Request,
        credentials: Annotated[HTTPAuthorizationCredentials | None, Security(bearer)],
    ) -> None:
        if credentials is None or not hmac.compare_digest(credentials.credentials.encode(), token):
            if guard is not None and "authorization" in request.headers:  # none guesses nothing
                guard.failed(address_of(request.scope), "admin")
            raise HTTPException(401, "a valid admin token is required", {"WWW-Authenticate": "Bearer"})

    async def actor(
        x_toolpool_actor: Annotated[
            str | None, Header(pattern=ACTOR_PATTERN, description="who does it, for the audit log")
        ] = None,
    ) -> str:
        return actor_prefix if x_toolpool_actor is None else f"{actor_prefix}:{x_toolpool_actor}"

    Actor = Annotated[str, Depends(actor)]
    api = APIRouter(prefix="/admin", dependencies=[Depends(authorized)], responses=_errors(401, 422, 503))

    @app.get("/admin/health")
    async def health() -> m.Health:
        """Whether the service answers; needs no token and reads nothing."""
        return m.Health()

    @api.get("/openapi.json", include_in_schema=False)
    async def openapi() -> JSONResponse:
        return JSONResponse(app.openapi())

    # -- servers ---------------------------------------------------------------------------

    def server(alias: str) -> m.ServerOut:
        return _servers(store, pool, alias)[0]

    @api.get("/servers")
    def list_servers() -> list[m.ServerOut]:
        """Every alias the store or the pool's configuration knows, with its tool counts."""
        return _servers(store, pool)

    @api.post("/servers/{alias}/enable")
    def enable_server(alias: Alias, who: Actor) -> m.ServerChange:
        store.tools.set_server_enabled(alias, True, who)
        return m.ServerChange(server=server(alias), release=store.releases.version)

    @api.post("/servers/{alias}/disable")
    def disable_server(alias: Alias, who: Actor) -> m.ServerChange:
        """Gate 3 refuses every tool of the server from the next call on, in every process."""
        store.tools.set_server_enabled(alias, False, who)
        return m.ServerChange(server=server(alias), release=store.releases.version)

    @api.post("/servers/{alias}/import", responses=_errors(404, 409, 502))
    async def import_server(alias: Alias, who: Actor) -> m.ImportOut:
        """Connect the alias once, vet and screen its tools, store them disabled (R9)."""
        if pool is None:
            raise HTTPException(409, "this service has no pool: imports are not available here")
        return m.import_out(await import_alias(pool, store, alias, who))

    # -- tools -----------------------------------------------------------------------------

    def state(alias: str, name: str) -> ToolState:
        for candidate in store.tools.tool_states(alias):
            if candidate.name == name:
                return candidate
        raise UsageError(f"unknown tool {alias}/{name}: import it, or name it in the configuration")

    def changed(alias: str, name: str) -> m.ToolChange:
        return m.ToolChange(tool=m.tool_out(state(alias, name)), release=store.releases.version)

    @api.get("/tools", responses=_errors(400))
    def list_tools(query: Annotated[m.ToolsQuery, Query()], response: Response) -> list[m.ToolOut]:
        """The tools the store knows (of ``alias``), by alias and name, ``limit`` per page.

        A full page names the next one in ``X-Next-Cursor`` (pass it as ``cursor``) and in
        a ``Link: <...>; rel="next"`` header; the last page has neither. A cursor that is not
        one of this listing's is a 400."""
        after = None
        if query.cursor is not None:
            after = decode_cursor(query.cursor)
            if after is None:
                raise HTTPException(400, "cursor: not a cursor of this listing (pass X-Next-Cursor as it is)")
        found = store.tools.tool_states(query.alias, after=after, limit=query.limit)
        if len(found) == query.limit:
            _link_next(response, "/admin/tools", query, encode_cursor(found[-1].alias, found[-1].name))
        return [m.tool_out(state) for state in found]

    @api.get("/tools/{alias}/{name}", responses=_errors(404))
    def get_tool(alias: Alias, name: ToolName) -> m.ToolDetail:
        """One tool with the definition its latest import stored, and its pin (R7)."""
        found = state(alias, name)
        return m.tool_detail(
            found, store.tools.published_definition(alias, name), store.pins.pin_of(alias, name)
        )

    @api.post("/tools/{alias}/{name}/enable", responses=_errors(404, 409))
    def enable_tool(alias: Alias, name: ToolName, who: Actor) -> m.ToolChange:
        """Enable a read tool, or a write tool that has an approval; otherwise 409 (R9)."""
        store.tools.enable(alias, name, who)
        return changed(alias, name)

    @api.post("/tools/{alias}/{name}/disable", responses=_errors(404))
    def disable_tool(alias: Alias, name: ToolName, who: Actor) -> m.ToolChange:
        store.tools.disable(alias, name, who)
        return changed(alias, name)

    @api.post("/tools/{alias}/{name}/approve-write", responses=_errors(400, 404, 409))
    def approve_write(alias: Alias, name: ToolName, body: m.WriteApprovalIn, who: Actor) -> m.ToolChange:
        """Record who approved the tool to write, and why, and enable it (R9)."""
        store.tools.approve_write(alias, name, body.by, body.reason, who)
        return changed(alias, name)

    # -- releases, audit, calls, usage -----------------------------------------------------

    @api.get("/releases/current")
    def current_release() -> m.ReleaseOut:
        return m.release_out(store.releases.current_release())

    @api.get("/releases/{number}", responses=_errors(404))
    def get_release(number: Annotated[int, Path(ge=1, le=m.ID_MAX)]) -> m.ReleaseOut:
        return m.release_out(store.releases.release(number))

    @api.get("/audit")
    def audit(page: Annotated[m.PageQuery, Query()]) -> m.AuditPage:
        """Audit events in id order; secret values were redacted before they were stored."""
        events = [m.audit_event_out(event) for event in store.audit.audit_events(page.limit, page.after_id)]
        return m.AuditPage(events=events, next_after_id=_next(events, page))

    @api.get("/audit/verify")
    def verify_audit() -> m.AuditCheckOut:
        """Walk the hash chain; name the first edited, inserted or deleted event."""
        return m.audit_check_out(store.audit.verify_audit())

    @api.get("/calls/stats")
    def call_stats(query: Annotated[m.StatsQuery, Query()]) -> list[m.CallStatsOut]:
        return [m.call_stats_out(stats) for stats in store.calls.call_stats(_utc(query.since))]

    @api.get("/calls")
    def calls(page: Annotated[m.PageQuery, Query()]) -> m.CallPage:
        """Call records (gate 10) in id order."""
        found = [m.call_record_out(*row) for row in store.calls.call_records(page.after_id, page.limit)]
        return m.CallPage(calls=found, next_after_id=_next(found, page))

    @api.get("/usage")
    def usage(query: Annotated[UsageQuery, Query()]) -> list[UsageTotalOut]:
        """The usage ledger (billing) summed per principal, session, alias, tool or UTC day."""
        return [usage_total_out(total) for total in store.usage.totals(query.by, query.since)]

    add_approval_routes(api, store, actor)

    # -- events ----------------------------------------------------------------------------

    @api.get(
        "/events",
        status_code=200,
        response_class=EventStream,
        responses={
            200: {"content": {"text/event-stream": {"schema": {"type": "string"}}}},
            **_json_errors(401, 409, 422, 503),
        },
    )
    async def event_stream() -> Response:
        """Server-sent events: ``event: <kind>`` and the event as one line of JSON; a comment
        after each quiet ``heartbeat_s``. A slow reader loses the oldest events and is told
        (``events.dropped``)."""
        if events is None:
            raise HTTPException(409, "this service has no event feed")
        return EventStream(events, heartbeat_s)

    app.include_router(api)
    return app


def _servers(store: Store, pool: Pool | None, only: str | None = None) -> list[m.ServerOut]:
    counts = store.tools.tool_counts()  # one grouped query: 20,000 aliases x 100,000 tools
    disabled = set(store.releases.current_release().content["disabled_servers"])
    configured = None if pool is None else set(pool.config.servers)
    aliases = set(counts) | disabled | (configured or set())
    if only is not None:
        aliases = {only}
    return [
        m.ServerOut(
            alias=alias,
            enabled=alias not in disabled,
            tools=counts.get(alias, (0, 0))[0],
            enabled_tools=counts.get(alias, (0, 0))[1],
            configured=None if configured is None else alias in configured,
        )
        for alias in sorted(aliases)
    ]


def _link_next(response: Response, path: str, query: m.ToolsQuery, cursor: str) -> None:
    """Name the next page of a listing: ``X-Next-Cursor``, and ``Link`` with its URL."""
    params = {"cursor": cursor, "limit": str(query.limit)}
    if query.alias is not None:
        params["alias"] = query.alias
    response.headers["X-Next-Cursor"] = cursor
    response.headers["Link"] = f'<{path}?{urlencode(params)}>; rel="next"'


def _next(rows: Sequence[m.AuditEventOut] | Sequence[m.CallRecordOut], page: m.PageQuery) -> int | None:
    """The ``after_id`` of the next page; None when this page was not full (the end)."""
    return rows[-1].id if len(rows) == page.limit else None


def _utc(moment: datetime | None) -> datetime | None:
    if moment is None:
        return None
    try:
        return moment.astimezone(UTC)
    except OverflowError:
        raise HTTPException(422, "since: a moment out of range") from None


def _install_error_handlers(app: FastAPI) -> None:
    async def toolpool_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ToolpoolError)
        return _error(status_of(exc), str(exc))

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        return _error(exc.status_code, str(exc.detail), exc.headers)

    async def invalid(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        problems = (
            "/".join(str(part) for part in error["loc"]) + ": " + error["msg"] for error in exc.errors()
        )
        return _error(422, "invalid request: " + "; ".join(problems))

    async def internal(request: Request, exc: Exception) -> JSONResponse:
        # An unhandled error's answer bypasses the middleware: its headers are set here.
        return _error(500, "internal error; the service log has the details", API_HEADERS)

    app.add_exception_handler(ToolpoolError, toolpool_error)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(Exception, internal)


def _error(status: int, text: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    line = " ".join(text.split())[:1000]
    return JSONResponse({"error": line}, status_code=status, headers=headers)
