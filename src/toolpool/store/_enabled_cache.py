"""Gate 3 and the release number from memory, asked of the store again only on a change signal.

Every change to what is enabled commits a new release in the same transaction
(``write_release``), so the newest release — its number and the moment it was made — says whether
any answer may have changed. A cheap *stamp* says whether the newest release may have:

- SQLite: ``PRAGMA data_version`` on a connection of the cache's own; it changes whenever
  another connection (another process, or this process's writer) committed, and the file's
  identity (device, inode) catches a store that was deleted and created again. Nothing is
  stale: every answer follows every commit made before it was asked.
- PostgreSQL: a count of the ``NOTIFY`` every release sends (``ReleaseListener``), plus this
  process's own commits; see ``_release_listener`` for the bounded staleness of other
  processes' changes (a notification's delivery; at most ``FALLBACK_POLL_S`` while the
  listener is down, ``SAFETY_POLL_S`` if notifications are lost silently).

When the stamp moved, the newest release is read; when it differs from the one remembered,
the remembered answers are forgotten and each (alias, tool) is asked again on its next use,
one indexed row each — a change never reloads the whole set, whatever its size. If the
database cannot answer, gate 3 answers False (fails closed) and ``release`` raises.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Hashable
from typing import Any, Protocol

from sqlalchemy import Engine

from toolpool.errors import UsageError
from toolpool.store._engine import raw_connection
from toolpool.store._gate import Gate
from toolpool.store._release_listener import ReleaseListener

__all__ = ["EnabledCache"]

# Answers kept between two releases; more distinct (alias, tool) pairs than this start over.
_MAX_ANSWERS = 1 << 18
# Not content_hash: it is stored after the content, so reading it walks the content's
# overflow pages (megabytes with many tools); the moment tells two releases of one number apart.
_DATA_VERSION_SQL = "PRAGMA data_version"
_HEAD_SQL = "SELECT number, created_at FROM releases ORDER BY number DESC LIMIT 1"


class _Source(Protocol):
    def stamp(self) -> Hashable: ...
    def fetchone(self, sql: str, parameters: tuple[Any, ...] = ()) -> Any: ...
    def close(self) -> None: ...


class EnabledCache:
    """``store.cached``: gate 3 (``is_enabled``) and the release number (``release``), never
    stale on SQLite and stale by a bounded time on PostgreSQL; thread-safe."""

    def __init__(self, engine: Engine, gate: Gate, commits: Callable[[], int]) -> None:
        self._engine = engine
        self._gate = gate
        self._commits = commits
        self._source: _Source | None = None  # opened on first use: CLI commands never pay
        self._lock = threading.Lock()
        self._stamp: Hashable = object()  # equal to no stamp: the first use reads the release
        self._head: tuple[int, str] | None = None
        self._answers: dict[tuple[str, str], bool] = {}
        self._closed = False

    @property
    def release(self) -> int:
        """The current release's number.

        Raises:
            UsageError: the store is closed or the database cannot answer.
        """
        with self._lock:
            head = self._fresh()
        if head is None:
            raise UsageError("the store cannot tell its current release")
        return head[0]

    def is_enabled(self, alias: str, name: str) -> bool:
        """Gate 3: whether the tool and its server are enabled; False when the database
        cannot answer.

        Raises:
            UsageError: the store is closed.
        """
        key = (alias, name)
        with self._lock:
            if self._fresh() is None:
                return False
            answer = self._answers.get(key)
            if answer is None:
                try:
                    answer = self._source_().fetchone(self._gate.enabled_sql, key) is not None
                except UsageError:
                    raise
                except Exception:
                    self._forget()
                    return False
                if len(self._answers) >= _MAX_ANSWERS:
                    self._answers.clear()
                self._answers[key] = answer
            return answer

    def close(self) -> None:
        with self._lock:
            self._closed = True
            source, self._source = self._source, None
            self._forget()
        if source is not None:
            source.close()

    def _fresh(self) -> tuple[int, str] | None:
        """The newest release, read again if the stamp moved (caller holds the lock)."""
        try:
            source = self._source_()
            # The stamp first: a commit between the two reads moves it again for the next call.
            stamp = source.stamp()
            if stamp == self._stamp:
                return self._head
            row = source.fetchone(_HEAD_SQL)
        except UsageError:
            raise
        except Exception:
            self._forget()
            return None
        head = (0, "") if row is None else (int(row[0]), str(row[1]))
        if head != self._head:
            self._answers.clear()
            self._head = head
        self._stamp = stamp
        return head

    def _forget(self) -> None:
        self._stamp, self._head = object(), None
        self._answers.clear()

    def _source_(self) -> _Source:
        if self._closed:
            raise UsageError("the store is closed")
        if self._source is None:
            if self._engine.dialect.name == "sqlite":
                self._source = DataVersion(self._engine, self._engine.url.database)
            else:
                self._source = Notified(self._engine, self._gate, self._commits)
        return self._source


class DataVersion:
    """SQLite's signal: ``PRAGMA data_version`` and the file's identity, on one connection of
    its own (``data_version`` compares only within one connection); the cache's reads run on
    it too, so a store created again at the same path is read from the new file."""

    def __init__(self, engine: Engine, path: str | None) -> None:
        self._engine = engine
        self._path = path if path and not path.startswith("file:") else None
        self._identity = self._file()
        self._connection: Any = raw_connection(engine)

    def stamp(self) -> Hashable:
        identity = self._file()
        if identity != self._identity:  # another file now: its data_version starts afresh
            if identity is None:  # no file: refuse, rather than let SQLite create an empty one
                raise FileNotFoundError(self._path)
            self._reopen()
            self._identity = identity
        return (identity, self._connection.execute(_DATA_VERSION_SQL).fetchone()[0])

    def fetchone(self, sql: str, parameters: tuple[Any, ...] = ()) -> Any:
        return self._connection.execute(sql, parameters).fetchone()

    def close(self) -> None:
        with contextlib.suppress(Exception):  # closing a connection that already broke
            self._connection.close()

    def _file(self) -> tuple[int, int] | None:
        if self._path is None:
            return None
        try:
            found = os.stat(self._path)
        except OSError:
            return None  # gone: the next read fails, and gate 3 with it (closed)
        return (found.st_dev, found.st_ino)

    def _reopen(self) -> None:
        self.close()
        self._connection = raw_connection(self._engine)


class Notified:
    """PostgreSQL's signal: the listener's count, and this process's own commits (seen at
    once, without waiting for their notification); reads run on the gate's connections."""

    def __init__(self, engine: Engine, gate: Gate, commits: Callable[[], int]) -> None:
        self._gate = gate
        self._commits = commits
        self._listener = ReleaseListener(engine)

    def stamp(self) -> Hashable:
        return (self._listener.stamp(), self._commits())

    def fetchone(self, sql: str, parameters: tuple[Any, ...] = ()) -> Any:
        return self._gate.fetchone(sql, parameters)

    def close(self) -> None:
        self._listener.close()
