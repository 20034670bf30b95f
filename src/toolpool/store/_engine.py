"""Connecting to the database: engine setup per dialect, migrations, and the write lock.

SQLite runs in WAL mode (readers never wait for the writer) with foreign keys on and a busy
timeout. pysqlite's own transaction handling is switched off so that the store says exactly
when a transaction begins: every write transaction starts with ``BEGIN IMMEDIATE``, which
takes SQLite's single write lock up front, so two processes never both read the audit head
and then race to append. On PostgreSQL the same serialization comes from a row lock on the
one ``store_head`` row, taken first by every write transaction (see ``Database.write``).
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, create_engine, event, inspect, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError
from sqlalchemy.pool import ConnectionPoolEntry

from toolpool.errors import UsageError
from toolpool.store._sqlite_read import SQLITE_BUSY_TIMEOUT_S
from toolpool.store._tables import ALEMBIC_VERSION_TABLE, SCHEMA_HEAD

if TYPE_CHECKING:
    from alembic.config import Config as AlembicConfig

__all__ = [
    "MIGRATIONS",
    "READ_ONLY",
    "alembic_config",
    "connect_engine",
    "first_line",
    "migrate",
    "parse_url",
    "raw_connection",
]

MIGRATIONS = Path(__file__).with_name("migrations")
# Execution option that marks a read transaction: on SQLite it begins DEFERRED, not IMMEDIATE.
READ_ONLY = "toolpool_read_only"
# The hot reads (gate 3, the release number, bearer tokens) run on the event loop: on
# PostgreSQL a server that stops answering fails them after this long instead of holding it.
HOT_READ_TIMEOUT_S = 5
# Serializes migrations of one PostgreSQL database across processes (pg_advisory_xact_lock).
_MIGRATION_LOCK = zlib.crc32(b"toolpool.store.migrate")


def parse_url(url: str) -> URL:
    """The URL, checked to be one the store supports.

    Raises:
        UsageError: not a URL, or not ``sqlite:///...`` / ``postgresql+psycopg://...``.
    """
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise UsageError("not a database URL: use sqlite:///PATH or postgresql+psycopg://...") from exc
    if parsed.drivername == "sqlite":
        if parsed.database in (None, "", ":memory:"):
            raise UsageError("the store needs a SQLite file (sqlite:///path/toolpool.db), not :memory:")
        return parsed
    if parsed.drivername in ("postgresql+psycopg", "postgresql"):
        return parsed.set(drivername="postgresql+psycopg")
    shown = parsed.render_as_string(hide_password=True)
    raise UsageError(f"unsupported store URL {shown!r}: use sqlite:///PATH or postgresql+psycopg://...")


def connect_engine(url: URL) -> Engine:
    """An engine for ``url`` with the store's per-dialect connection setup."""
    if url.get_backend_name() == "sqlite":
        _create_private(url.database)
        engine = create_engine(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S})
        event.listen(engine, "connect", _sqlite_connect)
        event.listen(engine, "begin", _sqlite_begin)
        return engine
    try:
        # No pool_pre_ping: it costs three round trips per transaction. A connection that a
        # restart dropped fails once; the pool then replaces all of them (``Database.write``
        # retries that one failure, since nothing was written yet).
        return create_engine(url)
    except NoSuchModuleError as exc:  # pragma: no cover - psycopg is a dependency
        raise UsageError(f"no driver for {url.drivername}") from exc


def _create_private(database: str | None) -> None:
    """Create a missing SQLite file readable by its owner only, before SQLite opens it.

    SQLite gives the ``-wal`` and ``-shm`` files the database file's mode, so they are 0600
    too; the process umask stays as it is (a library does not change it). A file that exists
    keeps the mode its owner gave it: a store shared with a backup group stays shared. When
    the file cannot be made here (no such folder, no permission), SQLite tries and says why.
    """
    if not database or database.startswith("file:"):
        return
    try:
        os.close(os.open(database, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600))
    except OSError:
        return


