"""The store's audit log: appending an event, reading events, and verifying the chain
(``_audit_chain`` holds the chain itself)."""

from __future__ import annotations

from collections.abc import Mapping

from toolpool.store import _audit_chain
from toolpool.store._audit_read import event_of, recent_rows
from toolpool.store._database import Database
from toolpool.store._values import AuditCheck, AuditEvent

__all__ = ["Audit"]


class Audit:
    """The hash-chained audit log: ``store.audit``."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def audit(self, actor: str, action: str, resource: str, detail: Mapping[str, object]) -> None:
        """Append an event to the hash chain, with every secret value redacted."""
        with self._db.write() as tx:
            tx.append(actor, action, resource, detail)

    def audit_events(self, limit: int | None = None, after_id: int | None = None) -> list[AuditEvent]:
        """Events in id order, after ``after_id``, at most ``limit``."""
        with self._db.read() as connection:
            return _audit_chain.events(connection, limit, after_id)

    def recent(self, action: str, *, limit: int = 5, within: int = 5000) -> list[AuditEvent]:
        """The newest events of ``action`` among the last ``within`` events, newest first (an
        alarm worth a banner is recent; older ones stay in the log)."""
        with self._db.read() as connection:
            newest = _audit_chain.last_id(connection)
            return [event_of(row) for row in recent_rows(connection, action, limit, newest - within)]

    def last_audit_id(self) -> int:
        """The id of the newest audit event (0 when there is none): where a reader that wants
        only what comes next starts."""
        with self._db.read() as connection:
            return _audit_chain.last_id(connection)

    def verify_audit(self) -> AuditCheck:
        """Walk the chain and its head; report the first bad event and its kind (see
        ``AuditCheck``). With the store's secret key, the events' MACs are checked too. Never
        raises for what the tables hold: a malformed row or head is a finding."""
        with self._db.read(snapshot=True) as connection:
            return _audit_chain.verify(connection, self._db.audit_key)
