"""An intruder with write access to the database and the documented hash formulas, but not the
store's secret key: what the audit tests attack with. Every change goes through plain SQL.

The formulas (see ``toolpool.store._audit_rows``):

- since the switch point (every row of a store made with migration 0003 or later):
  ``sha256(canonical({"v": 2, "id", "prev", "at", "actor", "action", "resource", "detail"}))``;
- before it: ``sha256(prev_hash + canonical({"at", "actor", "action", "resource", "detail"}))``.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC
from typing import Any

from toolpool.store import AuditEvent

from .helpers import sql

GENESIS = "sha256:" + "0" * 64


def canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def moment(event: AuditEvent) -> str:
    return event.at.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds")


def v2_hash(row_id: int, prev: str, at: str, actor: str, action: str, resource: str, detail: str) -> str:
    content: dict[str, Any] = {
        "v": 2,
        "id": row_id,
        "prev": prev,
        "at": at,
        "actor": actor,
        "action": action,
        "resource": resource,
        "detail": detail,
    }
    return "sha256:" + hashlib.sha256(canonical(content).encode()).hexdigest()


def v1_hash(prev: str, at: str, actor: str, action: str, resource: str, detail: str) -> str:
    content = {"action": action, "actor": actor, "at": at, "detail": detail, "resource": resource}
    return "sha256:" + hashlib.sha256((prev + canonical(content)).encode()).hexdigest()


def rehash(event: AuditEvent, row_id: int, prev: str, detail: str | None = None) -> str:
    """The v2 hash ``event`` would have at ``row_id`` after ``prev``, with ``detail`` if given."""
    text = canonical(dict(event.detail)) if detail is None else detail
    return v2_hash(row_id, prev, moment(event), event.actor, event.action, event.resource, text)


def rewrite_from(store_url: str, events: list[AuditEvent], first_id: int, *, head: bool = True) -> str:
    """Recompute ``prev_hash`` and ``hash`` of every row from ``first_id`` on, as they are in the
    table now, and (``head``) point the head at the new last row: a self-consistent chain.
    ``events`` is the log as the store read it before; returns the new last hash."""
    rows = sql(store_url, "SELECT id, detail FROM audit_events WHERE id >= ? ORDER BY id", (first_id,))
    by_id = {event.id: event for event in events}
    prev = sql(store_url, "SELECT hash FROM audit_events WHERE id = ?", (first_id - 1,))
    last = prev[0][0] if prev else GENESIS
    for row_id, detail in rows:
        new = rehash(by_id[row_id], row_id, last, detail)
        sql(store_url, "UPDATE audit_events SET prev_hash = ?, hash = ? WHERE id = ?", (last, new, row_id))
        last = new
    if head:
        last_id = rows[-1][0] if rows else first_id - 1
        set_head(store_url, last_id, last)
    return last


def set_head(store_url: str, last_id: int, last_hash: str) -> None:
    sql(store_url, "UPDATE store_head SET audit_last_id = ?, audit_last_hash = ?", (last_id, last_hash))


def append_forged(store_url: str, events: list[AuditEvent], *, head: bool) -> int:
    """Add a row after the last one, chained and hashed as the store would (without a MAC);
    ``head``: move the head to it as well. Returns its id."""
    last = events[-1]
    row_id, detail = last.id + 1, canonical({"forged": True})
    new = rehash(last, row_id, last.hash, detail)
    sql(
        store_url,
        "INSERT INTO audit_events (id, at, actor, action, resource, detail, prev_hash, hash) "
        "SELECT ?, at, actor, action, resource, ?, ?, ? FROM audit_events WHERE id = ?",
        (row_id, detail, last.hash, new, last.id),
    )
    if head:
        set_head(store_url, row_id, new)
    return row_id


def swap_ids(store_url: str, one: int, other: int) -> None:
    sql(store_url, "UPDATE audit_events SET id = ? WHERE id = ?", (-one, one))
    sql(store_url, "UPDATE audit_events SET id = ? WHERE id = ?", (one, other))
    sql(store_url, "UPDATE audit_events SET id = ? WHERE id = ?", (other, -one))
