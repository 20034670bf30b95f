"""The values of approvals of single calls: what an approval binds, and a request as the
store keeps it (``toolpool.store._approvals`` keeps them)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Literal

from sqlalchemy import Row

__all__ = ["APPROVAL_STATES", "Approval", "ApprovalBinding", "ApprovalState", "approval_of"]

ApprovalState = Literal["pending", "approved", "denied", "used", "expired"]
APPROVAL_STATES: Final[tuple[ApprovalState, ...]] = ("pending", "approved", "denied", "used", "expired")


@dataclass(frozen=True, slots=True)
class ApprovalBinding:
    """What an approval is good for: this very call (arguments' hash, tool pin) by this
    principal in this session."""

    session_id: str
    principal: str
    alias: str
    tool: str
    action: str
    pin: str
    arguments_hash: str


@dataclass(frozen=True, slots=True)
class Approval:
    """One request for a person's approval, as the store keeps it. ``state`` is the stored
    state; ``state_at(now)`` also knows ``expired``."""

    id: str
    binding: ApprovalBinding
    arguments: str
    why: str
    state: Literal["pending", "approved", "denied", "used"]
    requested_at: datetime
    expires_at: datetime
    decided_by: str | None = None
    decided_reason: str | None = None
    decided_at: datetime | None = None
    used_at: datetime | None = None

    def state_at(self, now: datetime) -> ApprovalState:
        """``expired`` for a pending or approved request past ``expires_at``; else ``state``."""
        if self.state in ("pending", "approved") and now >= self.expires_at:
            return "expired"
        return self.state

    def to_json(self, now: datetime) -> dict[str, Any]:
        """As the CLI's ``--json`` and the admin API show it (``state`` as of ``now``)."""
        moment: dict[str, datetime | None] = {
            "requested_at": self.requested_at,
            "expires_at": self.expires_at,
        }
        moment |= {"decided_at": self.decided_at, "used_at": self.used_at}
        return {
            "id": self.id,
            "state": self.state_at(now),
            "session": self.binding.session_id,
            "principal": self.binding.principal,
            "alias": self.binding.alias,
            "tool": self.binding.tool,
            "action": self.binding.action,
            "pin": self.binding.pin,
            "arguments_hash": self.binding.arguments_hash,
            "arguments": self.arguments,
            "why": self.why,
            "decided_by": self.decided_by,
            "decided_reason": self.decided_reason,
            **{key: None if value is None else value.isoformat() for key, value in moment.items()},
        }


def approval_of(row: Row[Any]) -> Approval:
    """A row of the ``approvals`` table as its value."""
    binding = ApprovalBinding(
        session_id=row.session_id,
        principal=row.principal,
        alias=row.alias,
        tool=row.tool,
        action=row.action,
        pin=row.pin,
        arguments_hash=row.arguments_hash,
    )
    return Approval(
        id=row.id,
        binding=binding,
        arguments=row.arguments,
        why=row.why,
        state=row.state,
        requested_at=row.requested_at,
        expires_at=row.expires_at,
        decided_by=row.decided_by,
        decided_reason=row.decided_reason,
        decided_at=row.decided_at,
        used_at=row.used_at,
    )
