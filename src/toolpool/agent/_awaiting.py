"""``await_approval``: the Lead's builtin for a call that waits for a person's approval.

A call that needs approval comes back to the Lead as ``approval_pending`` with the request's
id (``apr_...``). The Lead may move on, or call ``await_approval`` with that id: it waits, at
most ``timeout_s`` (``MAX_WAIT_S`` at most), reading the store every ``POLL_S``, and says what
became of the request — approved (retry the very same call: it runs once), denied (with the
approver's reason), expired or used (the same call asks again), or still pending. Only a
request of the Lead's own session is answered; another session's is as unknown as a made-up id.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial

import anyio
import anyio.to_thread

from toolpool.agent._loop import BuiltinSchema, Outcome
from toolpool.calls import Session
from toolpool.config import Config
from toolpool.errors import APPROVAL_PENDING, DENIED, OK, UsageError
from toolpool.store import Approval, Store
from toolpool.tickets import Ticket

__all__ = ["AWAIT_APPROVAL", "AWAIT_SCHEMA", "MAX_WAIT_S", "POLL_S", "ApprovalWaiter", "offers_approvals"]

AWAIT_APPROVAL = "await_approval"
# A model's turn should not hang for long: five minutes is the most one call may wait.
MAX_WAIT_S = 300.0
# How often the store is read while waiting: a person's decision takes seconds at best, and a
# read is a millisecond, so this costs nothing and answers within a second of the decision.
POLL_S = 0.5

AWAIT_SCHEMA = BuiltinSchema(
    {
        "type": "object",
        "properties": {
            "approval_id": {"type": "string", "pattern": "^apr_[A-Za-z0-9_-]{1,60}$"},
            "timeout_s": {"type": "number", "minimum": 0, "maximum": MAX_WAIT_S},
        },
        "required": ["approval_id"],
        "additionalProperties": False,
    }
)
_DEFAULT_WAIT_S = 60.0
_REASON_SHOWN = 300


def offers_approvals(config: Config, ticket: Ticket | None, store: Store | None) -> bool:
    """Whether a Lead could ever meet ``approval_pending``: a store keeps requests, and a tool
    needs approval for each call or the ticket asks for actions."""
    if store is None:
        return False
    if ticket is not None and ticket.ask:
        return True
    return any(
        policy.approval == "each_call" for spec in config.servers.values() for policy in spec.tools.values()
    )


class ApprovalWaiter:
    """Waits on the approval requests of one session."""

    def __init__(self, store: Store, session: Session, clock: Callable[[], datetime] | None = None) -> None:
        self._store = store
        self._session = session
        self._clock = clock or (lambda: datetime.now(UTC))

    async def wait(self, approval_id: str, timeout_s: float = _DEFAULT_WAIT_S) -> Outcome:
        """What became of ``approval_id`` within ``timeout_s`` (bounded by ``MAX_WAIT_S``)."""
        found = await self._read(approval_id)
        if found is None:
            return Outcome(f"there is no approval request {approval_id} of this session", "invalid_arguments")
        with anyio.move_on_after(min(max(timeout_s, 0.0), MAX_WAIT_S)):
            while found.state_at(self._clock()) == "pending":
                await anyio.sleep(POLL_S)
                found = await self._read(approval_id) or found
        return _outcome(found, found.state_at(self._clock()))

    async def _read(self, approval_id: str) -> Approval | None:
        try:
            found = await anyio.to_thread.run_sync(partial(self._store.approvals.get, approval_id))
        except UsageError:
            return None
        if found is None or found.binding.session_id != self._session.id:
            return None
        return found


def _outcome(approval: Approval, state: str) -> Outcome:
    name = approval.id
    if state == "approved":
        return Outcome(
            f"{name} was approved by {approval.decided_by}: make the very same call again, with the "
            "same arguments, now; it runs once",
            OK,
        )
    if state == "denied":
        reason = (approval.decided_reason or "")[:_REASON_SHOWN]
        return Outcome(
            f"{name} was denied by {approval.decided_by}: {reason}. Do not retry that call.", DENIED
        )
    if state == "used":
        return Outcome(f"{name} was used already: the same call again needs a new approval", OK)
    if state == "expired":
        return Outcome(f"{name} expired before it was used: the same call again asks for a new approval", OK)
    return Outcome(f"{name} is still pending; wait again or move on", APPROVAL_PENDING)
