"""The hash-chained audit log: appends, reading, and tampering caught by verify_audit.

Tampering is done by hand with SQL, as an intruder with database access would. The hashes
of forged rows are computed with the documented formula:
``sha256(prev_hash + canonical({"action", "actor", "at", "detail", "resource"}))``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from datetime import UTC

import pytest

from toolpool.store import AuditEvent, Store

from .helpers import sql

GENESIS = "sha256:" + "0" * 64
EVENTS = 6


@pytest.fixture
def chained(store: Store) -> Store:
    for n in range(EVENTS - 1):  # the store's own first event makes EVENTS
        store.audit("ana", "test.event", f"thing/{n}", {"n": n, "words": ["a", "b"]})
    assert len(store.audit_events()) == EVENTS
    return store


def _hash(prev_hash: str, at: str, actor: str, action: str, resource: str, detail: str) -> str:
    content = {"action": action, "actor": actor, "at": at, "detail": detail, "resource": resource}
    text = json.dumps(content, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256((prev_hash + text).encode()).hexdigest()


def _rehash(event: AuditEvent, prev_hash: str, detail: str) -> str:
    at = event.at.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds")
    return _hash(prev_hash, at, event.actor, event.action, event.resource, detail)


def _forge(store_url: str, row_id: int, prev_hash: str, template: AuditEvent) -> None:
    detail = '{"forged":true}'
    sql(
        store_url,
        "INSERT INTO audit_events (id, at, actor, action, resource, detail, prev_hash, hash) "
        "SELECT ?, at, actor, action, resource, ?, ?, ? FROM audit_events WHERE id = ?",
        (row_id, detail, prev_hash, _rehash(template, prev_hash, detail), template.id),
    )


def _open_gap_after(store_url: str, row_id: int) -> None:
    """Move every row after ``row_id`` up by one, in two steps so no id is ever taken twice."""
    sql(store_url, "UPDATE audit_events SET id = id + 1000 WHERE id > ?", (row_id,))
    sql(store_url, "UPDATE audit_events SET id = id - 999 WHERE id > 1000")


def test_every_event_links_to_the_one_before(chained: Store) -> None:
    events = chained.audit_events()
    assert [event.id for event in events] == list(range(1, EVENTS + 1))
    assert events[0].prev_hash == GENESIS
    assert all(later.prev_hash == earlier.hash for earlier, later in itertools.pairwise(events))
    check = chained.verify_audit()
    assert check.ok and check.checked == EVENTS and check.head_hash == events[-1].hash
    assert check.describe() == f"audit chain intact: {EVENTS} events"


def test_events_are_read_in_pages(chained: Store) -> None:
    assert [event.id for event in chained.audit_events(limit=2, after_id=3)] == [4, 5]
    assert chained.audit_events(after_id=EVENTS) == []


def test_an_event_keeps_its_detail_as_json(chained: Store) -> None:
    event = chained.audit_events()[-1]
    assert (event.actor, event.action, event.resource) == ("ana", "test.event", "thing/4")
    assert event.detail == {"n": 4, "words": ["a", "b"]}


def test_text_no_database_can_store_is_kept_safely(store: Store) -> None:
    store.audit("pool", "call.error", "demo/\x00tool", {"stderr": "bad \x00 byte and \ud800 half"})
    assert store.audit_events()[-1].resource == "demo/\ufffdtool"
    assert store.audit_events()[-1].detail == {"stderr": "bad \x00 byte and \ud800 half"}
    assert store.verify_audit().ok


def test_a_row_edited_by_hand_is_reported(chained: Store, store_url: str) -> None:
    sql(store_url, "UPDATE audit_events SET detail = ? WHERE id = 3", ('{"n":99}',))
    check = chained.verify_audit()
    assert (check.ok, check.first_bad_id, check.problem) == (False, 3, "edited")
    assert check.describe().startswith("audit chain broken at event 3: edited")


def test_a_row_edited_and_rehashed_is_reported_as_edited(chained: Store, store_url: str) -> None:
    event = chained.audit_events()[2]
    sql(
        store_url,
        "UPDATE audit_events SET detail = ?, hash = ? WHERE id = 3",
        ("{}", _rehash(event, event.prev_hash, "{}")),
    )
    check = chained.verify_audit()
    assert (check.first_bad_id, check.problem) == (3, "edited")


def test_a_row_deleted_in_the_middle_is_reported(chained: Store, store_url: str) -> None:
    sql(store_url, "DELETE FROM audit_events WHERE id = 3")
    check = chained.verify_audit()
    assert (check.ok, check.first_bad_id, check.problem) == (False, 3, "deleted")


def test_the_first_row_deleted_is_reported(chained: Store, store_url: str) -> None:
    sql(store_url, "DELETE FROM audit_events WHERE id = 1")
    assert (chained.verify_audit().first_bad_id, chained.verify_audit().problem) == (1, "deleted")


def test_rows_deleted_at_the_end_are_reported_through_the_head(chained: Store, store_url: str) -> None:
    sql(store_url, "DELETE FROM audit_events WHERE id >= ?", (EVENTS - 1,))
    check = chained.verify_audit()
    assert (check.ok, check.first_bad_id, check.problem) == (False, EVENTS - 1, "deleted")


def test_a_row_inserted_in_the_middle_is_reported(chained: Store, store_url: str) -> None:
    events = chained.audit_events()
    _open_gap_after(store_url, 3)
    _forge(store_url, 4, events[2].hash, events[2])  # chained to row 3, as a careful forger would
    check = chained.verify_audit()
    assert (check.ok, check.first_bad_id, check.problem) == (False, 4, "inserted")


def test_a_row_inserted_with_a_made_up_link_is_reported(chained: Store, store_url: str) -> None:
    events = chained.audit_events()
    _open_gap_after(store_url, 3)
    _forge(store_url, 4, "sha256:" + "1" * 64, events[2])
    assert (chained.verify_audit().first_bad_id, chained.verify_audit().problem) == (4, "inserted")


def test_a_row_appended_without_the_store_is_reported(chained: Store, store_url: str) -> None:
    events = chained.audit_events()
    _forge(store_url, EVENTS + 1, events[-1].hash, events[-1])
    check = chained.verify_audit()
    assert (check.ok, check.first_bad_id, check.problem) == (False, EVENTS + 1, "inserted")


def test_the_chain_goes_on_after_the_store_reopens(chained: Store, store_url: str) -> None:
    with Store.open(store_url) as again:
        again.audit("bo", "test.event", "more", {})
    assert chained.verify_audit().ok and chained.verify_audit().checked == EVENTS + 1
