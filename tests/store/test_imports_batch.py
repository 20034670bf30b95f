"""A batch of imports reads what is stored of its aliases in two queries (a scan of each table
above 200 aliases, an ``IN`` list below) and writes its audit details as the plain data they
are: the store after it — published rows, states, release, audit events and their chain — is
exactly what reading alias by alias and walking every detail left, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import pytest

from toolpool.store import ImportedTool, SecretKey, Store, _database, _imports
from toolpool.store._database import Tx
from toolpool.store._values import AuditEntry

from .helpers import imported, raw_connection, read
from .test_sync_same_rows import _dump, _emptied

AT = datetime(2026, 12, 7, 3, 4, 5, 678901, tzinfo=UTC)
SECRET = "s3cret-value-43"


def _before() -> dict[str, list[ImportedTool]]:
    """What the aliases' last imports stored (``b`` and ``c`` have states from the config)."""
    return {
        "a": [imported("lookup"), imported("fetch", "Fetches a page.")],
        "b": [imported("lookup"), imported("gone")],
        "d": [imported(f"leak_{SECRET}", f"Mentions {SECRET}.")],
    }


def _now() -> dict[str, list[ImportedTool]]:
    """The next imports: one unchanged, one changed, one dropped, one not listed, new aliases."""
    return {
        "a": [imported("lookup"), imported("fetch", "Fetches a page, now faster.")],
        "b": [imported("lookup", verdict="drop", score=0.9, reasons=("hidden_tag",))],
        "c": [imported("send"), imported("lookup")],
        "e": [],
    }


def _stored(url: str, key: SecretKey, monkeypatch: pytest.MonkeyPatch, *, scan: bool) -> list[Any]:
    with monkeypatch.context() as patch:
        patch.setattr(_imports, "_SCAN_ABOVE", -1 if scan else 1 << 30)
        store = Store.open(url, key=key)
        try:
            store.secrets.set_secret("token", SECRET, actor="ana")
            store.tools.sync_policies({"b": {"lookup": read("b.lookup")}, "c": {"send": read("c.send")}})
            store.tools.record_imports(_before(), "ana")
            store.tools.record_imports(_now(), "bo")
        finally:
            store.close()
    with raw_connection(url) as connection:
        published = connection.execute("SELECT * FROM published_tools ORDER BY alias, name").fetchall()
    return [*_dump(url), [tuple(row) for row in published]]


def test_a_batch_import_stores_what_reading_alias_by_alias_stored(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_database, "now", lambda: AT)
    key = SecretKey.generate()
    original = Tx.append_many

    def walked(self: Tx, events: Sequence[AuditEntry], **_: object) -> None:
        original(self, events, already_plain=False)

    with monkeypatch.context() as old:
        old.setattr(Tx, "append_many", walked)
        reference = _stored(store_url, key, monkeypatch, scan=False)
    _emptied(store_url)
    scanned = _stored(store_url, key, monkeypatch, scan=True)
    _emptied(store_url)
    listed = _stored(store_url, key, monkeypatch, scan=False)

    assert scanned == reference and listed == reference
    names = ("servers", "tool_states", "releases", "audit_events", "store_head", "config_syncs", "published")
    counts: Mapping[str, int] = dict(zip(names, map(len, reference), strict=True))
    assert counts["servers"] == 5 and counts["published"] == 7 and counts["releases"] == 4, counts
    assert not any(SECRET in str(row) for row in reference[3])  # redacted in the audit log
