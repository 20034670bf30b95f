"""The database every concern of the store shares: short reads, serialized writes, hot reads.

A write transaction (``Database.write``) takes the lock first — SQLite's ``BEGIN IMMEDIATE``,
PostgreSQL's row lock on ``store_head`` — and yields a ``Tx``: its connection, the locked head,
and the moment it stands for. Audit events are appended inside it, redacted with every stored
secret's value, so a change and its event commit together or not at all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, select
from sqlalchemy.engine import URL
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError, SQLAlchemyError

from toolpool.errors import UsageError
from toolpool.redaction import Redactor
from toolpool.store import _audit_chain
from toolpool.store._audit_chain import AuditKey, Head
from toolpool.store._batch import BatchWriter
from toolpool.store._codec import now, plain
from toolpool.store._crypto import SecretKey
from toolpool.store._enabled_cache import EnabledCache
from toolpool.store._engine import READ_ONLY, first_line
from toolpool.store._gate import Gate
from toolpool.store._tables import secrets, store_head
from toolpool.store._values import AuditEntry

__all__ = ["Database", "Tx", "reason"]


@dataclass(slots=True)
class Tx:
    """One write transaction: its connection, the locked head, and the moment it stands for."""

    connection: Connection
    head: Head
    at: datetime
    database: Database

    def append(self, actor: str, action: str, resource: str, detail: Mapping[str, object]) -> None:
        """Append an audit event to the chain, every secret value redacted."""
        redact = self.redactor()
        clean = redact.redact_value(plain(detail))
        _audit_chain.append(
            self.connection, self.head, self.at, redact(actor), action, redact(resource), clean
        )

    def append_many(self, events: Sequence[AuditEntry], *, already_plain: bool = False) -> None:
        """Append audit events in order, every secret value redacted. ``already_plain``: every
        detail is plain JSON data already (``_codec.plain`` would return it as it is), which
        spares that walk over every value (a first sync's 100,000 tools)."""
        entries = _audit_chain.redacted(self.redactor(), events, already_plain=already_plain)
        _audit_chain.append_many(self.connection, self.head, self.at, entries)

    def redactor(self) -> Redactor:
        """The redactor of the secrets as this transaction sees them."""
        return self.database.redactor(self.head.secrets_version, self.connection)


class Database:
    """The engine, the key, the gate's raw connections and the secrets' redactor, shared by
    every concern of one ``Store``."""

    def __init__(self, engine: Engine, url: URL, key: SecretKey | None) -> None:
        self.engine = engine
        self.url = url
        self.key = key
        self.audit_key = None if key is None else AuditKey(key)
        self.gate = Gate(engine)
        self.commits = 0  # write transactions this process committed: the cache's own signal
        self.cached = EnabledCache(engine, self.gate, lambda: self.commits)
        self.batch = BatchWriter(self)
        self._redactor: tuple[int, Redactor] | None = None
        self._closed = False

    @property
    def display(self) -> str:
        """The database URL with any password hidden."""
        return self.url.render_as_string(hide_password=True)

    def close(self) -> None:
        """Release every connection; calling it again does nothing."""
        if self._closed:
            return
        self._closed = True
        self.cached.close()
        self.gate.close()
        self.batch.close()
        self.engine.dispose()

    def check_open(self) -> None:
        if self._closed:
            raise UsageError("the store is closed")

    # -- hot reads (the gate's raw connection) ---------------------------------------------

    def hot(self, sql: str) -> Any:
        """The first column of the first row of ``sql``, on this thread's raw connection."""
        return self.hot_row(sql)[0]

    def hot_row(self, sql: str, parameters: tuple[Any, ...] = ()) -> Any:
        """The first row of ``sql`` (None if there is none), on this thread's raw connection."""
        return self._asked(self.gate.fetchone, sql, parameters)

    def found_row(self, sql: str, parameters: tuple[Any, ...] = ()) -> Any:
        """``hot_row``, a row found given again from memory while nothing was committed since
        (SQLite; ``EnabledCache.found_row``)."""
        return self._asked(self.cached.found_row, sql, parameters)

    def _asked(
        self, ask: Callable[[str, tuple[Any, ...]], Any], sql: str, parameters: tuple[Any, ...]
    ) -> Any:
        """``ask(sql, parameters)`` on an open store; the driver's failures become UsageError."""
        self.check_open()
        try:
            return ask(sql, parameters)
        except UsageError:
            raise
        except Exception as exc:
            raise UsageError(f"the store at {self.display} failed: {first_line(exc)}") from exc

    # -- transactions ----------------------------------------------------------------------

    @contextmanager
    def guard(self) -> Iterator[None]:
        """Refuse a closed store; the database's operational failures become UsageError."""
        self.check_open()
        try:
            yield
        except DBAPIError as exc:
            if exc.connection_invalidated or isinstance(exc, OperationalError | InterfaceError):
                raise UsageError(f"the store at {self.display} failed: {reason(exc)}") from exc
            raise

    @contextmanager
    def read(self, *, snapshot: bool = False) -> Iterator[Connection]:
        with self.guard(), self.engine.connect() as connection:
            options: dict[str, Any] = {READ_ONLY: True}
            if snapshot and connection.dialect.name == "postgresql":
                options["isolation_level"] = "REPEATABLE READ"
            connection = connection.execution_options(**options)
            with connection.begin():
                yield connection

    @contextmanager
    def write(self) -> Iterator[Tx]:
        with self.guard():
            connection, head = self._begin_write()
            try:
                yield Tx(connection, head, now(), self)
                connection.commit()
                self.commits += 1
            finally:
                connection.close()  # rolls back what was not committed

    def _begin_write(self) -> tuple[Connection, Head]:
        """A connection in a write transaction that holds the lock. A connection the database
        dropped (a restart) is replaced once: nothing was written on it yet."""
        for attempt in range(2):
            connection = self.engine.connect()
            try:
                connection.begin()  # SQLite: BEGIN IMMEDIATE
                # PostgreSQL: this row lock serializes every writer, as BEGIN IMMEDIATE does.
                locked = select(store_head).where(store_head.c.id == 1).with_for_update()
                row = connection.execute(locked).one_or_none()
                head = Head.of(row, self.audit_key)
            except DBAPIError as exc:
                connection.close()
                if attempt or not exc.connection_invalidated:
                    raise
                continue
            except UsageError:
                connection.close()
                raise
            return connection, head
        raise AssertionError("unreachable")

    # -- the secrets' redactor -------------------------------------------------------------

    def redactor(self, secrets_version: int, connection: Connection | None = None) -> Redactor:
        """The redactor of ``secrets_version``, loaded again when the secrets changed (over
        ``connection``, or a read of its own)."""
        if connection is not None:
            return self.redactor_of(secrets_version, lambda: _secret_rows(connection))
        if self._redactor is None or self._redactor[0] != secrets_version:
            with self.read() as own:
                return self.redactor_of(secrets_version, lambda: _secret_rows(own))
        return self._redactor[1]

    def redactor_of(self, secrets_version: int, rows: Callable[[], Iterable[Sequence[Any]]]) -> Redactor:
        """``redactor`` for a caller with a connection of another kind: ``rows()`` gives every
        (name, token) row of ``secrets``, asked only when the secrets changed."""
        if self._redactor is None or self._redactor[0] != secrets_version:
            self._redactor = (secrets_version, self._load_redactor(rows))
        return self._redactor[1]

    def _load_redactor(self, rows: Callable[[], Iterable[Sequence[Any]]]) -> Redactor:
        if self.key is None:
            return Redactor({})
        # Every row: a per-principal secret has one value per principal, all redacted.
        values = []
        for name, token in rows():
            try:
                values.append((name, self.key.decrypt(token, name)))
            except UsageError:
                continue  # not readable with this key: this process never had its value
        return Redactor(values)


def _secret_rows(connection: Connection) -> Iterable[Sequence[Any]]:
    return connection.execute(select(secrets.c.name, secrets.c.token)).all()


def reason(exc: SQLAlchemyError) -> str:
    """The first line of what the driver said."""
    return first_line(getattr(exc, "orig", None) or exc)
