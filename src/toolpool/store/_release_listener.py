"""PostgreSQL's change signal: a thread that LISTENs for the NOTIFY every new release sends.

``write_release`` sends ``NOTIFY toolpool_release`` (the payload: the store's schema) in the
transaction that writes the release, so PostgreSQL delivers it when, and only if, the change
commits. The listener counts the notifications meant for its schema; a reader compares the
count with the one it saw last (``stamp``) and asks the store again only when it moved.

Notifications sent while the listening connection is down are lost, so the listener bumps
the count each time it (re)connects — after its ``LISTEN`` took effect, so no commit falls
in between — and, while it is down, ``stamp`` changes every ``FALLBACK_POLL_S`` instead: the
reader polls. Reconnecting backs off from ``_FIRST_BACKOFF_S`` to ``_MAX_BACKOFF_S``.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Hashable
from typing import Any

from sqlalchemy import Engine

from toolpool.store._engine import HOT_READ_TIMEOUT_S

__all__ = ["FALLBACK_POLL_S", "LISTENER_NAME", "RELEASE_CHANNEL", "SAFETY_POLL_S", "ReleaseListener"]

RELEASE_CHANNEL = "toolpool_release"
# The listening connection's application_name (with its schema): operators can tell it apart.
LISTENER_NAME = "toolpool listen"
# While the listener is down the reader asks for the release at most this often: a change
# committed then is seen within this long (plus one query).
FALLBACK_POLL_S = 0.1
# While it is up the reader still asks this often: a notification lost without the
# connection failing visibly (a silent network, a writer that never notifies) costs at most
# this much staleness.
SAFETY_POLL_S = 2.0
# How often the listening thread looks up from waiting to see whether it should stop: closing
# a store waits up to this long for it.
_WAKE_S = 0.1
_FIRST_BACKOFF_S = 0.05
_MAX_BACKOFF_S = 2.0
# Closing waits this long for the thread; it is a daemon, so a stuck one never holds the exit.
_JOIN_S = 5.0


class ReleaseListener:
    """One thread and one connection of the store's, listening for new releases."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._count = 0  # written by the thread only: a read from another thread is atomic
        self._up = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="toolpool-release-listener", daemon=True)
        self._thread.start()

    def stamp(self) -> Hashable:
        """Changes whenever a release may have been committed since the last call (see the
        module's docstring for how soon)."""
        period = SAFETY_POLL_S if self._up else FALLBACK_POLL_S
        return (self._count, self._up, int(time.monotonic() / period))

    @property
    def up(self) -> bool:
        """Whether the listening connection is up now (else the reader polls)."""
        return self._up

    def close(self) -> None:
        self._stop.set()
        self._thread.join(_JOIN_S)

    def _run(self) -> None:
        backoff = _FIRST_BACKOFF_S
        while not self._stop.is_set():
            try:
                connection, schema = self._listen()
            except Exception:  # down: the reader polls; try again after the backoff
                self._stop.wait(backoff)
                backoff = min(2 * backoff, _MAX_BACKOFF_S)
                continue
            backoff = _FIRST_BACKOFF_S
            try:
                self._count += 1  # what was committed while nobody listened: look once
                self._up = True
                with contextlib.suppress(Exception):  # it broke: a restart, pg_terminate_backend
                    self._wait(connection, schema)
            finally:
                self._up = False
                with contextlib.suppress(Exception):  # it may be broken already
                    connection.close()

    def _wait(self, connection: Any, schema: str) -> None:
        while not self._stop.is_set():
            for notify in connection.notifies(timeout=_WAKE_S):
                if notify.payload == schema:
                    self._count += 1

    def _listen(self) -> tuple[Any, str]:
        cargs, cparams = self._engine.dialect.create_connect_args(self._engine.url)
        cparams.setdefault("connect_timeout", HOT_READ_TIMEOUT_S)
        connection: Any = self._engine.dialect.connect(*cargs, **cparams)
        try:
            connection.autocommit = True
            schema = str(connection.execute("SELECT current_schema()").fetchone()[0])
            name = f"{LISTENER_NAME} {schema}"[:63]
            connection.execute("SELECT set_config('application_name', %s, false)", (name,))
            connection.execute(f"LISTEN {RELEASE_CHANNEL}")
        except BaseException:
            connection.close()
            raise
        return connection, schema
