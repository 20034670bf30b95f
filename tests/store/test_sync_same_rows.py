"""A sync writes its rows with the driver's executemany of pre-built tuples, each distinct
policy's new row computed once, and its audit details taken as the plain data they are
(RESULTS §12k): the store after it — rows, releases, audit events and their chain — is exactly
what the path before did, kept here as the reference, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import bindparam, insert, select, update

from toolpool.config import ToolPolicy
from toolpool.store import SecretKey, Store, _database, _sync
from toolpool.store._audit_chain import COLUMNS, chain
from toolpool.store._codec import plain
from toolpool.store._database import Tx
from toolpool.store._rules import SyncedPolicy, describe_changes, needs_disabling, policy_changes
from toolpool.store._tables import (
    audit_events,
    config_syncs,
    releases,
    servers,
    store_head,
    tool_states,
)
from toolpool.store._values import AuditEntry

from .helpers import FORBIDDEN, raw_connection, read, write

AT = datetime(2026, 12, 7, 1, 2, 3, 456789, tzinfo=UTC)
SECRET = "s3cret-value-42"


def _old_sync_tools(tx: Tx, policies: Any, actor: str, changes: dict[str, list[dict[str, object]]]) -> None:
    """``_sync._sync_tools`` before §12k."""
    stored = _sync._stored_rows(tx.connection, policies)
    inserts: list[dict[str, object]] = []
    updates: dict[tuple[str, ...], list[dict[str, object]]] = {}
    for alias, wanted in policies.items():
        rows = stored.get(alias, {})
        found = changes[alias]
        for name, policy in sorted(wanted.items()):
            row = rows.get(name)
            values = policy_changes(row or _sync._new_row(), SyncedPolicy.of(policy), tx.at, actor)
            if row is None:
                inserts.append({**_sync._NEW_ROW, "alias": alias, "name": name, **values})
                found.append({"tool": name, "added": True})
                if values:
                    found.append({"tool": name, **describe_changes(values)})
            elif values:
                updates.setdefault(tuple(sorted(values)), []).append(
                    {"b_alias": alias, "b_name": name, **values}
                )
                found.append({"tool": name, **describe_changes(values)})
        for name in sorted(set(rows) - set(wanted)):
            if needs_disabling(rows[name]):
                gone = {**_sync._GONE, "changed_at": tx.at, "changed_by": actor}
                updates.setdefault(tuple(sorted(gone)), []).append({"b_alias": alias, "b_name": name, **gone})
                found.append({"tool": name, "enabled": False, "why": "not in the configuration"})
    if inserts:
        keys = {key for row in inserts for key in row}
        defaults = {key: _sync._NEW_ROW.get(key) for key in sorted(keys)}
        tx.connection.execute(insert(tool_states), [{**defaults, **row} for row in inserts])
    for keys_of, rows_of_keys in updates.items():
        statement = (
            update(tool_states)
            .where(tool_states.c.alias == bindparam("b_alias"), tool_states.c.name == bindparam("b_name"))
            .values({key: bindparam(key) for key in keys_of})
        )
        tx.connection.execute(statement, rows_of_keys)


def _old_append_many(self: Tx, events: Sequence[AuditEntry], **_: object) -> None:
    """``Tx.append_many`` before §12k: every detail through ``plain``, SQLAlchemy's insert."""
    redact = self.redactor()
    entries = [
        (redact(event.actor), event.action, redact(event.resource), redact.redact_value(plain(event.detail)))
        for event in events
    ]
    connection = self.connection

    def last_has_mac(row_id: int) -> bool:
        query = select(audit_events.c.mac.is_not(None)).where(audit_events.c.id == row_id)
        return bool(connection.scalar(query))

    new_rows, values = chain(self.head, self.at, entries, last_has_mac)
    connection.execute(audit_events.insert(), [dict(zip(COLUMNS, row, strict=True)) for row in new_rows])
    connection.execute(update(store_head).where(store_head.c.id == 1).values(**values))


