"""Tickets: locally issued capabilities, and the pure function that checks them (gate 4, R10).

A ticket names who holds it, which actions it allows (globs such as ``"demo.*"``), which it
lets the holder *ask* a person for (one approval per call), on which resources (globs over the
resource a tool's policy picks from the arguments), from when and until when. A ticket is
good only in a session of its own principal. Nothing here does I/O or reads a clock: the
caller passes ``now``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from fnmatch import translate
from functools import lru_cache
from typing import Literal

from toolpool.errors import APPROVAL_PENDING, DENIED, OK, TICKET_EXPIRED

__all__ = ["ANY_PRINCIPAL", "Decision", "Permission", "Ticket", "authorize"]

ANY_PRINCIPAL = "*"
"""The principal of a ticket that is good in any session: ``Ticket.allow`` without a principal,
for a host that makes tickets for its own use. A ticket with any other principal is good only
in that principal's sessions."""


@dataclass(frozen=True, slots=True)
class Permission:
    """What a ticket is checked against for one tool: its local ``action``, its ``effect``
    (gate 6 guards ``write``) and the ``resource`` template over its arguments (or None).
    It comes from local policy, or for a session from its release (R15)."""

    action: str
    effect: Literal["read", "write"]
    resource: str | None = None


@dataclass(frozen=True, slots=True)
class Ticket:
    """A capability: ``principal`` may run ``actions`` on ``resources`` from ``not_before``
    until ``expires_at``, and may ask for ``ask`` (action globs it lacks): such a call runs
    only with a person's approval of that very call. A ticket whose principal is
    ``ANY_PRINCIPAL`` (``"*"``) is good in any session, any other only in its principal's.

    ``allow_tainted`` lets text from this session's untrusted results flow into the arguments
    of write tools (gate 6); leave it off unless a person decided so for this ticket.
    """

    principal: str
    actions: tuple[str, ...]
    resources: tuple[str, ...] = ("*",)
    expires_at: datetime | None = None
    allow_tainted: bool = False
    not_before: datetime | None = None
    ask: tuple[str, ...] = ()

    @classmethod
    def allow(cls, *action_globs: str, principal: str = ANY_PRINCIPAL) -> Ticket:
        """A ticket for the given action globs, on any resource, with no expiry; for
        ``principal`` only, or by default in any session (the host made it for itself)."""
        return cls(principal=principal, actions=tuple(action_globs))

    @property
    def timed(self) -> bool:
        """Whether checking this ticket needs the clock (it has a start or an end)."""
        return self.expires_at is not None or self.not_before is not None

    def allows_action(self, action: str) -> bool:
        """Whether some action glob of this ticket matches ``action``."""
        return _globs(self.actions).match(action) is not None

    def asks_action(self, action: str) -> bool:
        """Whether ``action`` is one this ticket may ask a person for (and does not allow)."""
        return bool(self.ask) and _globs(self.ask).match(action) is not None

    def shows_action(self, action: str) -> bool:
        """The R10 filter: a tool is shown when its action is allowed or may be asked for."""
        return self.allows_action(action) or self.asks_action(action)


@dataclass(frozen=True, slots=True)
class Decision:
    """The outcome of ``authorize``: ``code`` is ``"ok"``, ``"denied"``, ``"ticket_expired"``
    or ``"approval_pending"`` (the ticket only asks for the action: the call needs a person's
    approval before it may run)."""

    code: str
    reason: str

    @property
    def allowed(self) -> bool:
        return self.code == OK

    @property
    def needs_approval(self) -> bool:
        return self.code == APPROVAL_PENDING


_ALLOWED = Decision(OK, "allowed")


@lru_cache(maxsize=1024)
def _globs(patterns: tuple[str, ...]) -> re.Pattern[str]:
    """One compiled pattern for a ticket's globs; tickets repeat, so this is cached."""
    if not patterns:
        return re.compile(r"(?!)")
    return re.compile("|".join(f"(?:{translate(pattern)})" for pattern in patterns))


def authorize(
    ticket: Ticket | None,
    action: str,
    resource: str | None,
    now: datetime,
    principal: str | None = None,
) -> Decision:
    """Decide whether ``ticket`` allows ``action`` on ``resource`` at ``now``, for a call made
    on behalf of ``principal`` (None where no principal is known: a call outside a session).

    ``resource`` is None when the tool's policy names no resource template; then only the
    action is checked. ``now`` is read only for a ticket that is ``timed``.
    """
    if ticket is None:
        return Decision(DENIED, "no ticket was presented")
    if principal is not None and ticket.principal not in (principal, ANY_PRINCIPAL):
        return Decision(DENIED, f"the ticket was made for {ticket.principal!r}, not for {principal!r}")
    if ticket.not_before is not None and now < ticket.not_before:
        return Decision(DENIED, f"the ticket of {ticket.principal!r} is not valid yet")
    if ticket.expires_at is not None and now >= ticket.expires_at:
        return Decision(TICKET_EXPIRED, f"the ticket of {ticket.principal!r} has expired")
    allowed = ticket.allows_action(action)
    if not allowed and not ticket.asks_action(action):
        return Decision(DENIED, f"the ticket does not allow action {action!r}")
    if resource is not None and _globs(ticket.resources).match(resource) is None:
        return Decision(DENIED, f"the ticket does not allow action {action!r} on this resource")
    if not allowed:
        return Decision(
            APPROVAL_PENDING, f"the ticket asks for action {action!r}: a person must approve the call"
        )
    return _ALLOWED
