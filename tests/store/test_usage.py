"""The usage ledger in the store: written with the call records (one upsert per key and batch),
summed per principal, session, alias, tool and UTC day, and filled by migration 0005 from the
call records of a store made before it. Every test runs on SQLite and on PostgreSQL."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from alembic import command

from tests.helpers import usage_of_records, usage_of_totals
from toolpool.errors import UsageError
from toolpool.store import (
    LISTING,
    MODEL,
    USAGE_KEYS,
    AuditEntry,
    CallRecord,
    SessionTaint,
    Store,
    UsageEntry,
    usage_day,
)
from toolpool.store._engine import alembic_config, connect_engine, parse_url

from .helpers import sql

NOON = datetime(2026, 3, 14, 12, 0, tzinfo=UTC)


def _call(principal: str, tool: str, code: str = "ok", *, at: datetime = NOON, ms: float = 2.5) -> CallRecord:
    return CallRecord(f"s-{principal}", principal, "demo", tool, code, ms, 10, 120, 3, 2, at=at)


def _mix() -> list[CallRecord]:
    """Two principals, two tools, ok and refused calls, over two UTC days."""
    tomorrow = NOON + timedelta(days=1)
    return [
        _call("ana", "lookup"),
        _call("ana", "lookup", ms=1.25),
        _call("ana", "lookup", "denied", ms=0.125),
        _call("ana", "send", "tool_disabled", at=tomorrow),
        _call("bob", "lookup", at=tomorrow, ms=7.0),
        _call("bob", "lookup", "invalid_arguments", ms=0.5),
        _call("bob", "send", "ok", at=tomorrow),
        replace(_call("bob", "nope", "unknown_tool"), alias=""),
    ]


def test_the_ledger_sums_calls_per_principal_session_alias_tool_and_day_as_their_records_do(
    store: Store,
) -> None:
    records = _mix()
    store.calls.record_calls(records[:3])
    store.calls.record_calls(records[3:], [AuditEntry("pool", "call", "demo/x", {})])
    for by, columns in USAGE_KEYS.items():
        assert usage_of_totals(store.usage.totals(by), columns) == usage_of_records(records, columns), by
    [ana, bob] = store.usage.totals("principal")
    assert (ana.key, ana.calls, ana.errors, ana.codes) == (
        {"principal": "ana"},
        4,
        2,
        {"denied": 1, "ok": 2, "tool_disabled": 1},
    )
    assert (bob.wait_ms, bob.bytes_in, bob.bytes_out) == (12.5, 40, 480)


def test_batches_add_to_the_same_key_and_one_batch_may_repeat_a_key_many_times(
    store: Store, store_url: str
) -> None:
    store.calls.record_calls([_call("ana", "lookup")] * 300)
    store.calls.record_calls([_call("ana", "lookup", "denied")] * 2)
    store.calls.record_call(_call("ana", "lookup"))
    [total] = store.usage.totals("tool")
    assert (total.key, total.calls, total.errors, total.codes) == (
        {"alias": "demo", "tool": "lookup"},
        303,
        2,
        {"denied": 2, "ok": 301},
    )
    assert total.wait_ms == pytest.approx(303 * 2.5)
    assert sql(store_url, "SELECT count(*) FROM usage_ledger") == [(2,)]  # one row per code


def test_usage_entries_count_tool_lists_and_model_tokens_under_their_markers(store: Store) -> None:
    store.calls.record_calls(
        [_call("ana", "lookup")],
        taints=[],
        usage=[
            UsageEntry("ana", "s-ana", "demo", LISTING, lists=1, list_tokens=120, at=NOON),
            UsageEntry("ana", "s-ana", "demo", LISTING, lists=1, list_tokens=120, at=NOON),
            UsageEntry(
                "ana",
                "s-ana",
                MODEL,
                "openai:gpt-4.1",
                model_requests=1,
                input_tokens=900,
                output_tokens=40,
                at=NOON,
            ),
        ],
    )
    store.calls.record_calls(
        [],
        usage=[
            UsageEntry(
                "ana",
                "s-ana",
                MODEL,
                "openai:gpt-4.1",
                model_requests=1,
                input_tokens=1000,
                output_tokens=2,
                at=NOON,
            )
        ],
    )
    by_tool = {(t.key["alias"], t.key["tool"]): t for t in store.usage.totals("tool")}
    assert set(by_tool) == {("demo", LISTING), ("demo", "lookup"), (MODEL, "openai:gpt-4.1")}
    listing, model = by_tool["demo", LISTING], by_tool[MODEL, "openai:gpt-4.1"]
    assert (listing.calls, listing.lists, listing.list_tokens, listing.codes) == (0, 2, 240, {})
    assert (model.model_requests, model.input_tokens, model.output_tokens) == (2, 1900, 42)
    [ana] = store.usage.totals("principal")
    assert (ana.calls, ana.lists, ana.list_tokens, ana.input_tokens, ana.output_tokens) == (
        1,
        2,
        240,
        1900,
        42,
    )
    assert [t.key["alias"] for t in store.usage.totals("alias")] == sorted(["demo", MODEL])


def test_the_ledger_counts_utc_days_and_since_starts_at_a_day(store: Store) -> None:
    pacific = timezone(timedelta(hours=-8))
    late = datetime(2026, 3, 14, 20, 0, tzinfo=pacific)  # 2026-03-15 04:00 UTC
    store.calls.record_calls([_call("ana", "lookup", at=late), _call("ana", "lookup", at=NOON)])
    days = store.usage.totals("day")
    assert [(t.key["day"], t.calls) for t in days] == [("2026-03-14", 1), ("2026-03-15", 1)]
    assert [t.key["day"] for t in store.usage.totals("day", date(2026, 3, 15))] == ["2026-03-15"]
    assert store.usage.totals("principal", date(2026, 3, 16)) == []


def test_a_long_principal_is_clipped_in_the_key_and_still_counted(store: Store) -> None:
    long = "ana-" + "x" * 5000
    store.calls.record_calls([_call(long, "lookup"), _call(long, "lookup")])
    [total] = store.usage.totals("principal")
    assert total.calls == 2 and total.key["principal"] == long[:128]


def test_taint_and_usage_of_one_batch_commit_together(store: Store) -> None:
    session_id, _ = store.releases.open_session("ana")
    store.calls.record_calls(
        [_call("ana", "lookup")],
        taints=[SessionTaint(session_id, "{}", NOON)],
        usage=[UsageEntry("ana", session_id, "demo", LISTING, lists=1, list_tokens=5, at=NOON)],
    )
    assert store.releases.session_taint(session_id) == ["{}"]
    assert sum(t.lists for t in store.usage.totals("session")) == 1


def test_summing_by_an_unknown_key_is_a_usage_error(store: Store) -> None:
    with pytest.raises(UsageError, match="cannot sum usage by 'user'"):
        store.usage.totals("user")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("given", "day"),
    [
        ("2026-01-31", date(2026, 1, 31)),
        (" 2026-01-31 ", date(2026, 1, 31)),
        ("2026-01-31T12:00:00Z", date(2026, 1, 31)),
        ("2026-01-31t23:30z", date(2026, 1, 31)),
        ("2026-01-31T18:00:00-08:00", date(2026, 2, 1)),
        ("2026-02-01T00:30:00.5+01:00", date(2026, 1, 31)),
    ],
)
def test_usage_day_reads_a_day_or_a_moment_with_an_offset_as_a_utc_day(given: str, day: date) -> None:
    assert usage_day(given) == day


@pytest.mark.parametrize(
    "given", ["", "yesterday", "2026-13-01", "2026-02-30", "2026-01-31T12:00:00", "20260131", "9" * 500]
)
def test_usage_day_refuses_anything_else_in_one_short_line(given: str) -> None:
    with pytest.raises(UsageError, match="is not a day") as refused:
        usage_day(given)
    assert "\n" not in str(refused.value) and len(str(refused.value)) < 200


# -- migration 0005 --------------------------------------------------------------------------


def _store_at_0004(store_url: str) -> None:
    engine = connect_engine(parse_url(store_url))
    try:
        with engine.begin() as connection:
            command.upgrade(alembic_config(connection), "0004")
    finally:
        engine.dispose()


def test_the_migration_fills_the_ledger_from_the_call_records_of_a_store_made_at_0004(store_url: str) -> None:
    _store_at_0004(store_url)
    records = _mix()
    for record in records:
        at = record.at.astimezone(UTC).replace(tzinfo=None).isoformat(sep=" ")
        sql(
            store_url,
            "INSERT INTO call_records (at, session_id, principal, alias, tool, code, duration_ms, "
            "bytes_in, bytes_out, snapshot_version, release) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                at if store_url.startswith("sqlite") else at + "+00",
                record.session_id,
                record.principal,
                record.alias,
                record.tool,
                record.code,
                record.duration_ms,
                record.bytes_in,
                record.bytes_out,
                record.snapshot_version,
                record.release,
            ),
        )
    with Store.open(store_url) as upgraded:
        for by, columns in USAGE_KEYS.items():
            assert usage_of_totals(upgraded.usage.totals(by), columns) == usage_of_records(
                records, columns
            ), by
        upgraded.calls.record_call(_call("ana", "lookup"))  # and it goes on counting
        [ana, _] = upgraded.usage.totals("principal")
        assert ana.calls == 5
