"""R9 on the store's rows: ``toolpool.enablement``'s table applied to a tool's state row.

The database's CHECK constraints have the last word; the table decides first, so that a
refusal is a clear ``PolicyRefusal`` rather than an integrity error. A tool named in the
configuration or imported starts disabled; a configuration sync moves it by the event its
``enabled`` flag makes: false -> true enables (with the config's write approval), true -> false
disables, no change re-checks the policy (a forbidden tool, or a write tool without an
approval, is disabled; any other keeps its state).

A sync reads a ``SyncedPolicy``: the part of a ``ToolPolicy`` these rules need, small enough
for ``toolpool tools`` to keep 100,000 of them beside the configuration (and read them back
without tomllib and pydantic) when another process changed the store.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from toolpool.enablement import Event, Refusal, Standing, standing_of, transition

# The configuration's models are not imported with the store (cli._common), nor is SQLAlchemy
# with ``SyncedPolicy`` (the listing kept beside a configuration holds them: cli._listing).
if TYPE_CHECKING:
    from sqlalchemy import Row

    from toolpool.config import ToolPolicy

__all__ = [
    "SyncedPolicy",
    "after",
    "describe_changes",
    "has_write_approval",
    "needs_disabling",
    "policy_changes",
    "refusal_text",
]


class SyncedPolicy(NamedTuple):
    """What a configuration sync reads of one tool's ``ToolPolicy``: ``action`` False when
    forbidden, and the configuration's write approval (``write_approved_by`` None: none).
    A tuple, so that 100,000 of them are built and compared in a fraction of a second."""

    action: str | Literal[False]
    effect: Literal["read", "write"]
    enabled: bool
    resource: str | None
    approval: Literal["none", "each_call"]
    write_approved_by: str | None
    write_approved_reason: str | None

    @property
    def forbidden(self) -> bool:
        return self.action is False

    @classmethod
    def of(cls, policy: ToolPolicy | SyncedPolicy) -> SyncedPolicy:
        if isinstance(policy, SyncedPolicy):
            return policy
        approval = policy.write_approval
        return cls(
            policy.action,
            policy.effect,
            policy.enabled,
            policy.resource,
            policy.approval,
            None if approval is None else approval.by,
            None if approval is None else approval.reason,
        )


def has_write_approval(row: Row[Any]) -> bool:
    return bool(
        (row.write_approved_by or "").strip()
        and row.write_approved_at is not None
        and (row.write_approved_reason or "").strip()
    )


def standing(row: Row[Any]) -> Standing:
    """A row's standing: its action None is forbidden (or not in the configuration)."""
    return standing_of(
        forbidden=row.action is None, effect=row.effect, write_approved=has_write_approval(row)
    )


def after(row: Row[Any], event: Event) -> bool | Refusal:
    """Whether the tool of ``row`` is enabled after ``event``, or why R9 refuses it."""
    return transition(standing(row), event, bool(row.enabled))


def refusal_text(alias: str, name: str, refusal: Refusal) -> str:
    if refusal is Refusal.FORBIDDEN:
        return (
            f"{alias}/{name} is forbidden (action = false) or not in the configuration: it cannot be enabled"
        )
    return (
        f"{alias}/{name} writes: it needs a write approval "
        "(approve-write --by NAME --reason TEXT), not just enabling"
    )


def needs_disabling(row: Row[Any]) -> bool:
    """Whether a sync must disable the tool of ``row``, which the configuration no longer
    names (such a tool is forbidden, R9)."""
    return bool(row.enabled or row.config_enabled)


def policy_changes(row: Row[Any], policy: SyncedPolicy, at: datetime, actor: str) -> dict[str, object]:
    """The columns of ``row`` that the configuration's ``policy`` changes (R9 holds after)."""
    action = None if policy.forbidden else policy.action
    values: dict[str, object] = {}
    if row.action != action:
        values["action"] = action
    if row.effect != policy.effect:
        values["effect"] = policy.effect
    if row.resource != policy.resource:
        values["resource"] = policy.resource
    if row.approval != policy.approval:
        values["approval"] = policy.approval
    event = Event.POLICY_CHANGED
    if row.config_enabled and not policy.enabled:
        event = Event.DISABLE  # the config author took `enabled = true` away
    if policy.enabled and not row.config_enabled:
        event = Event.ENABLE
        if policy.effect == "write" and policy.write_approved_by is not None:
            values["write_approved_by"] = policy.write_approved_by
            values["write_approved_at"] = at
            values["write_approved_reason"] = policy.write_approved_reason
    if bool(row.config_enabled) != policy.enabled:
        values["config_enabled"] = policy.enabled
    approved = "write_approved_at" in values or has_write_approval(row)
    standing_now = standing_of(forbidden=action is None, effect=policy.effect, write_approved=approved)
    enabled = transition(standing_now, event, bool(row.enabled))
    if isinstance(enabled, Refusal):
        enabled = False  # a sync never fails: what R9 refuses stays disabled
    if enabled != bool(row.enabled):
        values["enabled"] = enabled
    if values:
        values.update(changed_at=at, changed_by=actor)
    return values


def describe_changes(values: Mapping[str, object]) -> dict[str, object]:
    shown = (
        "action",
        "effect",
        "resource",
        "approval",
        "enabled",
        "write_approved_by",
        "write_approved_reason",
    )
    return {key: values[key] for key in shown if key in values}
