"""Call records and the statistics `toolpool stats` shows."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from toolpool.store import AuditEntry, CallRecord, CallStats, Store


def _record(tool: str, code: str, duration_ms: float) -> CallRecord:
    return CallRecord("s1", "ana", "demo", tool, code, duration_ms, 10, 200, snapshot_version=3, release=2)


def _at(record: CallRecord, at: datetime) -> CallRecord:
    return replace(record, at=at)


def test_call_stats_count_codes_and_latency_percentiles_per_tool(store: Store) -> None:
    for duration in range(1, 101):
        store.calls.record_call(_record("lookup", "ok" if duration <= 90 else "mcp_timeout", float(duration)))
    store.calls.record_call(_record("send", "denied", 0.5))
    lookup, send = store.calls.call_stats()
    assert lookup == CallStats(
        "demo", "lookup", 100, {"mcp_timeout": 10, "ok": 90}, p50_ms=50.5, p95_ms=95.05
    )
    assert send == CallStats("demo", "send", 1, {"denied": 1}, p50_ms=0.5, p95_ms=0.5)


def test_call_stats_can_start_at_a_moment(store: Store) -> None:
    old = datetime.now(UTC) - timedelta(days=2)
    store.calls.record_call(_at(_record("lookup", "ok", 1.0), old))
    store.calls.record_call(_record("lookup", "ok", 3.0))
    [recent] = store.calls.call_stats(since=datetime.now(UTC) - timedelta(days=1))
    assert (recent.calls, recent.p50_ms) == (1, 3.0)


def test_no_calls_no_stats(store: Store) -> None:
    assert store.calls.call_stats() == []


def test_a_batch_of_calls_and_their_audit_events_is_written_at_once(store: Store) -> None:
    store.secrets.set_secret("token", "s3cr3t-value", actor="ana")
    events = [AuditEntry("pool", "call.ok", f"demo/lookup#{n}", {"echo": "s3cr3t-value"}) for n in range(3)]
    store.calls.record_calls([_record("lookup", "ok", 1.0)] * 3, events)
    assert store.calls.call_stats()[0].calls == 3
    assert [event.detail for event in store.audit.audit_events()[-3:]] == [{"echo": "[secret:token]"}] * 3
    assert store.audit.verify_audit().ok
