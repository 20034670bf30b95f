"""Tickets: locally issued capabilities, and the pure function that checks them (gate 4, R10).

A ticket names who holds it, which actions it allows (globs such as ``"demo.*"``), on which
resources (globs over the resource a tool's policy picks from the arguments) and until when.
Nothing here does I/O or reads a clock: the caller passes ``now``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from fnmatch import translate
from functools import lru_cache
from typing import Literal

from toolpool.errors import DENIED, OK, TICKET_EXPIRED

__all__ = ["Decision", "Permission", "Ticket", "authorize"]


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
    """A capability: ``principal`` may run ``actions`` on ``resources`` until ``expires_at``.

    ``allow_tainted`` lets text from this session's untrusted results flow into the arguments
    of write tools (gate 6); leave it off unless a person decided so for this ticket.
    """

    principal: str
    actions: tuple[str, ...]
    resources: tuple[str, ...] = ("*",)
    expires_at: datetime | None = None
    allow_tainted: bool = False

    @classmethod
    def allow(cls, *action_globs: str, principal: str = "local") -> Ticket:
        """A ticket for the given action globs, on any resource, with no expiry."""
        return cls(principal=principal, actions=tuple(action_globs))

    def allows_action(self, action: str) -> bool:
        """Whether some action glob of this ticket matches ``action`` (the R10 filter)."""
        return _globs(self.actions).match(action) is not None


@dataclass(frozen=True, slots=True)
class Decision:
    """The outcome of ``authorize``: ``code`` is ``"ok"``, ``"denied"`` or ``"ticket_expired"``."""

    code: str
    reason: str

    @property
    def allowed(self) -> bool:
        return self.code == OK


_ALLOWED = Decision(OK, "allowed")


@lru_cache(maxsize=1024)
def _globs(patterns: tuple[str, ...]) -> re.Pattern[str]:
    """One compiled pattern for a ticket's globs; tickets repeat, so this is cached."""
    if not patterns:
        return re.compile(r"(?!)")
    return re.compile("|".join(f"(?:{translate(pattern)})" for pattern in patterns))


def authorize(ticket: Ticket | None, action: str, resource: str | None, now: datetime) -> Decision:
    """Decide whether ``ticket`` allows ``action`` on ``resource`` at ``now``.

    ``resource`` is None when the tool's policy names no resource template; then only the
    action is checked.
    """
    if ticket is None:
        return Decision(DENIED, "no ticket was presented")
    if ticket.expires_at is not None and now >= ticket.expires_at:
        return Decision(TICKET_EXPIRED, f"the ticket of {ticket.principal!r} has expired")
    if not ticket.allows_action(action):
        return Decision(DENIED, f"the ticket does not allow action {action!r}")
    if resource is not None and _globs(ticket.resources).match(resource) is None:
        return Decision(DENIED, f"the ticket does not allow action {action!r} on this resource")
    return _ALLOWED
