"""Gate 3 and the release number for the pool and the gateway: from memory on PostgreSQL,
asked again only on a change signal; by one query each on SQLite, where that is cheaper.

PostgreSQL: every change to what is enabled commits a new release in the same transaction
(``write_release``), which sends a ``NOTIFY``. A *stamp* — the count of those notifications
(``ReleaseListener``) and this process's own commits — says whether the newest release may
have changed; only then is it read (its number and the moment it was made), and when it
differs from the one remembered, the remembered answers are forgotten and each (alias, tool)
is asked again on its next use, one indexed row each: a change never reloads the whole set,
whatever its size. Another process's change is seen within a notification's delivery, at
most ``FALLBACK_POLL_S`` while the listener is down, ``SAFETY_POLL_S`` if notifications are
lost silently (see ``_release_listener``); this process's own changes at once.

SQLite: the signal is the header of the WAL index (``_wal_signal``): every commit of every
connection rewrites it, and one ``pread`` reads it for a tenth of an indexed query (``PRAGMA
data_version``, the SQL way to ask the same, costs 70 % of the query through Python's sqlite3,
which is why this path once queried on every answer; ``bench/gate3_store.py``). Each answer
is kept with the header read *before* the query that made it, and given again only while the
header reads the same and the gate's connections stayed open: nothing can have been committed
since the query, so an answer is never stale. Any other state — a header caught mid-write, no
WAL index, a connection replaced — and the answer is one query on the gate's connection, as
before.

If the database cannot answer, gate 3 answers False (fails closed) and ``release`` raises.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any, Protocol

from sqlalchemy import Engine

from toolpool.errors import UsageError
from toolpool.store._gate import Gate
from toolpool.store._release_listener import ReleaseListener
from toolpool.store._wal_signal import WalSignal

__all__ = ["EnabledCache"]

# Answers kept between two releases; more distinct (alias, tool) pairs than this start over.
_MAX_ANSWERS = 1 << 18
# Not content_hash: it is stored after the content, so reading it walks the content's
# overflow pages (megabytes with many tools); the moment tells two releases of one number apart.
_HEAD_SQL = "SELECT number, created_at FROM releases ORDER BY number DESC LIMIT 1"


class _Source(Protocol):
    def stamp(self) -> Hashable: ...
    def fetchone(self, sql: str, parameters: tuple[Any, ...] = ()) -> Any: ...
    def close(self) -> None: ...


class EnabledCache:
    """``store.cached``: gate 3 (``is_enabled``) and the release number (``release``), never
    stale on SQLite and stale by a bounded time on PostgreSQL; thread-safe."""

    _direct: bool
    """SQLite: an answer is kept only under the WAL index's header (see the module's docstring)."""

    def __init__(self, engine: Engine, gate: Gate, commits: Callable[[], int]) -> None:
        self._engine = engine
        self._gate = gate
        self._commits = commits
        self._direct = engine.dialect.name == "sqlite"
        self._source: _Source | None = None  # opened on first use: CLI commands never pay
        self._lock = threading.Lock()
        self._stamp: Hashable = object()  # equal to no stamp: the first use reads the release
        self._head: tuple[int, str] | None = None
        self._answers: dict[tuple[str, str], bool] = {}
        self._closed = False
        # SQLite: (header, answer) by question, and the ``Gate.connects`` the signal was armed at.
        self._wal = WalSignal(engine.url.database if self._direct else None)
        self._kept: dict[Hashable, tuple[bytes, Any]] = {}
        self._armed = -1

    @property
    def release(self) -> int:
        """The current release's number.

        Raises:
            UsageError: the store is closed or the database cannot answer.
        """
        if self._direct:
            if self._closed:
                raise UsageError("the store is closed")
            try:
                row = self._remembered("release", self._gate.version_sql, ())
            except UsageError:
                raise
            except Exception as exc:
                raise UsageError(f"the store cannot answer: {type(exc).__name__}") from exc
            return int((row[0] if row is not None else None) or 0)
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
        if self._direct:
            if self._closed:
                raise UsageError("the store is closed")
            if self._armed == self._gate.connects:  # ``_remembered``'s answer from memory, inline
                kept = self._kept.get(key)
                if kept is not None and kept[0] == self._wal.header():
                    return kept[1] is not None
            try:
                return self._remembered(key, self._gate.enabled_sql, key) is not None
            except UsageError:
                raise
            except Exception:
                return False
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

    def found_row(self, sql: str, parameters: tuple[str, ...]) -> Any:
        """The first row of ``sql`` on the gate's connection, or None: on SQLite a row found
        is given again from memory while no commit happened since (a row not found is asked
        again each time, so unknown keys cannot fill memory); on PostgreSQL always asked.

        Raises:
            UsageError: the store is closed.
            Exception: the driver's own error when the database fails.
        """
        if self._closed:
            raise UsageError("the store is closed")
        if not self._direct:
            return self._gate.fetchone(sql, parameters)
        return self._remembered(("row", sql, parameters), sql, parameters, keep_missing=False)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            source, self._source = self._source, None
            self._forget()
            self._kept.clear()
        self._wal.close()
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

    def _remembered(
        self, question: Hashable, sql: str, parameters: tuple[str, ...], *, keep_missing: bool = True
    ) -> Any:
        """The first row of ``sql`` (or None) on the gate's connection, kept under the WAL
        index's header read before it, and given again while that header stays the same.

        Lock-free: an answer is stored with the header it was asked under and given only for
        that header, so two threads can at worst ask again.

        Raises:
            UsageError: the gate is closed.
            Exception: the driver's own error when the database fails twice.
        """
        armed = self._armed == self._gate.connects
        header = self._wal.header() if armed else None
        if header is not None:
            kept = self._kept.get(question)
            if kept is not None and kept[0] == header:
                return kept[1]
        answer = self._gate.fetchone(sql, parameters)
        connects = self._gate.connects
        if header is not None and connects == self._armed and (keep_missing or answer is not None):
            if len(self._kept) >= _MAX_ANSWERS:
                self._kept.clear()
            self._kept[question] = (header, answer)
        elif connects != self._armed:
            # A gate connection holds the database open now (it just answered), so the index
            # file opened now is the one it maps; until it is replaced, the header can vouch.
            self._wal.rearm()
            self._armed = connects
        return answer

    def _forget(self) -> None:
        self._stamp, self._head = object(), None
        self._answers.clear()

    def _source_(self) -> _Source:
        if self._closed:
            raise UsageError("the store is closed")
        if self._source is None:
            self._source = Notified(self._engine, self._gate, self._commits)
        return self._source


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
