"""Gate 10's batch write on its own DBAPI connection (``store.calls.record_calls``): what it
writes reads back exactly as written, the chain stays one chain whoever writes at once, and a
batch that fails leaves nothing behind. Each test runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolpool.errors import UsageError
from toolpool.store import AuditEntry, CallRecord, SecretKey, SessionTaint, Store, UsageEntry
from toolpool.store._audit_format import v2_hash
from toolpool.store._codec import canonical, digest, storable, timestamp

from .test_concurrency import RUN_TIMEOUT_S, Worker, _together

THREADS = 4
BATCHES = 25
PER_BATCH = 8
WORKER_BATCHES = 30


def _reference_v2_hash(
    row_id: int, prev: str, at: datetime, actor: str, action: str, resource: str, detail: str
) -> str:
    """The v2 formula as _audit_format documents it: canonical JSON of the whole dict."""
    content = {
        "v": 2,
        "id": row_id,
        "prev": prev,
        "at": timestamp(at),
        "actor": actor,
        "action": action,
        "resource": resource,
        "detail": detail,
    }
    return digest(canonical(content))


@given(
    st.integers(min_value=0, max_value=2**62),
    st.text(),
    st.datetimes(timezones=st.just(UTC)),
    st.text(),
    st.text(),
    st.text(),
    st.text(),
)
def test_the_written_out_event_hash_is_the_canonical_json_one(
    row_id: int, prev: str, at: datetime, actor: str, action: str, resource: str, detail: str
) -> None:
    assert v2_hash(row_id, prev, at, actor, action, resource, detail) == _reference_v2_hash(
        row_id, prev, at, actor, action, resource, detail
    )


def test_call_records_read_back_exactly_as_written(store: Store) -> None:
    east = timezone(timedelta(hours=5, minutes=30))
    moments = [
        datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC),  # no microseconds: still stored with six digits
        datetime(2026, 3, 1, 23, 59, 59, 999_999, tzinfo=UTC),
        datetime(2026, 3, 2, 4, 0, 0, 123, tzinfo=east),  # stored as UTC: 2026-03-01 22:30
    ]
    records = [
        CallRecord("s1", "ana", "demo", "lookup", "ok", 1.5, 10, 20, snapshot_version=3, release=2, at=moment)
        for moment in moments
    ]
    records.append(CallRecord(None, None, "demo", "look\x00up", "denied", 0.0, 0, 0, at=moments[0]))
    store.calls.record_calls(records)
    stored = [record for _, record in store.calls.call_records()]
    assert [record.at for record in stored] == [moment.astimezone(UTC) for moment in moments] + [moments[0]]
    assert stored[:3] == [replace(record, at=record.at.astimezone(UTC)) for record in records[:3]]
    assert stored[3].tool == "look\ufffdup"  # NUL is not storable text on PostgreSQL
    # Comparisons against a moment bound by SQLAlchemy see what the batch wrote.
    assert [s.calls for s in store.calls.call_stats(since=datetime(2026, 3, 1, 22, 0, tzinfo=UTC))] == [2]
    by_day = {total.key["day"]: total.calls for total in store.usage.totals("day")}
    assert by_day == {"2026-03-01": 4}


def test_a_naive_moment_is_refused_and_nothing_is_written(store: Store) -> None:
    naive = CallRecord("s1", "ana", "demo", "lookup", "ok", 1.0, 1, 1, at=datetime(2026, 3, 1))
    with pytest.raises(UsageError, match="naive"):
        store.calls.record_calls([naive], [AuditEntry("ana", "call", "demo/lookup", {})])
    assert store.calls.call_records() == []
    assert [event.action for event in store.audit.audit_events()][-1] != "call"


def test_a_batch_that_fails_writes_nothing_and_the_next_one_is_written(store: Store) -> None:
    before = store.audit.last_audit_id()
    good = CallRecord("s1", "ana", "demo", "lookup", "ok", 1.0, 1, 1)
    # A taint for a session that does not exist breaks the foreign key, last in the batch.
    orphan = SessionTaint("no-such-session", "{}", datetime.now(UTC))
    with pytest.raises(UsageError, match="failed"):
        store.calls.record_calls([good], [AuditEntry("ana", "call", "demo/lookup", {})], [orphan])
    assert store.calls.call_records() == []
    assert store.audit.last_audit_id() == before
    assert store.usage.totals("principal") == []
    store.calls.record_calls([good], [AuditEntry("ana", "call", "demo/lookup", {})])
    assert len(store.calls.call_records()) == 1
    assert store.audit.verify_audit().ok


def test_usage_entries_and_calls_land_in_the_ledger_with_the_records(store: Store) -> None:
    at = datetime(2026, 3, 1, 9, tzinfo=UTC)
    calls = [CallRecord("s1", "ana", "demo", "lookup", "ok", 2.5, 10, 20, at=at) for _ in range(3)]
    listing = UsageEntry("ana", "s1", "demo", "@list", lists=1, list_tokens=40, at=at)
    store.calls.record_calls(calls, usage=[listing, listing])
    store.calls.record_calls(calls[:1])
    [total] = store.usage.totals("principal")
    assert (total.calls, total.wait_ms, total.bytes_in, total.bytes_out) == (4, 10.0, 40, 80)
    assert (total.lists, total.list_tokens) == (2, 80)


def test_batches_from_many_threads_and_management_writes_keep_one_chain_in_order(store: Store) -> None:
    before = store.audit.last_audit_id()

    def write(tag: str) -> None:
        for batch in range(BATCHES):
            numbers = range(batch * PER_BATCH, (batch + 1) * PER_BATCH)
            records = [CallRecord("s", tag, "demo", "lookup", "ok", 1.0, 1, 1) for _ in numbers]
            events = [AuditEntry(tag, "call", "demo/lookup", {"n": n}) for n in numbers]
            store.calls.record_calls(records, events)
            store.audit.audit("ana", "test.between", tag, {"batch": batch})  # the SQLAlchemy path

    threads = [threading.Thread(target=write, args=(f"t{n}",)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(RUN_TIMEOUT_S)
    assert not any(thread.is_alive() for thread in threads)
    events = store.audit.audit_events(after_id=before)
    assert [event.id for event in events] == list(range(before + 1, before + 1 + len(events)))
    calls = [event for event in events if event.action == "call"]
    assert Counter(event.actor for event in calls) == {f"t{n}": BATCHES * PER_BATCH for n in range(THREADS)}
    for n in range(THREADS):
        assert [e.detail["n"] for e in calls if e.actor == f"t{n}"] == list(range(BATCHES * PER_BATCH))
    check = store.audit.verify_audit()
    assert check.ok and check.checked == before + len(events)
    totals = {total.key["principal"]: total.calls for total in store.usage.totals("principal")}
    assert totals == {f"t{n}": BATCHES * PER_BATCH for n in range(THREADS)}


def test_two_processes_writing_batches_keep_one_chain_and_the_ledger_equal_to_the_records(
    store: Store, store_url: str, key: SecretKey
) -> None:
    pair = (Worker(store_url, key), Worker(store_url, key))
    try:
        for worker in pair:
            worker.expect("ready", RUN_TIMEOUT_S)
        before = store.audit.last_audit_id()
        _together(pair, f"record {WORKER_BATCHES} one", f"record {WORKER_BATCHES} two")
    finally:
        for worker in pair:
            worker.stop()
    events = store.audit.audit_events(after_id=before)
    expected = WORKER_BATCHES * 10
    assert Counter(event.actor for event in events) == {"one": expected, "two": expected}
    for tag in ("one", "two"):
        assert [e.detail["n"] for e in events if e.actor == tag] == list(range(expected))
    assert store.audit.verify_audit().ok
    records = Counter(record.principal for _, record in store.calls.call_records())
    ledger = {total.key["principal"]: total.calls for total in store.usage.totals("principal")}
    assert records == ledger == {"one": expected, "two": expected}


@given(st.text(alphabet=st.characters(codec=None)) | st.text(alphabet="ab\x00\ud800\udfff\u00e9"))
def test_storable_text_is_the_text_with_nul_and_lone_surrogates_replaced(text: str) -> None:
    expected = "".join("\ufffd" if c == "\x00" or "\ud800" <= c <= "\udfff" else c for c in text)
    assert storable(text) == expected
