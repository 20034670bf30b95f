"""Gate 3's answer from memory on SQLite, given inline by ``is_enabled``: asked again only after
a commit (of any connection), and never stale — the same answer a query gives, every time."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from toolpool.store import SecretKey, Store

from .helpers import imported, read

ROUNDS = 40


def test_gate3_from_memory_queries_once_per_commit_and_always_agrees_with_the_database(
    tmp_path: Path, key: SecretKey
) -> None:
    url = f"sqlite:///{tmp_path / 'toolpool.db'}"
    with Store.open(url, key=key) as store, Store.open(url, key=key) as other:
        store.tools.record_import("demo", [imported("lookup")], actor="ana")
        store.tools.sync_policy("demo", {"lookup": read("demo.lookup", enabled=True)})
        cached = store.cached
        gate = cached._gate
        asked: list[str] = []
        fetchone = gate.fetchone

        def counted(sql: str, parameters: tuple[str, ...] = ()) -> object:
            asked.append(sql)
            return fetchone(sql, parameters)

        gate.fetchone = counted  # type: ignore[method-assign]
        direct = sqlite3.connect(tmp_path / "toolpool.db")
        try:
            for n in range(ROUNDS):
                expected = n % 2 == 0
                before = len(asked)
                for _ in range(5):
                    assert cached.is_enabled("demo", "lookup") == expected, n
                # One query after the commit, then memory (the first also arms the signal).
                assert len(asked) - before <= (2 if n == 0 else 1), n
                row = direct.execute(gate.enabled_sql, ("demo", "lookup")).fetchone()
                assert (row is not None) == expected, n
                change = other.tools.disable if expected else other.tools.enable
                change("demo", "lookup", actor="bo")
        finally:
            direct.close()
