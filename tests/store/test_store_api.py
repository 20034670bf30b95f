"""The store's public names, opening and closing, and what it does to a SQLite file."""

from __future__ import annotations

import secrets
import sqlite3
from importlib.resources import files
from pathlib import Path

import pytest

import toolpool.store
from toolpool.errors import UsageError
from toolpool.store import AuditEntry, CallRecord, Store

from .conftest import postgres_schema
from .helpers import imported, read, sql


def test_the_store_exports_exactly_its_public_names() -> None:
    assert sorted(toolpool.store.__all__) == [
        "APPROVAL_STATES",
        "Approval",
        "ApprovalBinding",
        "ApprovalState",
        "AuditCheck",
        "AuditEntry",
        "AuditEvent",
        "CallRecord",
        "CallStats",
        "ConfigEnablement",
        "ConfigFirstPins",
        "ImportedTool",
        "LISTING",
        "ListedState",
        "MODEL",
        "Release",
        "SecretKey",
        "SessionTaint",
        "Store",
        "StoreEnablement",
        "StoredPin",
        "SyncPlan",
        "SyncedPolicy",
        "TokenHolder",
        "ToolState",
        "USAGE_KEYS",
        "UsageBy",
        "UsageEntry",
        "UsageTotal",
        "open_synced",
        "usage_day",
    ]


def test_the_migrations_ship_inside_the_package() -> None:
    migrations = files("toolpool.store") / "migrations"
    assert (migrations / "env.py").is_file()
    assert any(entry.name.endswith(".py") for entry in (migrations / "versions").iterdir())


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("mysql://root@localhost/test", "unsupported store URL"),
        ("sqlite:///:memory:", "needs a SQLite file"),
        ("not a url", "not a database URL"),
    ],
)
def test_an_unsupported_url_is_a_usage_error(url: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        Store.open(url)


def test_a_store_that_cannot_be_opened_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot open the store at sqlite:///"):
        Store.open(f"sqlite:///{tmp_path / 'missing' / 'toolpool.db'}")


def test_an_unreachable_postgresql_is_a_usage_error_that_hides_the_password() -> None:
    # Port 1 on loopback: nothing listens there, so the connection is refused at once.
    with pytest.raises(UsageError, match="cannot open the store") as caught:
        Store.open("postgresql+psycopg://ana:s3cr3t-pw@127.0.0.1:1/test?connect_timeout=2")
    assert "s3cr3t-pw" not in str(caught.value)


def test_the_url_for_display_hides_the_password(store: Store) -> None:
    assert "***" not in store.url_for_display  # the test databases have no password
    with pytest.raises(UsageError) as caught:
        Store.open("postgresql://ana:s3cr3t-pw@127.0.0.1:1/test?connect_timeout=2")
    assert "postgresql+psycopg://ana:***@127.0.0.1:1/test" in str(caught.value)


def test_the_store_reconnects_when_postgresql_drops_its_connections() -> None:
    name = f"tp_gate_{secrets.token_hex(4)}"  # only this test's connections are dropped
    with postgres_schema() as schema_url, Store.open(f"{schema_url}&application_name={name}") as store:
        store.tools.record_import("demo", [imported("lookup")], actor="ana")
        store.tools.sync_policy("demo", {"lookup": read("demo.lookup", enabled=True)})
        assert store.tools.is_enabled("demo", "lookup")
        terminate = "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ?"
        assert len(sql(schema_url, terminate, (name,))) >= 2  # gate 3's and the pool's
        assert store.tools.is_enabled("demo", "lookup")
        sql(schema_url, terminate, (name,))
        store.tools.disable("demo", "lookup", actor="ana")  # a write retries a dropped connection
        assert not store.tools.is_enabled("demo", "lookup")
        assert store.audit.verify_audit().ok


def test_the_batch_writer_reconnects_when_postgresql_drops_its_connection() -> None:
    name = f"tp_batch_{secrets.token_hex(4)}"
    record = CallRecord("s1", "ana", "demo", "lookup", "ok", 1.0, 1, 1)
    event = AuditEntry("ana", "call", "demo/lookup", {"code": "ok"})
    terminate = "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ?"
    with postgres_schema() as schema_url:
        with Store.open(f"{schema_url}&application_name={name}") as store:
            store.calls.record_calls([record], [event])  # the writer's connection is open now
            assert sql(schema_url, terminate, (name,))
            store.calls.record_calls([record], [event])  # fails at the head lock, retried
            sql(schema_url, terminate, (name,))
            store.calls.record_calls([record])  # no events, no head lock: fails at the insert, retried
        with Store.open(schema_url) as fresh:  # the first store's pooled connections were dropped too
            assert len(fresh.calls.call_records()) == 3
            assert fresh.audit.verify_audit().ok


def test_closing_twice_is_fine_and_a_closed_store_refuses_work(store: Store) -> None:
    store.close()
    store.close()
    with pytest.raises(UsageError, match="closed"):
        store.tools.tool_states()
    with pytest.raises(UsageError, match="closed"):
        store.tools.is_enabled("demo", "lookup")


def test_a_sqlite_store_runs_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "toolpool.db"
    with Store.open(f"sqlite:///{path}"):
        pass
    connection = sqlite3.connect(path)
    try:
        assert connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    finally:
        connection.close()
