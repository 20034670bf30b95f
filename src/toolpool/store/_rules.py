"""R9 in Python: when a tool may be enabled, and what a configuration sync changes.

The database's CHECK constraints have the last word; these rules decide first, so that a
refusal is a clear ``PolicyRefusal`` rather than an integrity error. A tool's state moves so:

    imported / named in the config   -> disabled (action from the config; None = forbidden)
    enable (read, or write approved) -> enabled
    approve_write (not forbidden)    -> approval recorded (who, when, why), enabled
    disable, forbidden by the config,
    gone from the config, turned into
    a write tool without approval    -> disabled
    config `enabled` false -> true   -> enabled (write tools with the config's approval)
    config `enabled` true -> false   -> disabled
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import Row

from toolpool.config import ToolPolicy

__all__ = ["describe_changes", "enable_refusal", "forbidden", "has_write_approval", "policy_changes"]


def forbidden(alias: str, name: str) -> str:
    return f"{alias}/{name} is forbidden (action = false) or not in the configuration: it cannot be enabled"


def has_write_approval(row: Row[Any]) -> bool:
    return bool(
        (row.write_approved_by or "").strip()
        and row.write_approved_at is not None
        and (row.write_approved_reason or "").strip()
    )


def enable_refusal(row: Row[Any]) -> str | None:
    if row.action is None:
        return forbidden(row.alias, row.name)
    if row.effect == "write" and not has_write_approval(row):
        return (
            f"{row.alias}/{row.name} writes: it needs a write approval "
            "(approve-write --by NAME --reason TEXT), not just enabling"
        )
    return None


def policy_changes(row: Row[Any], policy: ToolPolicy, at: datetime, actor: str) -> dict[str, object]:
    """The columns of ``row`` that the configuration's ``policy`` changes (R9 holds after)."""
    action = None if policy.forbidden else policy.action
    values: dict[str, object] = {}
    if row.action != action:
        values["action"] = action
    if row.effect != policy.effect:
        values["effect"] = policy.effect
    if row.resource != policy.resource:
        values["resource"] = policy.resource
    enabled = bool(row.enabled)
    if row.config_enabled and not policy.enabled:
        enabled = False  # the config author took `enabled = true` away
    if policy.enabled and not row.config_enabled:
        enabled = True
        if policy.effect == "write" and policy.write_approval is not None:
            values["write_approved_by"] = policy.write_approval.by
            values["write_approved_at"] = at
            values["write_approved_reason"] = policy.write_approval.reason
    if bool(row.config_enabled) != policy.enabled:
        values["config_enabled"] = policy.enabled
    approved = "write_approved_at" in values or has_write_approval(row)
    if action is None or (policy.effect == "write" and not approved):
        enabled = False
    if enabled != bool(row.enabled):
        values["enabled"] = enabled
    if values:
        values.update(changed_at=at, changed_by=actor)
    return values


def describe_changes(values: Mapping[str, object]) -> dict[str, object]:
    shown = ("action", "effect", "resource", "enabled", "write_approved_by", "write_approved_reason")
    return {key: values[key] for key in shown if key in values}
