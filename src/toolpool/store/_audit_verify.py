"""Verifying the audit chain: walk the rows in id order and name the first break and its kind.

Each row must, in this order: be readable (else ``malformed``); link to the row accepted
before it (else the break is classified from the links: ``inserted``, ``reordered``,
``deleted`` or ``edited``); carry the next id (else ``renumbered``); give its own hash (else
``edited``); and, when the store's key is given and the row is in the keyed part, carry a
valid MAC (else ``inserted``, ``appended`` or ``edited``). Then the head must name the last
row (else ``appended``, ``deleted``, ``edited`` or ``head``), and with the key its MAC must
vouch for that end.

What an intruder with write access to the database (and not the secret key) can hide:

- **Without the key** (or verifying without it): any change, insertion, deletion, reordering
  or renumbering of rows *followed by* recomputing every later hash and the head. Such a
  rewrite of rows k..end is a chain consistent by itself, and nothing in the database can
  tell it from the truth. Everything else is named at its first row, as is every malformed
  value or head.
- **With the key**, each row written by a key holder carries ``HMAC(hash)`` and the head an
  HMAC of (last id, last hash, ``keyed_from``). A rewrite of rows k..end is then named at row
  k (its MAC no longer matches), a forged append at the new row (``appended``), and rows cut
  from the end at the first missing id (the head's MAC vouches for an end that is gone; a key
  holder that appends later marks its first row, so the cut stays named). What still hides:
  (1) the events before ``keyed_from`` are protected by the hash chain only; (2) an intruder
  can rewrite the chain from ``keyed_from`` (or earlier) to the end *with no MAC at all* and
  clear the head's key fields: the chain then looks never keyed, verify reports
  ``keyed_from`` None, and the next key holder keys it again from its end — so compare
  ``keyed_from`` with what it was (1 for a store ``toolpool init`` created); (3) a saved
  older state of the head (its id, hash and MAC together) can be put back after cutting the
  rows that came after it — a rollback only an anchor kept outside the database (the
  ``head_hash`` and ``checked`` of an earlier verify) can show.

Classification beyond the first row uses a few indexed-or-scanning lookups, only once a break
is found. ``connection`` must read one snapshot.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterator
from typing import Any

from sqlalchemy import Connection, Select, func, select

from toolpool.store._audit_format import GENESIS, AuditKey, v1_hash, v2_hash
from toolpool.store._audit_read import ChainHead, ChainRow, read_head, rows
from toolpool.store._tables import audit_events
from toolpool.store._values import AuditCheck, AuditProblem

__all__ = ["verify"]


def verify(connection: Connection, key: AuditKey | None) -> AuditCheck:
    """Check the whole chain and its head; never raises for what the tables hold."""
    head = read_head(connection)
    if isinstance(head, str):
        return AuditCheck(ok=False, checked=0, problem="head", reason=head, with_key=key is not None)
    return _Walk(connection, head, key).run(rows(connection))


class _Broken(Exception):
    """The first break: ends the walk."""

    def __init__(self, row_id: int | None, problem: AuditProblem, reason: str) -> None:
        super().__init__(reason)
        self.row_id, self.problem, self.reason = row_id, problem, reason


class _Walk:
    def __init__(self, connection: Connection, head: ChainHead, key: AuditKey | None) -> None:
        self._connection = connection
        self._head = head
        self._key = key
        self._expected = GENESIS  # hash of the last accepted row
        self._last_id = 0  # accepted rows are exactly 1.._last_id
        self._checked = 0
        self._first_mac: int | None = None  # the first row with a valid MAC

    def run(self, chain: Iterator[ChainRow]) -> AuditCheck:
        try:
            for row in chain:
                self._checked += 1
                self._check(row)
            self._check_head()
        except _Broken as broken:
            return self._result(broken)
        return self._result(None)

    # -- one row ---------------------------------------------------------------------------

    def _check(self, row: ChainRow) -> None:
        if row.malformed is not None:
            raise _Broken(row.id, "malformed", row.malformed)
        if row.prev_hash != self._expected:
            raise self._link_break(row)
        if row.id != self._last_id + 1:
            raise _Broken(
                row.id, "renumbered", f"it follows event {self._last_id} but is not event {self._last_id + 1}"
            )
        if _recomputed(row, row.id, self._head) != row.hash:
            raise _Broken(row.id, "edited", "its content no longer gives its hash")
        if self._key is not None:
            self._check_mac(row, self._key)
        self._expected, self._last_id = row.hash, row.id

    def _check_mac(self, row: ChainRow, key: AuditKey) -> None:
        keyed_from = self._head.keyed_from
        required = self._first_mac is not None or (keyed_from is not None and row.id >= keyed_from)
        if row.mac is None:
            if required:
                raise self._unvouched(row, "it has no MAC of the store's secret key")
        elif _same(row.mac, key.row_mac(row.hash)):
            if self._first_mac is None:
                self._first_mac = row.id
        elif _same(row.mac, key.row_mac(row.hash, after_break=True)):
            raise _Broken(
                row.id,
                "deleted",
                "when the store wrote this event it found the head changed outside it: "
                "events were cut from the end before it (or the head was edited)",
            )
        else:
            raise self._unvouched(row, "its MAC does not match (changed, or written with another secret key)")

    def _unvouched(self, row: ChainRow, why: str) -> _Broken:
        """A row the key does not vouch for: a forged insertion, an append, or an edit."""
        rival = self._scalar(
            select(func.min(audit_events.c.id)).where(
                audit_events.c.prev_hash == row.prev_hash, audit_events.c.id > row.id
            )
        )
        if rival is not None:
            return _Broken(row.id, "inserted", f"{why}; event {rival} links to the same event")
        head, key = self._head, self._key
        assert key is not None
        if head.mac is not None and _same(
            head.mac, key.head_mac(self._last_id, self._expected, head.keyed_from)
        ):
            return _Broken(
                row.id,
                "appended",
                f"{why}; the head's MAC vouches for the chain up to event {self._last_id} only "
                "(appended outside the store, or by a process without the secret key)",
            )
        return _Broken(row.id, "edited", why)

    def _link_break(self, row: ChainRow) -> _Broken:
        """``row`` does not link to the last accepted row: say why, from where it links."""
        linked = self._row_with_hash(row.prev_hash, below=self._last_id + 1)
        if linked is not None:
            return _Broken(linked + 1, "inserted", f"event {row.id} links to event {linked}, past it")
        later = self._row_with_hash(row.prev_hash, above=row.id)
        if later is not None:
            return _Broken(row.id, "reordered", f"it links to event {later}, which comes after it")
        following = self._scalar(select(func.min(audit_events.c.id)).where(audit_events.c.id > row.id))
        # compared in SQL: the next row's prev_hash may be anything, even text sqlite3 cannot read
        if following is not None and self._scalar(
            select(func.count())
            .select_from(audit_events)
            .where(audit_events.c.id == following, audit_events.c.prev_hash == self._expected)
        ):
            return _Broken(row.id, "inserted", "the events around it link to each other, not to it")
        if row.id > self._last_id + 1:
            return _Broken(
                self._last_id + 1, "deleted", f"event {row.id} links to an event that is not there"
            )
        if self._last_id == 0:
            return _Broken(row.id, "deleted", "the first event links to an event that is not there")
        if _recomputed(row, row.id, self._head) != row.hash:
            return _Broken(row.id, "deleted", "it links to an event that is not there, and was renumbered")
        return _Broken(
            self._last_id,
            "edited",
            f"event {row.id} links to another hash for it: it was changed and re-hashed",
        )

    # -- the head --------------------------------------------------------------------------

    def _check_head(self) -> None:
        head = self._head
        if head.last_hash != self._expected or head.last_id != self._last_id:
            raise self._head_break()
        key, first_mac = self._key, self._first_mac
        if key is None or (head.keyed_from is None and first_mac is None):
            return
        if head.mac is None and head.keyed_from is None:
            raise _Broken(
                None, "head", f"its key fields were cleared, yet events from {first_mac} on carry MACs"
            )
        if head.mac is not None and _same(
            head.mac, key.head_mac(head.last_id, head.last_hash, head.keyed_from)
        ):
            if first_mac is not None and head.keyed_from is not None and first_mac < head.keyed_from:
                raise _Broken(
                    None, "head", f"audit_keyed_from is {head.keyed_from} but MACs start at {first_mac}"
                )
            return
        if head.mac is not None and _same(head.mac, key.head_mac(head.last_id, head.last_hash, first_mac)):
            raise _Broken(
                None, "head", f"its audit_keyed_from was changed (the MACs start at event {first_mac})"
            )
        raise _Broken(
            self._last_id + 1,
            "deleted",
            "the head's MAC does not vouch for the chain's end: events were cut from the end (or the head edited)",
        )

    def _head_break(self) -> _Broken:
        head = self._head
        named = self._row_with_hash(head.last_hash, below=self._last_id + 1)
        if named is not None and named == head.last_id and named < self._last_id:
            return _Broken(named + 1, "appended", f"the head names event {named} as the last")
        if head.last_id > self._last_id:
            return _Broken(self._last_id + 1, "deleted", f"the head names event {head.last_id} as the last")
        if head.last_id == self._last_id:
            return _Broken(self._last_id, "edited", "the head names another hash for it: it was re-hashed")
        return _Broken(None, "head", f"it names event {head.last_id} with a hash that is not that event's")

    # -- helpers ---------------------------------------------------------------------------

    def _row_with_hash(
        self, row_hash: str, *, below: int | None = None, above: int | None = None
    ) -> int | None:
        query = select(func.min(audit_events.c.id)).where(audit_events.c.hash == row_hash)
        if below is not None:
            query = query.where(audit_events.c.id < below)
        if above is not None:
            query = query.where(audit_events.c.id > above)
        found = self._scalar(query)
        return found if isinstance(found, int) else None

    def _scalar(self, query: Select[Any]) -> Any:
        return self._connection.scalar(query)

    def _result(self, broken: _Broken | None) -> AuditCheck:
        keyed_from = None
        if self._key is not None:
            keyed_from = self._head.keyed_from if self._head.keyed_from is not None else self._first_mac
        return AuditCheck(
            ok=broken is None,
            checked=self._checked,
            first_bad_id=None if broken is None else broken.row_id,
            problem=None if broken is None else broken.problem,
            head_hash=self._head.last_hash,
            reason=None if broken is None else broken.reason,
            keyed_from=keyed_from,
            with_key=self._key is not None,
        )


def _recomputed(row: ChainRow, row_id: int, head: ChainHead) -> str:
    if row_id >= head.v2_from:
        return v2_hash(row_id, row.prev_hash, row.at, row.actor, row.action, row.resource, row.detail_text)
    return v1_hash(row.prev_hash, row.at, row.actor, row.action, row.resource, row.detail_text)


def _same(stored: str, expected: str) -> bool:
    return hmac.compare_digest(stored.encode("utf-8"), expected.encode("utf-8"))
