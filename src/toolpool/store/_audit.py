"""The hash-chained audit log: appending under the write lock, and verifying the chain.

Each event stores ``prev_hash`` (the hash of the event before it, or ``GENESIS``) and
``hash = sha256(prev_hash + canonical(at, actor, action, resource, detail))``. Ids are
assigned by the store, contiguously, under the write lock. The ``store_head`` row holds the
id and hash of the last event and is updated in the same transaction as every append: it is
the anchor that makes a deletion *at the end* visible, which no chain can show by itself.

``verify`` walks the events in id order and reports the first break:

- **edited**: a row's content no longer gives its hash; or its hash was recomputed, so the
  next row (or the head) no longer links to it while no row is missing;
- **inserted**: a row the chain does not link: the row after it links past it, or a row links
  back to an earlier row, or rows follow the event the head names as the last;
- **deleted**: the chain (or the head) needs a row that is not there; the id reported is the
  first missing one.

Someone who can write the database can still rewrite the whole chain *and* the head. To
detect that too, keep ``AuditCheck.head_hash`` somewhere else and compare it later.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import Connection, Row, func, select, update

from toolpool.store._codec import canonical, digest, storable, timestamp
from toolpool.store._tables import audit_events, store_head
from toolpool.store._values import AuditCheck, AuditEvent

__all__ = ["GENESIS", "Head", "append", "append_many", "events", "verify"]

GENESIS = "sha256:" + "0" * 64
Problem = Literal["edited", "inserted", "deleted"]
_PAGE = 2000


@dataclass(slots=True)
class Head:
    """The locked ``store_head`` row of the current write transaction."""

    audit_last_id: int
    audit_last_hash: str
    secrets_version: int


def chain_hash(prev_hash: str, at: datetime, actor: str, action: str, resource: str, detail: str) -> str:
    content = {"action": action, "actor": actor, "at": timestamp(at), "detail": detail, "resource": resource}
    return digest(prev_hash + canonical(content))


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
    rows = []
    last_id, last_hash = head.audit_last_id, head.audit_last_hash
    for actor, action, resource, detail in entries:
        actor, action, resource = storable(actor), storable(action), storable(resource)
        detail_text = canonical(detail)
        row_hash = chain_hash(last_hash, at, actor, action, resource, detail_text)
        last_id += 1
        rows.append(
            {
                "id": last_id,
                "at": at,
                "actor": actor,
                "action": action,
                "resource": resource,
                "detail": detail_text,
                "prev_hash": last_hash,
                "hash": row_hash,
            }
        )
        last_hash = row_hash
    if not rows:
        return
    connection.execute(audit_events.insert(), rows)
    connection.execute(
        update(store_head)
        .where(store_head.c.id == 1)
        .values(audit_last_id=last_id, audit_last_hash=last_hash)
    )
    head.audit_last_id, head.audit_last_hash = last_id, last_hash


def last_id(connection: Connection) -> int:
    """The id of the newest event; 0 for an empty log."""
    return int(connection.execute(select(func.max(audit_events.c.id))).scalar_one() or 0)


def events(connection: Connection, limit: int | None, after_id: int | None) -> list[AuditEvent]:
    query = select(audit_events).order_by(audit_events.c.id)
    if after_id is not None:
        query = query.where(audit_events.c.id > after_id)
    if limit is not None:
        query = query.limit(limit)
    return [
        AuditEvent(
            id=row.id,
            at=row.at,
            actor=row.actor,
            action=row.action,
            resource=row.resource,
            detail=json.loads(row.detail),
            prev_hash=row.prev_hash,
            hash=row.hash,
        )
        for row in connection.execute(query)
    ]


def verify(connection: Connection) -> AuditCheck:
    """Check the whole chain and its head; ``connection`` should read one snapshot."""
    head_row = connection.execute(select(store_head.c.audit_last_id, store_head.c.audit_last_hash)).one()
    head_id, head_hash = head_row.audit_last_id, head_row.audit_last_hash
    rows = _Lookahead(_rows(connection))
    expected, last_id, checked = GENESIS, 0, 0
    successor: dict[str, int] = {}  # hash of an accepted row -> id of the row accepted after it
    for row in rows:
        checked += 1
        if _recomputed(row) != row.hash:
            return _broken(checked, row.id, "edited", head_hash)
        if row.prev_hash != expected:
            return _broken(checked, *_classify(row, expected, last_id, successor, rows.peek()), head_hash)
        successor[expected] = row.id
        expected, last_id = row.hash, row.id
    if head_hash == expected:
        return AuditCheck(ok=True, checked=checked, head_hash=head_hash)
    if head_hash in successor:
        return _broken(checked, successor[head_hash], "inserted", head_hash)
    if head_id > last_id:
        return _broken(checked, last_id + 1, "deleted", head_hash)
    return _broken(checked, last_id, "edited", head_hash)


def _classify(
    row: Row[Any], expected: str, last_id: int, successor: dict[str, int], following: Row[Any] | None
) -> tuple[int, Problem]:
    if row.prev_hash in successor:
        return successor[row.prev_hash], "inserted"  # ``row`` links past the rows after that one
    if following is not None and following.prev_hash == expected:
        return row.id, "inserted"  # its neighbours link to each other, not to it
    if row.id > last_id + 1:
        return last_id + 1, "deleted"
    return last_id, "edited"  # nothing is missing: the row before was changed and re-hashed


def _recomputed(row: Row[Any]) -> str:
    return chain_hash(row.prev_hash, row.at, row.actor, row.action, row.resource, row.detail)


def _broken(checked: int, row_id: int, problem: Problem, head_hash: str) -> AuditCheck:
    return AuditCheck(ok=False, checked=checked, first_bad_id=row_id, problem=problem, head_hash=head_hash)


def _rows(connection: Connection) -> Iterator[Row[Any]]:
    after = None
    while True:
        query = select(audit_events).order_by(audit_events.c.id).limit(_PAGE)
        if after is not None:
            query = query.where(audit_events.c.id > after)
        page = connection.execute(query).all()
        yield from page
        if len(page) < _PAGE:
            return
        after = page[-1].id


class _Lookahead:
    """An iterator of rows that can show the next row without taking it."""

    def __init__(self, rows: Iterator[Row[Any]]) -> None:
        self._rows = rows
        self._next: Row[Any] | None = next(rows, None)

    def __iter__(self) -> Iterator[Row[Any]]:
        while self._next is not None:
            current, self._next = self._next, next(self._rows, None)
            yield current

    def peek(self) -> Row[Any] | None:
        return self._next
