"""Approvals of single calls (countersigning): ``store.approvals``.

A call that needs a person's approval (its tool's ``approval = "each_call"``, or a ticket that
only ``ask``s for its action) is refused with ``approval_pending`` and a request is kept here,
bound to what the call was: the session, the principal, the alias and remote tool, the tool's
definition hash (its pin) and the canonical hash of its arguments. A person approves or denies
it; the one retried call with the same binding then ``claim``s it, once.

States, with the rules at the top (``expired`` is not stored: it is ``expires_at`` passing)::

    pending  --approve-->  approved  --claim (same binding, before expires_at)-->  used
    pending  --deny----->  denied        (final for its binding: every retry is refused)
    pending / approved  --expires_at passes-->  expired  (a retry asks again: a new request)

Every step is one write transaction with its audit event (``approval.requested``,
``approval.approved``, ``approval.denied``, ``approval.used``), so a request, a decision or a
use and its record commit together. Using an approval is one conditional ``UPDATE`` (``WHERE
state = 'approved' AND expires_at > now``): two processes retrying at once cannot both run.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, Final, Literal

from sqlalchemy import Connection, insert, or_, select, update

from toolpool.errors import UsageError
from toolpool.store._approval_values import (
    APPROVAL_STATES,
    Approval,
    ApprovalBinding,
    ApprovalState,
    approval_of,
)
from toolpool.store._codec import now, plain, storable
from toolpool.store._database import Database, Tx
from toolpool.store._tables import approvals

__all__ = ["ARGUMENTS_SHOWN", "Approvals"]


_PREFIX = "apr_"
# What an approver reads of the arguments: enough to judge the call, bounded for the page.
ARGUMENTS_SHOWN: Final = 4000
_WHO_MAX = 128
_REASON_MAX = 2000
_LIST_MAX = 1000


class Approvals:
    """Requests for a person's approval of single calls: ``store.approvals``."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def claim(
        self,
        binding: ApprovalBinding,
        arguments: object,
        why: str,
        ttl_s: float,
        *,
        at: datetime | None = None,
    ) -> Approval:
        """What the call with ``binding`` may do, decided in one transaction at ``at``:

        - an approved, unexpired, unused approval of this binding is used (state ``used``):
          the call runs;
        - a denied one is returned (state ``denied``): the call is refused, for good;
        - else the pending request of this binding, or a new one that expires ``ttl_s`` later
          (state ``pending``): retries before a decision do not pile up requests.

        Raises:
            UsageError: the store is closed or failed.
        """
        with self._db.write() as tx:
            moment = at or tx.at
            used = _use(tx, binding, moment)
            if used is not None:
                return used
            found = _latest(tx.connection, binding, moment)
            if found is not None:
                return found
            return _request(tx, binding, arguments, why, moment, ttl_s)

    def request(
        self,
        binding: ApprovalBinding,
        arguments: object,
        why: str,
        ttl_s: float,
        *,
        at: datetime | None = None,
    ) -> Approval:
        """The denial of ``binding`` (final) or its pending, unexpired request; else a new one.

        Raises:
            UsageError: the store is closed or failed.
        """
        with self._db.write() as tx:
            moment = at or tx.at
            found = _latest(tx.connection, binding, moment)
            if found is not None:
                return found
            return _request(tx, binding, arguments, why, moment, ttl_s)

    def use(self, binding: ApprovalBinding, *, at: datetime | None = None) -> Approval | None:
        """Use the approved, unexpired, unused approval of ``binding``, if there is one (once)."""
        with self._db.write() as tx:
            return _use(tx, binding, at or tx.at)

    def give_back(self, approval_id: str) -> bool:
        """Undo a use whose call then reached no server (a limit or the circuit breaker refused
        it after the approval was used): a refused call spends no approval. The approval is
        usable again until it expires; audited as ``approval.given_back``. False when it was
        not used."""
        with self._db.write() as tx:
            changed = tx.connection.execute(
                update(approvals)
                .where(approvals.c.id == approval_id, approvals.c.state == "used")
                .values(state="approved", used_at=None)
            )
            if changed.rowcount != 1:
                return False
            tx.append("pool", "approval.given_back", approval_id, {})
            return True

    def approve(self, approval_id: str, by: str, reason: str, *, actor: str | None = None) -> Approval:
        """Approve a pending, unexpired request, as ``by`` because of ``reason``; audited as
        ``actor`` (the CLI's user, the admin API's or UI's actor), or as ``by``.

        Raises:
            UsageError: no such request, it was decided already or expired, or ``by`` or
                ``reason`` is empty or too long.
        """
        return self._decide(approval_id, "approved", by, reason, actor)

    def deny(self, approval_id: str, by: str, reason: str, *, actor: str | None = None) -> Approval:
        """Deny a pending request, as ``by`` because of ``reason`` (audited as ``approve``
        is); the denial is final for the call it binds.

        Raises:
            UsageError: as ``approve``.
        """
        return self._decide(approval_id, "denied", by, reason, actor)

    def get(self, approval_id: str) -> Approval | None:
        """The request ``approval_id``, or None if there is none."""
        if not approval_id.startswith(_PREFIX) or len(approval_id) > 64:
            return None
        with self._db.read() as connection:
            row = connection.execute(select(approvals).where(approvals.c.id == approval_id)).one_or_none()
        return None if row is None else approval_of(row)

    def list(
        self, state: ApprovalState | None = "pending", *, limit: int = 100, at: datetime | None = None
    ) -> Sequence[Approval]:
        """Requests in ``state`` (as ``Approval.state_at(at)`` says; None: all), newest first.

        Raises:
            UsageError: an unknown state, or a limit outside 1..1000.
        """
        if state is not None and state not in APPROVAL_STATES:
            raise UsageError(f"not an approval state: {state!r} (one of {', '.join(APPROVAL_STATES)})")
        if not 1 <= limit <= _LIST_MAX:
            raise UsageError(f"the limit must be between 1 and {_LIST_MAX}")
        moment = at or now()
        query = select(approvals).order_by(approvals.c.requested_at.desc(), approvals.c.id).limit(limit)
        live = approvals.c.expires_at > moment
        if state in ("pending", "approved"):
            query = query.where(approvals.c.state == state, live)
        elif state == "expired":
            query = query.where(approvals.c.state.in_(("pending", "approved")), ~live)
        elif state is not None:
            query = query.where(approvals.c.state == state)
        with self._db.read() as connection:
            return tuple(approval_of(row) for row in connection.execute(query))

    def _decide(
        self, approval_id: str, state: Literal["approved", "denied"], by: str, reason: str, actor: str | None
    ) -> Approval:
        by, reason = by.strip(), reason.strip()
        if not by or len(by) > _WHO_MAX:
            raise UsageError(f"an approver's name (--by) is needed, at most {_WHO_MAX} characters")
        if not reason or len(reason) > _REASON_MAX:
            raise UsageError(f"a reason (--reason) is needed, at most {_REASON_MAX} characters")
        with self._db.write() as tx:
            found = _row(tx.connection, approval_id)
            if found is None:
                raise UsageError(f"there is no approval request {approval_id[:80]!r}")
            current = found.state_at(tx.at)
            if current != "pending":
                raise UsageError(f"approval request {approval_id} is {current}, not pending")
            values = {"state": state, "decided_by": by, "decided_reason": reason, "decided_at": tx.at}
            tx.connection.execute(update(approvals).where(approvals.c.id == approval_id).values(**values))
            detail = {**_detail(found.binding), "by": by, "reason": reason}
            tx.append(actor or by, f"approval.{state}", approval_id, detail)
            decided = _row(tx.connection, approval_id)
        assert decided is not None
        return decided


