"""Gate 3 and the release number of the pool and the gateway (``store.cached``), never stale:
on SQLite every answer follows every commit made before it was asked, whichever process made
it; on PostgreSQL (answers from memory) another process's change is seen within a bounded
wait (its NOTIFY), this process's own at once, and a dropped listening connection falls back
to polling and recovers.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine

from toolpool.store import SecretKey, Store
from toolpool.store._release_listener import (
    FALLBACK_POLL_S,
    LISTENER_NAME,
    RELEASE_CHANNEL,
    SAFETY_POLL_S,
    ReleaseListener,
)

from .conftest import postgres_schema
from .helpers import imported, read, sql
from .test_concurrency import START_TIMEOUT_S, Worker

# A change by another process reaches a PostgreSQL pool by its notification, well before the
# safety poll would have found it.
NOTIFIED_S = SAFETY_POLL_S / 2
RECOVER_S = 30.0  # the listener reconnects after a backoff of at most 2 s


def _demo(store: Store) -> None:
    store.tools.record_import("demo", [imported("lookup"), imported("other")], actor="ana")
    policies = {"lookup": read("demo.lookup", enabled=True), "other": read("demo.other", enabled=True)}
    store.tools.sync_policy("demo", policies)


def _seen(store_url: str, check: Callable[[], bool], within: float = NOTIFIED_S) -> None:
    """SQLite: ``check`` holds at once. PostgreSQL: within ``within`` seconds (polled)."""
    if store_url.startswith("sqlite:"):
        assert check()
        return
    deadline = time.monotonic() + within
    while not check():
        assert time.monotonic() < deadline, f"not seen within {within} s"
        time.sleep(0.005)  # polling a bounded wait, not ordering events


@pytest.fixture
def cli(store_url: str, key: SecretKey) -> Iterator[Worker]:
    worker = Worker(store_url, key)
    try:
        worker.expect("ready", START_TIMEOUT_S)
        yield worker
    finally:
        worker.stop()


def test_gate3_from_memory_follows_every_change_another_process_commits(
    store: Store, store_url: str, cli: Worker
) -> None:
    _demo(store)
    cached = store.cached
    assert cached.is_enabled("demo", "lookup") and cached.is_enabled("demo", "other")
    release = cached.release
    assert release == store.releases.version

    # On PostgreSQL each answer may lag by one notification, so each waits on its own.
    cli.do("disable demo lookup")
    _seen(store_url, lambda: not cached.is_enabled("demo", "lookup"))
    _seen(store_url, lambda: cached.release == release + 1)
    assert cached.is_enabled("demo", "other")

    cli.do("enable demo lookup")
    _seen(store_url, lambda: cached.is_enabled("demo", "lookup"))
    _seen(store_url, lambda: cached.release == release + 2)

    cli.do("disable-server demo")
    _seen(store_url, lambda: not cached.is_enabled("demo", "other"))
    _seen(store_url, lambda: not cached.is_enabled("demo", "lookup"))
    _seen(store_url, lambda: cached.release == release + 3 == store.releases.version)


def test_gate3_from_memory_follows_this_process_own_changes_at_once(store: Store) -> None:
    _demo(store)
    cached = store.cached
    assert cached.is_enabled("demo", "lookup")
    store.tools.disable("demo", "lookup", actor="ana")
    assert not cached.is_enabled("demo", "lookup")
    assert cached.release == store.releases.version
    store.tools.enable("demo", "lookup", actor="ana")
    assert cached.is_enabled("demo", "lookup")
    store.tools.set_server_enabled("demo", False, actor="ana")
    assert not cached.is_enabled("demo", "other")


def test_gate3_from_memory_knows_no_tool_the_store_does_not(store: Store) -> None:
    _demo(store)
    assert not store.cached.is_enabled("demo", "nothing")
    assert not store.cached.is_enabled("nobody", "lookup")


def test_a_closed_store_refuses_gate3_from_memory(store: Store) -> None:
    _demo(store)
    assert store.cached.is_enabled("demo", "lookup")
    store.close()
    with pytest.raises(Exception, match="closed"):
        store.cached.is_enabled("demo", "lookup")


def test_a_sqlite_store_restored_to_another_state_with_the_same_release_number_is_seen(
    tmp_path: Path, key: SecretKey
) -> None:
    live, backup = tmp_path / "toolpool.db", tmp_path / "backup.db"
    with (
        Store.open(f"sqlite:///{live}", key=key) as store,
        Store.open(f"sqlite:///{backup}", key=key) as other,
    ):
        _demo(store)
        other.tools.record_import("demo", [imported("lookup"), imported("other")], actor="ana")
        other.tools.sync_policy("demo", {"lookup": read("demo.lookup"), "other": read("demo.other")})
        assert store.releases.version == other.releases.version  # same number, other content
        assert store.cached.is_enabled("demo", "lookup")
        source, target = sqlite3.connect(backup), sqlite3.connect(live)
        try:
            source.backup(target)  # SQLite's online backup API: a restore in place
        finally:
            source.close()
            target.close()
        assert not store.cached.is_enabled("demo", "lookup")


def test_postgresql_a_dropped_listening_connection_reconnects_and_misses_nothing(key: SecretKey) -> None:
    with postgres_schema() as url, Store.open(url, key=key) as store:
        _demo(store)
        cached = store.cached
        assert cached.is_enabled("demo", "lookup")  # starts the listener
        schema = sql(url, "SELECT current_schema()")[0][0]
        name = f"{LISTENER_NAME} {schema}"[:63]
        listening = (
            "SELECT pid FROM pg_stat_activity WHERE application_name = ? AND query = ?",
            (name, f"LISTEN {RELEASE_CHANNEL}"),
        )
        _seen(url, lambda: len(sql(url, *listening)) == 1, RECOVER_S)
        (first,) = sql(url, *listening)[0]
        terminate = "SELECT pg_terminate_backend(?)"
        assert sql(url, terminate, (first,)) == [(True,)]
        with Store.open(url, key=key) as elsewhere:  # another store: only its NOTIFY or a poll tells
            # Committed while nobody listens, and not asked for until the listener is back:
            # its notification is lost, and the reader must see it all the same.
            elsewhere.tools.disable("demo", "lookup", actor="bo")
            _seen(url, lambda: [row for row in sql(url, *listening) if row[0] != first] != [], RECOVER_S)
            assert not cached.is_enabled("demo", "lookup")
            elsewhere.tools.disable("demo", "other", actor="bo")
            _seen(url, lambda: not cached.is_enabled("demo", "other"))  # by its notification again


def test_postgresql_while_the_listener_cannot_connect_the_stamp_moves_every_poll_period() -> None:
    engine = create_engine("postgresql+psycopg://nobody@127.0.0.1:1/test?connect_timeout=1")
    listener = ReleaseListener(engine)
    try:
        assert not listener.up
        first = listener.stamp()
        deadline = time.monotonic() + 10 * FALLBACK_POLL_S
        while listener.stamp() == first:
            assert time.monotonic() < deadline, "the stamp never moved: a change would never be read"
            time.sleep(FALLBACK_POLL_S / 10)
    finally:
        listener.close()
        engine.dispose()