def _steps() -> list[tuple[Mapping[str, Mapping[str, ToolPolicy | SyncedPolicy]], dict[str, str]]]:
    """A first sync of every kind of tool, an all-changed sync, and one that drops tools."""
    hashes = {f"s{i}": "sha256:" + f"{i:x}" * 64 for i in range(1, 4)}
    first: dict[str, dict[str, ToolPolicy | SyncedPolicy]] = {
        f"s{i}": {
            "lookup": read(f"s{i}.lookup"),
            "open": read(f"s{i}.open", enabled=True),
            "put": write(f"s{i}.put", enabled=True),
            "drop": write(f"s{i}.drop"),
            "no": FORBIDDEN,
            "each": ToolPolicy(action=f"s{i}.each", effect="read", approval="each_call", enabled=True),
            "res": ToolPolicy(action=f"s{i}.res", effect="read", resource="{key}"),
            "leak": read(f"s{i}.{SECRET}", enabled=True),
            "ü": SyncedPolicy("ü.ä", "read", True, "ü {key}", "none", None, None),
        }
        for i in range(1, 6)
    }
    changed = {
        alias: {
            name: FORBIDDEN
            if name == "lookup"
            else (
                read(f"{alias}.x{len(name)}", enabled=name != "open") if name != "no" else read(f"{alias}.no")
            )
            for name in tools
        }
        for alias, tools in first.items()
    }
    changed["s6"] = {"new": write("s6.new", enabled=True, by="bo", reason="new one")}
    dropped = {alias: dict(list(tools.items())[:3]) for alias, tools in changed.items()}
    return [(first, hashes), (changed, {**hashes, "s2": "sha256:" + "f" * 64}), (dropped, {})]


def _dump(url: str) -> list[list[tuple[Any, ...]]]:
    """Every table a sync writes, as the driver reads it (SQLite's very text)."""
    tables = (servers, tool_states, releases, audit_events, store_head, config_syncs)
    with raw_connection(url) as connection:
        return [
            [
                tuple(row)
                for row in connection.execute(
                    f"SELECT * FROM {table.name} ORDER BY {', '.join(table.primary_key.columns.keys())}"  # noqa: S608
                ).fetchall()
            ]
            for table in tables
        ]


def _synced(url: str, key: SecretKey) -> list[list[tuple[Any, ...]]]:
    store = Store.open(url, key=key)
    try:
        store.secrets.set_secret("token", SECRET, actor="ana")
        for number, (policies, spec_hashes) in enumerate(_steps()):
            store.tools.sync_policies(
                policies, spec_hashes=spec_hashes, config_hash="sha256:" + f"{number}" * 64
            )
    finally:
        store.close()
    return _dump(url)


def _emptied(url: str) -> None:
    """The database of ``url`` as before its store was created (the same URL: a store's
    first audit event names it)."""
    if url.startswith("sqlite"):
        for suffix in ("", "-wal", "-shm"):
            Path(url.removeprefix("sqlite:///") + suffix).unlink(missing_ok=True)
        return
    schema = url.rsplit("%3D", 1)[1]
    with raw_connection(url) as connection:
        connection.execute(f"DROP SCHEMA {schema} CASCADE")
        connection.execute(f"CREATE SCHEMA {schema}")
        connection.commit()


def test_a_sync_writes_what_the_path_before_wrote(store_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_database, "now", lambda: AT)
    key = SecretKey.generate()
    with monkeypatch.context() as old:
        old.setattr(_sync, "_sync_tools", _old_sync_tools)
        old.setattr(Tx, "append_many", _old_append_many)
        reference = _synced(store_url, key)
    _emptied(store_url)
    head = _synced(store_url, key)
    assert head == reference
    names = ("servers", "tool_states", "releases", "audit_events", "store_head", "config_syncs")
    counts = dict(zip(names, map(len, head), strict=True))
    assert counts["tool_states"] == 46 and counts["releases"] == 4, counts
    assert not any(SECRET in str(row) for row in head[3])  # redacted in the audit log