def raw_connection(engine: Engine, *, writer: bool = False) -> Any:
    """A DBAPI connection of its own, outside the engine's pool, in autocommit mode: each
    statement sees everything committed before it, and no transaction is ever left open; on
    PostgreSQL connecting and each statement are bounded by ``HOT_READ_TIMEOUT_S``.

    ``writer``: a connection for the batch writer instead (``_batch``): it may write, begins
    its transactions itself (``BEGIN IMMEDIATE`` on SQLite; PostgreSQL's first statement opens
    one) and waits for the write lock as long as the engine's connections do."""
    cargs, cparams = engine.dialect.create_connect_args(engine.url)
    if engine.dialect.name == "sqlite":
        cparams.update(check_same_thread=False, isolation_level=None, timeout=SQLITE_BUSY_TIMEOUT_S)
        connection: Any = engine.dialect.connect(*cargs, **cparams)
        if writer:
            _sqlite_connect(connection, None)
        else:
            connection.execute(f"PRAGMA busy_timeout = {int(SQLITE_BUSY_TIMEOUT_S * 1000)}")
            connection.execute("PRAGMA query_only = 1")
        return connection
    bound = f"-c statement_timeout={int((SQLITE_BUSY_TIMEOUT_S if writer else HOT_READ_TIMEOUT_S) * 1000)}"
    cparams["options"] = f"{cparams['options']} {bound}" if cparams.get("options") else bound
    cparams.setdefault("connect_timeout", HOT_READ_TIMEOUT_S)
    connection = engine.dialect.connect(*cargs, **cparams)
    connection.autocommit = not writer
    return connection


def first_line(exc: BaseException) -> str:
    """The first line of what a driver said."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _sqlite_connect(dbapi_connection: Any, _record: ConnectionPoolEntry | None) -> None:
    dbapi_connection.isolation_level = None  # the "begin" listener below starts transactions
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {int(SQLITE_BUSY_TIMEOUT_S * 1000)}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")  # WAL's recommended pairing: no fsync per commit
        cursor.execute("PRAGMA foreign_keys = ON")
    finally:
        cursor.close()


def _sqlite_begin(connection: Connection) -> None:
    read_only = connection.get_execution_options().get(READ_ONLY, False)
    connection.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")


def alembic_config(connection: Connection | None = None) -> AlembicConfig:
    """Alembic's configuration for the migrations shipped in this package."""
    from alembic.config import Config as AlembicConfig

    config = AlembicConfig()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("path_separator", "os")
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def migrate(engine: Engine) -> None:
    """Upgrade the database to the newest revision, once, even with several processes opening it.

    Alembic is imported only when there is something to do: a store that is up to date opens
    without it (every CLI command opens the store).
    """
    with engine.connect().execution_options(**{READ_ONLY: True}) as connection, connection.begin():
        if _revision(connection) == SCHEMA_HEAD:
            return
    from alembic import command
    from alembic.util.exc import CommandError

    with _migration_lock(engine) as connection:
        revision = _revision(connection)
        if revision != SCHEMA_HEAD:
            try:
                command.upgrade(alembic_config(connection), "head")
            except CommandError as exc:  # e.g. a revision a newer toolpool wrote: say so in one line
                raise UsageError(
                    f"the store's schema (revision {revision}) cannot be upgraded by this toolpool, "
                    f"whose newest is {SCHEMA_HEAD}: was it written by a newer toolpool? ({exc})"
                ) from exc


def _revision(connection: Connection) -> str | None:
    if not inspect(connection).has_table(ALEMBIC_VERSION_TABLE):
        return None
    revision = connection.scalar(text(f"SELECT version_num FROM {ALEMBIC_VERSION_TABLE}"))  # noqa: S608
    return None if revision is None else str(revision)


@contextmanager
def _migration_lock(engine: Engine) -> Iterator[Connection]:
    with engine.begin() as connection:  # SQLite: BEGIN IMMEDIATE
        if engine.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})
        yield connection
