"""The approval step, between gates 6 and 7: a call that needs a person's approval runs only
with a single-use approval of that very call.

A call needs one when its tool's policy says ``approval = "each_call"`` (today's policy or the
session's release: the stricter wins, as for ``effect``), or when the ticket does not allow its
action but ``ask``s for it (gate 4 then lets it through to here). The approval binds the
session, the principal, the alias and remote tool, the tool's definition hash (its pin) and the
canonical hash of the arguments (``toolpool.store.ApprovalBinding``); the store decides in one
transaction (``store.approvals.claim``):

- approved, unexpired, unused: it is used now, and the call goes on to the limits and upstream;
- denied: ``denied`` with the approver's reason, for every retry of that binding;
- otherwise ``approval_pending`` with the request's id and expiry in ``meta`` (a retry before
  a decision gets the same request; after an expiry or a use, a new one).

Approvals live in the store, so an operator can decide from the CLI, the admin API or the web
UI, in any process. A pool without a store refuses such calls with ``denied``: a request that
nobody could see or decide would only leave the caller waiting.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import suppress
from datetime import datetime
from functools import partial
from typing import Literal

import anyio.to_thread

from toolpool import errors
from toolpool._hashing import canonical_hash
from toolpool.calls._envelope import Envelope, refusal
from toolpool.calls._events import EventOutlet
from toolpool.calls._recording import CallSession
from toolpool.errors import UsageError
from toolpool.redaction import Redactor
from toolpool.store import Approval, ApprovalBinding, Store
from toolpool.tickets import Permission
from toolpool.vetting import ExposedTool

__all__ = ["CallApprovals", "Why", "approval_reason"]

Why = Literal["tool_policy", "ticket_asks"]
# An approver's reason is local text from a person; the caller sees it, this long at most.
_REASON_SHOWN = 300


def approval_reason(tool: ExposedTool, permission: Permission, asks: bool) -> Why | None:
    """Why this call needs a person's approval, or None if it does not."""
    if asks:
        return "ticket_asks"
    if tool.policy.approval == "each_call" or permission.approval == "each_call":
        return "tool_policy"
    return None


class CallApprovals:
    """The approval step of one pool's pipeline; ``store`` None refuses what needs approval."""

    def __init__(
        self,
        store: Store | None,
        ttl_s: float,
        clock: Callable[[], datetime],
        redactor: Redactor,
        events: EventOutlet | None = None,
    ) -> None:
        self._store = store
        self._ttl_s = ttl_s
        self._clock = clock
        self._redactor = redactor
        self._events = events

    async def check(
        self,
        session: CallSession,
        principal: str | None,
        tool: ExposedTool,
        permission: Permission,
        arguments: Mapping[str, object],
        why: Why,
    ) -> tuple[Envelope | None, str | None]:
        """``(None, id)`` when the approval ``id`` of this very call by ``principal`` (None: the
        session's) was used now, and the call goes on; else ``(refusal, None)``:
        ``approval_pending`` (with ``approval_id`` and ``expires_at``) or ``denied``."""
        if self._store is None:
            return refusal(
                errors.DENIED,
                tool.name,
                f"{tool.name} runs only with a person's approval of each call, and this pool has "
                "no store to keep approval requests in",
            ), None
        binding = ApprovalBinding(
            session_id=session.id,
            principal=session.principal if principal is None else principal,
            alias=tool.alias,
            tool=tool.remote_name,
            action=permission.action,
            pin=tool.definition_hash,
            arguments_hash=canonical_hash(arguments),
        )
        at = self._clock()
        shown = self._redactor.redact_value(arguments) if self._redactor.active else arguments
        claim = partial(self._store.approvals.claim, binding, shown, why, self._ttl_s, at=at)
        try:
            approval = await anyio.to_thread.run_sync(claim)
        except UsageError:
            return refusal(
                errors.DENIED,
                tool.name,
                f"{tool.name} needs a person's approval, and approvals cannot be read now",
            ), None
        refused = self._outcome(tool, approval, at)
        return refused, (approval.id if refused is None else None)

    async def give_back(self, approval_id: str | None) -> None:
        """A call that used ``approval_id`` was refused before it reached its server (by a
        limit or the breaker): the approval is usable again (a refused call spends none)."""
        if approval_id is None or self._store is None:
            return
        # If the store fails here, the approval stays used and the caller asks again.
        with suppress(UsageError):
            await anyio.to_thread.run_sync(self._store.approvals.give_back, approval_id)

    def _outcome(self, tool: ExposedTool, approval: Approval, at: datetime) -> Envelope | None:
        meta = {"approval_id": approval.id, "expires_at": approval.expires_at.isoformat()}
        if approval.state == "used":
            self._notify("approval.used", tool, approval)
            return None
        if approval.state == "denied":
            reason = (approval.decided_reason or "")[:_REASON_SHOWN]
            return refusal(
                errors.DENIED,
                tool.name,
                f"an approver denied this call: {reason} (approval {approval.id}; a call with other "
                "arguments would need a new approval)",
                meta,
            )
        if approval.requested_at == at:
            self._notify("approval.requested", tool, approval)
        return refusal(
            errors.APPROVAL_PENDING,
            tool.name,
            f"this call of {tool.name} needs a person's approval: request {approval.id} is pending "
            f"until {approval.expires_at.isoformat(timespec='seconds')}. Wait for it (await_approval, "
            "where available) and then make the same call with the same arguments; it runs once.",
            meta,
        )

    def _notify(self, kind: str, tool: ExposedTool, approval: Approval) -> None:
        if self._events is not None:
            detail = {
                "approval_id": approval.id,
                "tool": tool.remote_name,
                "session": approval.binding.session_id,
            }
            self._events.notify(kind, tool.alias, detail)
