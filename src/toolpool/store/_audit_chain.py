"""The hash-chained audit log: appending under the write lock, reading, and verifying.

Each event stores ``prev_hash`` (the hash of the event before it, or ``GENESIS``) and its own
``hash``, which covers its id, ``prev_hash`` and content (the formulas are in
``_audit_format``). Ids are assigned by the store, contiguously from 1, under the write lock.
The ``store_head`` row holds the id and hash of the last event and is updated in the same
transaction as every append: it is the anchor that makes a deletion *at the end* visible,
which no chain can show by itself.

A store opened with its secret key also writes ``mac``, an HMAC of each event's hash under a
key derived from the secret key, and an HMAC of the head (``audit_mac``): with the key,
``verify`` can name the first row of a tail that was rewritten and re-hashed, which a plain
hash chain cannot. The chain is keyed from the first event a key holder writes
(``audit_keyed_from``). A key holder that finds the head's MAC wrong (rows cut from the end,
or written by a process without the key) leaves the head's MAC as it was and marks its first
row: appending never launders what was done before. ``_audit_verify`` states what an intruder
with database access can and cannot hide, with and without the key.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Row, func, select, update

from toolpool.errors import UsageError
from toolpool.redaction import Redactor
from toolpool.store._audit_format import GENESIS, HASH, MAC, AuditKey, v2_hash
from toolpool.store._audit_read import event_of, rows
from toolpool.store._audit_verify import verify
from toolpool.store._bulk import Writer
from toolpool.store._codec import canonical, plain, storable
from toolpool.store._tables import audit_events, store_head
from toolpool.store._values import AuditEntry, AuditEvent

__all__ = [
    "COLUMNS",
    "FIELDS",
    "GENESIS",
    "AuditKey",
    "Head",
    "append",
    "append_many",
    "chain",
    "events",
    "last_id",
    "redacted",
    "verify",
]


# The columns of ``store_head`` that ``Head.of_fields`` reads, in this order.
FIELDS = ("audit_last_id", "audit_last_hash", "secrets_version", "audit_keyed_from", "audit_mac")


@dataclass(slots=True)
class Head:
    """The locked ``store_head`` row of the current write transaction, and the audit key of
    the process that holds the lock (None: it has no secret key)."""

    audit_last_id: int
    audit_last_hash: str
    secrets_version: int
    audit_keyed_from: int | None = None
    audit_mac: str | None = None
    key: AuditKey | None = None

    @classmethod
    def of(cls, row: Row[Any] | None, key: AuditKey | None) -> Head:
        """The head from its row, checked, so that no write chains onto garbage.

        Raises:
            UsageError: the row is missing or malformed (changed outside the store).
        """
        if row is None:
            return cls.of_fields(None, key)
        fields = (
            row.audit_last_id,
            row.audit_last_hash,
            row.secrets_version,
            row.audit_keyed_from,
            row.audit_mac,
        )
        return cls.of_fields(fields, key)

    @classmethod
    def of_fields(cls, fields: Sequence[Any] | None, key: AuditKey | None) -> Head:
        """``of`` for a driver's row of ``FIELDS``, in that order.

        Raises:
            UsageError: the row is missing or malformed (changed outside the store).
        """
        if fields is None:
            raise UsageError(_HEAD_BROKEN.format("is missing"))
        last, last_hash, secrets_version, keyed_from, mac = fields
        if not (
            _count(last)
            and isinstance(last_hash, str)
            and HASH.fullmatch(last_hash)
            and _count(secrets_version)
            and (keyed_from is None or _count(keyed_from))
            and (mac is None or (isinstance(mac, str) and MAC.fullmatch(mac)))
        ):
            raise UsageError(_HEAD_BROKEN.format("is malformed"))
        return cls(last, last_hash, secrets_version, keyed_from, mac, key)


_HEAD_BROKEN = (
    "the store's audit head (table store_head) {}: the database was changed outside toolpool; "
    "run `toolpool audit --verify`"
)


def append(
    connection: Connection,
    head: Head,
    at: datetime,
    actor: str,
    action: str,
    resource: str,
    detail: Mapping[str, Any],
) -> None:
    """Append one event; ``head`` must be locked by this transaction. ``detail`` is already
    plain JSON data with every secret redacted."""
    append_many(connection, head, at, [(actor, action, resource, detail)])


def append_many(
    connection: Connection,
    head: Head,
    at: datetime,
    entries: Sequence[tuple[str, str, str, Mapping[str, Any]]],
) -> None:
    """Append events (actor, action, resource, redacted plain detail) in order with one
    insert and one head update: a batch of calls costs about what one event does."""
    if not entries:
        return

    def last_has_mac(row_id: int) -> bool:
        query = select(audit_events.c.mac.is_not(None)).where(audit_events.c.id == row_id)
        return bool(connection.scalar(query))

    writer = Writer(connection)
    new_rows, values = chain(head, at, entries, last_has_mac, writer.moment(at))
    writer.insert("audit_events", COLUMNS, new_rows)
    connection.execute(update(store_head).where(store_head.c.id == 1).values(**values))


# The columns of an event row as ``chain`` builds it, in this order.
COLUMNS = ("id", "at", "actor", "action", "resource", "detail", "prev_hash", "hash", "mac")


def chain(
    head: Head,
    at: datetime,
    entries: Sequence[tuple[str, str, str, Mapping[str, Any]]],
    last_has_mac: Callable[[int], bool],
    stored_at: object = None,
) -> tuple[list[tuple[Any, ...]], dict[str, Any]]:
    """The rows (``COLUMNS``) that append ``entries`` after ``head``, and the head's new
    values; ``head`` is advanced to them. ``last_has_mac(id)``: whether that stored event has a
    MAC (asked only when a key holder finds an unkeyed head over events). ``stored_at``: ``at``
    as the database driver takes it (default: ``at`` itself)."""
    key, keyed_from = head.key, head.audit_keyed_from
    fresh = key is not None and keyed_from is None and head.audit_mac is None
    if fresh and head.audit_last_id:
        # A head without key fields over a row with a MAC was cleared by hand: treat as broken.
        fresh = not last_has_mac(head.audit_last_id)
    if fresh:
        keyed_from = head.audit_last_id + 1  # the first keyed event
    head_ok = fresh or (
        key is not None
        and head.audit_mac is not None
        and hmac.compare_digest(
            head.audit_mac, key.head_mac(head.audit_last_id, head.audit_last_hash, keyed_from)
        )
    )
    stored = at if stored_at is None else stored_at
    last_id, last_hash = head.audit_last_id, head.audit_last_hash
    new_rows: list[tuple[Any, ...]] = []
    for actor, action, resource, detail in entries:
        actor, action, resource = storable(actor), storable(action), storable(resource)
        detail_text = canonical(detail)
        last_id += 1
        row_hash = v2_hash(last_id, last_hash, at, actor, action, resource, detail_text)
        mac = None
        if key is not None:
            mac = key.row_mac(row_hash, after_break=not head_ok and not new_rows)
        new_rows.append((last_id, stored, actor, action, resource, detail_text, last_hash, row_hash, mac))
        last_hash = row_hash
    values: dict[str, Any] = {"audit_last_id": last_id, "audit_last_hash": last_hash}
    if key is not None and head_ok:
        values |= {"audit_keyed_from": keyed_from, "audit_mac": key.head_mac(last_id, last_hash, keyed_from)}
    head.audit_last_id, head.audit_last_hash = last_id, last_hash
    head.audit_keyed_from = values.get("audit_keyed_from", head.audit_keyed_from)
    head.audit_mac = values.get("audit_mac", head.audit_mac)
    return new_rows, values


def redacted(
    redact: Redactor, events: Sequence[AuditEntry], *, already_plain: bool = False
) -> list[tuple[str, str, str, Any]]:
    """Events as ``chain`` takes them: every secret value redacted, the detail plain JSON
    (``already_plain``: it is, as it comes)."""
    made = (lambda detail: detail) if already_plain else plain
    return [
        (redact(event.actor), event.action, redact(event.resource), redact.redact_value(made(event.detail)))
        for event in events
    ]


def last_id(connection: Connection) -> int:
    """The id of the newest event; 0 for an empty log."""
    return int(connection.execute(select(func.max(audit_events.c.id))).scalar_one() or 0)


def events(connection: Connection, limit: int | None, after_id: int | None) -> list[AuditEvent]:
    """Events in id order; a row changed into something unreadable comes back ``malformed``."""
    return [event_of(row) for row in rows(connection, after_id, limit)]


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
