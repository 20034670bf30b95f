"""SQLite's change signal for gate 3 (``_wal_signal.WalSignal``): the WAL index's header reads
the same while nothing is committed and differently after every commit, of any connection, also
across checkpoints and a restarted log; whatever it cannot vouch for reads as unknown. And the
cache built on it (``store.cached`` on SQLite) is never stale, whichever connection commits."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolpool.store import SecretKey, Store
from toolpool.store._wal_signal import WalSignal

from .helpers import imported, read

COMMITS = 60


@pytest.fixture
def database(tmp_path: Path) -> Iterator[tuple[Path, sqlite3.Connection]]:
    path = tmp_path / "signal.db"
    holder = sqlite3.connect(path, isolation_level=None)  # keeps the WAL index alive, as the gate does
    try:
        holder.execute("PRAGMA journal_mode = WAL")
        holder.execute("CREATE TABLE t (n INTEGER)")
        yield path, holder
    finally:
        holder.close()


def test_the_wal_header_reads_the_same_until_another_connection_commits(
    database: tuple[Path, sqlite3.Connection],
) -> None:
    path, holder = database
    signal = WalSignal(str(path))
    assert signal.header() is None  # not armed yet: unknown
    signal.rearm()
    writer = sqlite3.connect(path, isolation_level=None)
    try:
        seen = [signal.header()]
        assert seen[0] is not None and signal.header() == seen[0]
        for n in range(COMMITS):
            writer.execute("INSERT INTO t VALUES (?)", (n,))
            if n % 10 == 9:  # a checkpoint that empties the log: the next commit restarts it
                writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            header = signal.header()
            assert header is not None and header != seen[-1], n
            assert signal.header() == header  # nothing committed since
            seen.append(header)
        assert len(set(seen)) == len(seen)
        holder.execute("SELECT count(*) FROM t").fetchone()  # a read changes nothing
        assert signal.header() == seen[-1]
    finally:
        writer.close()
        signal.close()


def test_the_wal_header_vouches_for_nothing_it_cannot_read_whole(tmp_path: Path) -> None:
    half = bytes(range(1, 49))
    cases = {
        "torn.db": half + bytes(48),  # the two copies differ: a writer was midway
        "short.db": half,  # cut short
        "uninitialised.db": bytes(48) * 2,  # isInit unset
    }
    for name, content in cases.items():
        (tmp_path / f"{name}-shm").write_bytes(content)
        signal = WalSignal(str(tmp_path / name))
        signal.rearm()
        assert signal.header() is None, name
        signal.close()
    for database in (str(tmp_path / "missing.db"), "file:x?mode=memory", None, ""):
        signal = WalSignal(database)
        signal.rearm()
        assert signal.header() is None
        signal.close()
    (tmp_path / "whole.db-shm").write_bytes(half * 2)
    signal = WalSignal(str(tmp_path / "whole.db"))
    signal.rearm()
    assert signal.header() == half
    signal.close()
    assert signal.header() is None  # closed


def test_sqlite_gate3_from_memory_is_never_stale_whichever_connection_commits(
    tmp_path: Path, key: SecretKey
) -> None:
    url = f"sqlite:///{tmp_path / 'toolpool.db'}"
    with Store.open(url, key=key) as store, Store.open(url, key=key) as other:
        store.tools.record_import("demo", [imported("lookup"), imported("other")], actor="ana")
        store.tools.sync_policy(
            "demo", {"lookup": read("demo.lookup", enabled=True), "other": read("demo.other", enabled=True)}
        )
        cached = store.cached
        direct = sqlite3.connect(tmp_path / "toolpool.db")
        try:
            for n in range(COMMITS):
                for _ in range(3):  # asked again and again between two commits
                    assert cached.is_enabled("demo", "lookup") == (n % 2 == 0), n
                    assert cached.is_enabled("demo", "other")
                    assert cached.release == direct.execute("SELECT max(number) FROM releases").fetchone()[0]
                change = other.tools.disable if n % 2 == 0 else other.tools.enable
                change("demo", "lookup", actor="bo")
                if n % 7 == 6:
                    direct.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            direct.close()


def test_a_bearer_token_from_memory_is_refused_at_once_when_another_connection_revokes_it(
    tmp_path: Path, key: SecretKey
) -> None:
    url = f"sqlite:///{tmp_path / 'toolpool.db'}"
    with Store.open(url, key=key) as store, Store.open(url, key=key) as other:
        for n in range(COMMITS // 3):
            token = other.tokens.add_token(f"t{n}", ["*"], ["*"], actor="ana")
            for _ in range(3):  # asked again and again between two commits
                holder = store.tokens.token_holder(token)
                assert holder is not None and holder.name == f"t{n}", n
            other.tokens.revoke_token(f"t{n}", actor="ana")
            assert store.tokens.token_holder(token) is None, n
            assert store.tokens.token_holder(token) is None, n


def test_tokens_nobody_holds_are_asked_each_time_and_never_kept_in_memory(
    tmp_path: Path, key: SecretKey
) -> None:
    url = f"sqlite:///{tmp_path / 'toolpool.db'}"
    with Store.open(url, key=key) as store:
        token = store.tokens.add_token("ci", ["*"], ["*"], actor="ana")
        assert store.tokens.token_holder(token) is not None
        assert store.tokens.token_holder(token) is not None
        kept = len(store.cached._kept)  # private: an unauthenticated caller must not grow it
        for n in range(500):
            assert store.tokens.token_holder(f"{token[:-8]}{n:08d}") is None
        assert len(store.cached._kept) == kept == 1
