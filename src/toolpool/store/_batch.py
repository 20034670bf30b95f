"""Gate 10's batch write, on a DBAPI connection of its own: call records, audit events,
sessions' taint and usage-ledger increments in one transaction, each table with one driver
``executemany`` of pre-built tuples.

The pool's recorder writes every call through here, so this path skips SQLAlchemy's
per-row parameter processing, which cost more than the rows themselves (bench/record_batches.py).
It keeps every rule of the SQLAlchemy write path: the write lock taken first (SQLite's
``BEGIN IMMEDIATE``; on PostgreSQL the row lock on ``store_head``), the audit chain computed by
``_audit_chain.chain`` (hashes, MACs, the head) from events redacted by the one ``Redactor``,
the ledger's upserts in key order, and all of it committed together or not at all. Moments
are stored as SQLAlchemy stores them (``UTCDateTime``; ``Date``), so reads do not change.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from toolpool.errors import UsageError
from toolpool.store._audit_chain import COLUMNS, FIELDS, Head, chain, redacted
from toolpool.store._bulk import bound_moment
from toolpool.store._codec import now, storable
from toolpool.store._engine import first_line, raw_connection
from toolpool.store._ledger import upsert, usage_rows
from toolpool.store._values import AuditEntry, CallRecord, SessionTaint, UsageEntry

if TYPE_CHECKING:
    from toolpool.store._database import Database

__all__ = ["BatchWriter"]

_CALL_COLUMNS = (
    "at",
    "session_id",
    "principal",
    "alias",
    "tool",
    "code",
    "duration_ms",
    "bytes_in",
    "bytes_out",
    "snapshot_version",
    "release",
    "replica",
)


class BatchWriter:
    """One DBAPI connection that writes batches of gate 10's rows; safe for several threads
    (one batch at a time). Owned by the ``Database``, closed with it."""

    def __init__(self, database: Database) -> None:
        self._db = database
        engine = database.engine
        self._sqlite = engine.dialect.name == "sqlite"
        self._error: type[Exception] = engine.dialect.loaded_dbapi.Error
        self._lock = threading.Lock()
        self._connection: Any = None
        self._closed = False
        mark = "?" if self._sqlite else "%s"
        self._sql = _Statements(mark, lock="" if self._sqlite else " FOR UPDATE")

    def write(
        self,
        records: Sequence[CallRecord],
        events: Sequence[AuditEntry],
        taints: Sequence[SessionTaint],
        usage: Sequence[UsageEntry],
    ) -> None:
        """Write everything given in one transaction.

        Raises:
            UsageError: the store is closed, or the database failed (nothing was written,
                unless the commit itself failed: then the outcome is unknown).
        """
        if not (records or events or taints or usage):
            return
        with self._lock:
            for attempt in range(2):
                connection = self._open()
                committing = False
                try:
                    cursor = connection.cursor()
                    head = self._begin(cursor, bool(events))
                    self._rows(cursor, head, records, events, taints, usage)
                    committing = True
                    connection.commit()
                    return
                except self._error as exc:
                    dropped = bool(getattr(connection, "broken", False))
                    self._discard(connection)
                    # A connection the database dropped (a restart) fails before the commit,
                    # which rolled everything back: one more try on a new one, as
                    # ``Database.write`` does. A failed commit may have committed: no retry.
                    if attempt or committing or not dropped:
                        raise UsageError(
                            f"the store at {self._db.display} failed: {first_line(exc)}"
                        ) from exc
                except BaseException:
                    self._discard(connection)
                    raise

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._connection is not None:
                _close_quietly(self._connection)
                self._connection = None

    def _open(self) -> Any:
        if self._closed:
            raise UsageError("the store is closed")
        self._db.check_open()
        if self._connection is None:
            try:
                self._connection = raw_connection(self._db.engine, writer=True)
            except self._error as exc:
                raise UsageError(f"the store at {self._db.display} failed: {first_line(exc)}") from exc
        return self._connection

    def _discard(self, connection: Any) -> None:
        self._connection = None
        _close_quietly(connection)  # a transaction left open is rolled back

    def _begin(self, cursor: Any, chained: bool) -> Head | None:
        """Take the write lock; with events to chain, read the locked head."""
        if self._sqlite:
            cursor.execute("BEGIN IMMEDIATE")
        if not chained:
            return None
        cursor.execute(self._sql.head)
        return Head.of_fields(cursor.fetchone(), self._db.audit_key)

    def _rows(
        self,
        cursor: Any,
        head: Head | None,
        records: Sequence[CallRecord],
        events: Sequence[AuditEntry],
        taints: Sequence[SessionTaint],
        usage: Sequence[UsageEntry],
    ) -> None:
        if head is not None:
            self._append(cursor, head, events)
        if records:
            cursor.executemany(self._sql.call, [self._call_row(record) for record in records])
        if taints:
            cursor.executemany(self._sql.taint, [(t.session_id, t.data, self._moment(t.at)) for t in taints])
        if records or usage:
            cursor.executemany(self._sql.usage, [self._usage_row(row) for row in usage_rows(records, usage)])

    def _append(self, cursor: Any, head: Head, events: Sequence[AuditEntry]) -> None:
        def secret_rows() -> list[Any]:
            cursor.execute(self._sql.secrets)
            return list(cursor.fetchall())

        def last_has_mac(row_id: int) -> bool:
            cursor.execute(self._sql.has_mac, (row_id,))
            found = cursor.fetchone()
            return found is not None and found[0] is not None

        redact = self._db.redactor_of(head.secrets_version, secret_rows)
        at = now()
        rows, values = chain(head, at, redacted(redact, events), last_has_mac, self._moment(at))
        cursor.executemany(self._sql.audit, rows)
        cursor.execute(self._sql.head_update(list(values)), [*values.values(), 1])

    def _call_row(self, record: CallRecord) -> tuple[Any, ...]:
        return (
            self._moment(record.at),
            record.session_id,
            None if record.principal is None else storable(record.principal),
            storable(record.alias),
            storable(record.tool),
            storable(record.code),
            float(record.duration_ms),
            record.bytes_in,
            record.bytes_out,
            record.snapshot_version,
            record.release,
            None if record.replica is None else storable(record.replica),
        )

    def _usage_row(self, row: tuple[Any, ...]) -> tuple[Any, ...]:
        day: date = row[0]
        return (day.isoformat(), *row[1:]) if self._sqlite else row

    def _moment(self, moment: datetime) -> Any:
        """``bound_moment`` on this store's database."""
        return bound_moment(moment, sqlite=self._sqlite)


class _Statements:
    """The SQL of one driver's paramstyle; values are always bound parameters."""

    def __init__(self, mark: str, lock: str) -> None:
        self.mark = mark
        self.head = f"SELECT {', '.join(FIELDS)} FROM store_head WHERE id = 1{lock}"  # noqa: S608
        self.secrets = "SELECT name, token FROM secrets"
        self.has_mac = f"SELECT mac FROM audit_events WHERE id = {mark}"  # noqa: S608
        self.audit = _insert("audit_events", COLUMNS, mark)
        self.call = _insert("call_records", _CALL_COLUMNS, mark)
        self.taint = _insert("session_taint", ("session_id", "data", "at"), mark)
        self.usage = upsert(mark)

    def head_update(self, names: list[str]) -> str:
        assignments = ", ".join(f"{name} = {self.mark}" for name in names)
        return f"UPDATE store_head SET {assignments} WHERE id = {self.mark}"  # noqa: S608


def _insert(table: str, columns: Sequence[str], mark: str) -> str:
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join([mark] * len(columns))})"  # noqa: S608


def _close_quietly(connection: Any) -> None:
    with contextlib.suppress(Exception):  # closing a connection that already broke
        connection.close()
