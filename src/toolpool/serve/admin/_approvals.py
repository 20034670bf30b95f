"""The admin API's approvals of single calls: ``GET /admin/approvals`` (pending by default,
``?state=``), ``GET /admin/approvals/{id}``, and ``POST /admin/approvals/{id}/approve`` or
``/deny`` with ``{"by", "reason"}``. A decision is audited as the API's actor, with ``by``
and ``reason`` in its detail; deciding a request that is not pending answers 409, an unknown
id 404."""

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Path, Query
from pydantic import BaseModel, ConfigDict, Field

from toolpool.serve.admin._models import PAGE_MAX, ErrorBody, WriteApprovalIn
from toolpool.store import Approval, ApprovalState, Store

__all__ = ["APPROVAL_ID_PATH", "ApprovalDecisionIn", "ApprovalOut", "ApprovalsQuery", "add_approval_routes"]

APPROVAL_ID_PATH = r"^apr_[A-Za-z0-9_-]{1,60}$"

ApprovalId = Annotated[str, Path(pattern=APPROVAL_ID_PATH, max_length=64, description="the request's id")]


class ApprovalsQuery(BaseModel):
    """Which requests to list; an unknown parameter (a typo) is an error."""

    model_config = ConfigDict(extra="forbid")

    state: ApprovalState | None = Field("pending", description="only requests in this state")
    all: bool = Field(False, description="every request, whatever its state")
    limit: int = Field(100, ge=1, le=PAGE_MAX, description="at most this many, newest first")


class ApprovalDecisionIn(WriteApprovalIn):
    """Who approves or denies a call, and why; a denial's reason is shown to the caller."""


class ApprovalOut(BaseModel):
    """One request for a person's approval of a call. ``arguments`` is the call's arguments as
    JSON text, secrets redacted, clipped; the approval binds their hash (``arguments_hash``),
    the tool's ``pin``, the ``principal`` and the ``session``."""

    model_config = ConfigDict(frozen=True)

    id: str
    state: ApprovalState
    session: str
    principal: str
    alias: str
    tool: str
    action: str
    pin: str
    arguments_hash: str
    arguments: str
    why: str = Field(description="tool_policy (approval = each_call) or ticket_asks")
    requested_at: datetime
    expires_at: datetime
    decided_by: str | None
    decided_reason: str | None
    decided_at: datetime | None
    used_at: datetime | None


def approval_out(approval: Approval) -> ApprovalOut:
    return ApprovalOut.model_validate(approval.to_json(datetime.now(UTC)))


def add_approval_routes(api: APIRouter, store: Store, actor: Callable[..., Awaitable[str]]) -> None:
    """The routes above, on the admin router ``api`` (its auth applies); ``actor`` is the
    dependency that says who the API's caller is."""
    missing: dict[int | str, dict[str, Any]] = {404: {"model": ErrorBody}}
    # A body that is not JSON at all is a 400 (FastAPI), as for approve-write.
    either: dict[int | str, dict[str, Any]] = {code: {"model": ErrorBody} for code in (400, 404, 409)}

    @api.get("/approvals")
    def list_approvals(query: Annotated[ApprovalsQuery, Query()]) -> list[ApprovalOut]:
        """Requests for a person's approval of a call, newest first (pending by default)."""
        state = None if query.all else query.state
        return [approval_out(found) for found in store.approvals.list(state, limit=query.limit)]

    @api.get("/approvals/{approval_id}", responses=missing)
    def get_approval(approval_id: ApprovalId) -> ApprovalOut:
        found = store.approvals.get(approval_id)
        if found is None:
            raise HTTPException(404, f"there is no approval request {approval_id!r}")
        return approval_out(found)

    @api.post("/approvals/{approval_id}/approve", responses=either)
    def approve(
        approval_id: ApprovalId, body: ApprovalDecisionIn, who: Annotated[str, Depends(actor)]
    ) -> ApprovalOut:
        """Approve a pending request: the same call, retried in its session, runs once."""
        return approval_out(store.approvals.approve(approval_id, body.by, body.reason, actor=who))

    @api.post("/approvals/{approval_id}/deny", responses=either)
    def deny(
        approval_id: ApprovalId, body: ApprovalDecisionIn, who: Annotated[str, Depends(actor)]
    ) -> ApprovalOut:
        """Deny a pending request: that call stays refused, with this reason."""
        return approval_out(store.approvals.deny(approval_id, body.by, body.reason, actor=who))
