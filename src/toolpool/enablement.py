"""R9 written once, as a transition table; and gate 3's question behind a seam.

R9 (DESIGN.md): imported tools start disabled; only a tool whose local effect is ``read`` is
enabled directly; a ``write`` tool needs a separate, audited approval (who, when, why). A
forbidden tool (``action = false``, or one the configuration does not name) is never enabled.

A tool's *standing* is what its local policy lets it be; an *event* asks for a change. The
table says, for each standing and event, whether the tool is enabled after it, stays as it
was (``KEEP``), or why the event is refused. Everything that enables a tool asks it: the
configuration's check (``ToolPolicy``), ``ConfigEnablement`` and the store; the store's SQL
CHECK constraints still have the last word.

Gate 3 asks an ``Enablement`` at every call and for every snapshot: the configuration
(``toolpool.store.ConfigEnablement``) or the management plane's store answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Final, Protocol

__all__ = ["KEEP", "TRANSITIONS", "Enablement", "Event", "Refusal", "Standing", "standing_of", "transition"]


class Standing(Enum):
    """What a tool's local policy lets it be."""

    FORBIDDEN = "forbidden"  # action = false, or not named in the configuration
    READ = "read"
    WRITE_UNAPPROVED = "write_unapproved"
    WRITE_APPROVED = "write_approved"  # who, when and why are recorded


class Event(Enum):
    """What asks a tool's enablement to change."""

    ENABLE = "enable"  # a person enables it, or the configuration's `enabled` turns true
    APPROVE_WRITE = "approve_write"  # a write approval is recorded, and the tool enabled
    DISABLE = "disable"
    POLICY_CHANGED = "policy_changed"  # the configuration changed its action, effect or approval


class Refusal(Enum):
    """Why R9 refuses an event; each surface words it for its reader."""

    FORBIDDEN = "forbidden"
    WRITE_NEEDS_APPROVAL = "write_needs_approval"


KEEP: Final = None
"""The outcome "as it was"."""

TRANSITIONS: Final[Mapping[Standing, Mapping[Event, bool | Refusal | None]]] = {
    Standing.FORBIDDEN: {
        Event.ENABLE: Refusal.FORBIDDEN,
        Event.APPROVE_WRITE: Refusal.FORBIDDEN,
        Event.DISABLE: False,
        Event.POLICY_CHANGED: False,
    },
    Standing.READ: {
        Event.ENABLE: True,
        Event.APPROVE_WRITE: True,
        Event.DISABLE: False,
        Event.POLICY_CHANGED: KEEP,
    },
    Standing.WRITE_UNAPPROVED: {
        Event.ENABLE: Refusal.WRITE_NEEDS_APPROVAL,
        Event.APPROVE_WRITE: True,
        Event.DISABLE: False,
        Event.POLICY_CHANGED: False,
    },
    Standing.WRITE_APPROVED: {
        Event.ENABLE: True,
        Event.APPROVE_WRITE: True,
        Event.DISABLE: False,
        Event.POLICY_CHANGED: KEEP,
    },
}
"""Standing x event -> enabled after it (True / False), ``KEEP``, or the refusal."""


def standing_of(*, forbidden: bool, effect: str, write_approved: bool) -> Standing:
    """The standing of a tool with this policy; ``write_approved``: an approval is on record."""
    if forbidden:
        return Standing.FORBIDDEN
    if effect == "read":
        return Standing.READ
    return Standing.WRITE_APPROVED if write_approved else Standing.WRITE_UNAPPROVED


def transition(standing: Standing, event: Event, enabled: bool) -> bool | Refusal:
    """Whether a tool of ``standing`` is enabled after ``event`` (it was ``enabled``), or why
    the event is refused."""
    outcome = TRANSITIONS[standing][event]
    return enabled if outcome is KEEP else outcome


class Enablement(Protocol):
    """Answers gate 3. ``version`` changes whenever any answer may have changed."""

    @property
    def version(self) -> int: ...

    def is_enabled(self, alias: str, remote_name: str) -> bool: ...
