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

SQLite: the signal would be ``PRAGMA data_version`` (it changes when another connection
commits), but measured through Python's sqlite3 it costs 70 % of the indexed query itself,
and after any commit (a call record, an audit event) the newest release must be read too:
the memory path was 1.2x the query with nothing written and 2x under a writer
(``bench/gate3_store.py``). So each answer is one query on the gate's connection, which is
never stale: every answer follows every commit made before it was asked.

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
    """SQLite: every answer is one query (see the module's docstring)."""

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

    @property
    def release(self) -> int:
        """The current release's number.

        Raises:
            UsageError: the store is closed or the database cannot answer.
        """
        if self._direct:
            return int(self._query(self._gate.version_sql, ()) or 0)
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
            try:
                return self._gate.fetchone(self._gate.enabled_sql, key) is not None
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

    def _query(self, sql: str, parameters: tuple[str, ...]) -> Any:
        """The first column of ``sql``'s first row (None without one), on the gate's connection.

        Raises:
            UsageError: the store is closed, or the database cannot answer (twice).
        """
        if self._closed:
            raise UsageError("the store is closed")
        try:
            row = self._gate.fetchone(sql, parameters)
        except UsageError:
            raise
        except Exception as exc:
            raise UsageError(f"the store cannot answer: {type(exc).__name__}") from exc
        return None if row is None else row[0]

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