def _use(tx: Tx, binding: ApprovalBinding, at: datetime) -> Approval | None:
    """Turn the approved, unexpired approval of ``binding`` into ``used``, atomically."""
    candidate = tx.connection.scalar(
        _bound(select(approvals.c.id), binding)
        .where(approvals.c.state == "approved", approvals.c.expires_at > at)
        .order_by(approvals.c.requested_at)
        .limit(1)
    )
    if candidate is None:
        return None
    changed = tx.connection.execute(
        update(approvals)
        .where(approvals.c.id == candidate, approvals.c.state == "approved", approvals.c.expires_at > at)
        .values(state="used", used_at=at)
    )
    if changed.rowcount != 1:
        return None
    tx.append(binding.principal, "approval.used", candidate, _detail(binding))
    return _row(tx.connection, candidate)


def _latest(connection: Connection, binding: ApprovalBinding, at: datetime) -> Approval | None:
    """A denial of ``binding`` (final), else its pending, unexpired request, else None."""
    query = _bound(select(approvals), binding).where(
        or_(approvals.c.state == "denied", (approvals.c.state == "pending") & (approvals.c.expires_at > at))
    )
    rows = [approval_of(row) for row in connection.execute(query.order_by(approvals.c.requested_at.desc()))]
    for wanted in ("denied", "pending"):
        for approval in rows:
            if approval.state == wanted:
                return approval
    return None


def _request(
    tx: Tx, binding: ApprovalBinding, arguments: object, why: str, at: datetime, ttl_s: float
) -> Approval:
    approval_id = _PREFIX + secrets.token_urlsafe(16)
    text = json.dumps(plain(arguments), sort_keys=True, ensure_ascii=False, separators=(", ", ": "))
    text = tx.redactor().redact(text)
    if len(text) > ARGUMENTS_SHOWN:
        text = text[: ARGUMENTS_SHOWN - 1] + "\u2026"
    expires = at + timedelta(seconds=ttl_s)
    tx.connection.execute(
        insert(approvals).values(
            id=approval_id,
            requested_at=at,
            expires_at=expires,
            session_id=storable(binding.session_id),
            principal=storable(binding.principal),
            alias=binding.alias,
            tool=binding.tool,
            action=storable(binding.action),
            pin=binding.pin,
            arguments_hash=binding.arguments_hash,
            arguments=storable(text),
            why=storable(why),
            state="pending",
        )
    )
    detail = {**_detail(binding), "why": why, "expires_at": expires.isoformat()}
    tx.append(binding.principal, "approval.requested", approval_id, detail)
    found = _row(tx.connection, approval_id)
    assert found is not None
    return found


def _bound(query: Any, binding: ApprovalBinding) -> Any:
    c = approvals.c
    return query.where(
        c.session_id == storable(binding.session_id),
        c.principal == storable(binding.principal),
        c.alias == binding.alias,
        c.tool == binding.tool,
        c.pin == binding.pin,
        c.arguments_hash == binding.arguments_hash,
    )


def _detail(binding: ApprovalBinding) -> dict[str, object]:
    return {
        "session": binding.session_id,
        "principal": binding.principal,
        "alias": binding.alias,
        "tool": binding.tool,
        "action": binding.action,
        "arguments_hash": binding.arguments_hash,
    }


def _row(connection: Connection, approval_id: str) -> Approval | None:
    row = connection.execute(select(approvals).where(approvals.c.id == approval_id)).one_or_none()
    return None if row is None else approval_of(row)
