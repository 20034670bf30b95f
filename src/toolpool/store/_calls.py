"""The store's call records (gate 10): written in batches with their audit events, the
sessions' taint and the usage ledger's increments, read in pages and as statistics."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from toolpool.store._calls_read import call_page
from toolpool.store._database import Database
from toolpool.store._stats import call_stats
from toolpool.store._values import AuditEntry, CallRecord, CallStats, SessionTaint, UsageEntry

__all__ = ["Calls"]


class Calls:
    """What each call did, as gate 10 recorded it: ``store.calls``."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def record_call(self, record: CallRecord) -> None:
        """Store one call's record (gate 10)."""
        self.record_calls([record])

    def record_calls(
        self,
        records: Sequence[CallRecord],
        events: Sequence[AuditEntry] = (),
        taints: Sequence[SessionTaint] = (),
        usage: Sequence[UsageEntry] = (),
    ) -> None:
        """Store call records, append audit events, keep sessions' taint and add the records
        and ``usage`` to the usage ledger, all in one transaction (``_batch``): gate 10 for a
        batch of calls costs about what one call's costs, and the ledger never disagrees with
        the records.

        Raises:
            UsageError: the store is closed or failed; nothing was written.
        """
        self._db.batch.write(records, events, taints, usage)

    def call_stats(self, since: datetime | None = None) -> list[CallStats]:
        """Per (alias, tool): calls, Envelope codes, p50 and p95 latency (since ``since``)."""
        with self._db.read() as connection:
            return call_stats(connection, since)

    def call_records(
        self, after_id: int | None = None, limit: int | None = None
    ) -> list[tuple[int, CallRecord]]:
        """Call records in id order, after ``after_id``, at most ``limit``: ``(id, record)``."""
        with self._db.read() as connection:
            return call_page(connection, after_id, limit)
