"""Gate 3's read path: one indexed query on a DBAPI connection kept per thread.

``is_enabled`` runs before every call (and the bearer-token lookup before every HTTP request), so it bypasses SQLAlchemy's execution machinery:
each thread keeps one raw connection in autocommit mode (every statement sees what other
processes committed before it; no transaction stays open), and the SQL text is fixed, so the
driver's statement cache (sqlite3) or prepared statements (psycopg) make repeats cheap.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

from sqlalchemy import Engine

from toolpool.errors import UsageError
from toolpool.store._engine import raw_connection

__all__ = ["Gate"]


class Gate:
    """Raw connections, one per thread, for the few hot reads of the store."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._error: type[Exception] = engine.dialect.loaded_dbapi.Error
        self._local = threading.local()
        self._lock = threading.Lock()
        self._open: dict[int, tuple[threading.Thread, Any]] = {}
        self._closed = False
        self.connects = 0
        """Connections opened or dropped so far: while it stays the same, every connection the
        gate had stayed open (``EnabledCache`` trusts SQLite's change signal only then)."""
        # The placeholders are the driver's paramstyle; the values are always bound parameters.
        mark = "?" if engine.dialect.paramstyle == "qmark" else "%s"
        self.enabled_sql = (
            "SELECT 1 FROM tool_states t JOIN servers s ON s.alias = t.alias "  # noqa: S608
            f"WHERE t.alias = {mark} AND t.name = {mark} AND t.enabled AND s.enabled"
        )
        self.version_sql = "SELECT max(number) FROM releases"
        self.secrets_version_sql = "SELECT secrets_version FROM store_head WHERE id = 1"
        # A token's row by its hash: the first column is the hash, the whole row tells whether
        # the token changed.
        self.token_sql = (
            "SELECT token_hash, name, actions, resources, created_at, created_by "  # noqa: S608
            f"FROM tokens WHERE token_hash = {mark}"
        )

    def fetchone(self, sql: str, parameters: tuple[Any, ...] = ()) -> Any:
        """The first row of ``sql``; a broken connection is replaced and the query tried once more.

        Raises:
            UsageError: the gate is closed.
            Exception: the driver's own error when the database fails twice.
        """
        connection = getattr(self._local, "connection", None) or self._connect()
        try:
            return connection.execute(sql, parameters).fetchone()
        except self._error:
            self._discard(connection)
        return self._connect().execute(sql, parameters).fetchone()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            connections = [connection for _, connection in self._open.values()]
            self._open.clear()
            self.connects += 1
        for connection in connections:
            _close_quietly(connection)

    def _connect(self) -> Any:
        with self._lock:
            if self._closed:
                raise UsageError("the store is closed")
            self._reap()
        connection = raw_connection(self._engine)
        with self._lock:
            if self._closed:
                _close_quietly(connection)
                raise UsageError("the store is closed")
            self._open[threading.get_ident()] = (threading.current_thread(), connection)
            self.connects += 1
        self._local.connection = connection
        return connection

    def _discard(self, connection: Any) -> None:
        self._local.connection = None
        with self._lock:
            self._open.pop(threading.get_ident(), None)
            self.connects += 1
        _close_quietly(connection)

    def _reap(self) -> None:
        """Close the connections of threads that have ended (caller holds the lock)."""
        for ident, (thread, connection) in list(self._open.items()):
            if not thread.is_alive():
                del self._open[ident]
                self.connects += 1
                _close_quietly(connection)


def _close_quietly(connection: Any) -> None:
    with contextlib.suppress(Exception):  # closing a connection that already broke
        connection.close()
