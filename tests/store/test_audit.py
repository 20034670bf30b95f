"""The hash-chained audit log: appends, reading, and tampering caught by verify_audit.

Tampering is done by hand with SQL, as an intruder with database access would (``forger``).
Each attack asserts the first bad row that verify names, and its kind. The ``store`` fixture
holds the store's secret key, so these run on a keyed chain; the attacks that only the key
can expose, and what stays hidden without it, are in ``test_audit_key.py``.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolpool.errors import UsageError
from toolpool.store import AuditCheck, SecretKey, Store

from . import forger
from .forger import GENESIS
from .helpers import sql

EVENTS = 6


@pytest.fixture
def chained(store: Store) -> Store:
    for n in range(EVENTS - 1):  # the store's own first event makes EVENTS
        store.audit.audit("ana", "test.event", f"thing/{n}", {"n": n, "words": ["a", "b"]})
    assert len(store.audit.audit_events()) == EVENTS
    return store


@pytest.fixture
def on_sqlite(tmp_path: Path, key: SecretKey) -> Iterator[tuple[Store, Path]]:
    """A chain on SQLite only: for values of the wrong type, which PostgreSQL refuses."""
    path = tmp_path / "toolpool.db"
    with Store.open(f"sqlite:///{path}", key=key) as store:
        for n in range(EVENTS - 1):
            store.audit.audit("ana", "test.event", f"thing/{n}", {"n": n})
        yield store, path


def _verdict(store: Store) -> tuple[bool, int | None, str | None]:
    check = store.audit.verify_audit()
    return check.ok, check.first_bad_id, check.problem


def _open_gap_after(store_url: str, row_id: int) -> None:
    """Move every row after ``row_id`` up by one, in two steps so no id is ever taken twice."""
    sql(store_url, "UPDATE audit_events SET id = id + 1000 WHERE id > ?", (row_id,))
    sql(store_url, "UPDATE audit_events SET id = id - 999 WHERE id > 1000")


def _insert(store_url: str, row_id: int, prev_hash: str, template_id: int, row_hash: str) -> None:
    sql(
        store_url,
        "INSERT INTO audit_events (id, at, actor, action, resource, detail, prev_hash, hash) "
        "SELECT ?, at, actor, action, resource, ?, ?, ? FROM audit_events WHERE id = ?",
        (row_id, '{"forged":true}', prev_hash, row_hash, template_id),
    )


# -- an intact chain -----------------------------------------------------------------------


def test_every_event_links_to_the_one_before(chained: Store) -> None:
    events = chained.audit.audit_events()
    assert [event.id for event in events] == list(range(1, EVENTS + 1))
    assert events[0].prev_hash == GENESIS
    assert all(later.prev_hash == earlier.hash for earlier, later in itertools.pairwise(events))
    check = chained.audit.verify_audit()
    assert check.ok and check.checked == EVENTS and check.head_hash == events[-1].hash
    assert check.keyed_from == 1
    assert check.describe() == f"audit chain intact: {EVENTS} events (keyed from event 1)"


def test_each_event_hash_covers_its_id_and_the_hash_before_it(chained: Store) -> None:
    for event in chained.audit.audit_events():
        assert event.hash == forger.rehash(event, event.id, event.prev_hash)


def test_events_are_read_in_pages(chained: Store) -> None:
    assert [event.id for event in chained.audit.audit_events(limit=2, after_id=3)] == [4, 5]
    assert chained.audit.audit_events(after_id=EVENTS) == []


def test_an_event_keeps_its_detail_as_json(chained: Store) -> None:
    event = chained.audit.audit_events()[-1]
    assert (event.actor, event.action, event.resource) == ("ana", "test.event", "thing/4")
    assert event.detail == {"n": 4, "words": ["a", "b"]} and event.malformed is None


def test_text_no_database_can_store_is_kept_safely(store: Store) -> None:
    store.audit.audit("pool", "call.error", "demo/\x00tool", {"stderr": "bad \x00 byte and \ud800 half"})
    assert store.audit.audit_events()[-1].resource == "demo/\ufffdtool"
    assert store.audit.audit_events()[-1].detail == {"stderr": "bad \x00 byte and \ud800 half"}
    assert store.audit.verify_audit().ok


def test_the_chain_goes_on_after_the_store_reopens(chained: Store, store_url: str, key: SecretKey) -> None:
    with Store.open(store_url, key=key) as again:
        again.audit.audit("bo", "test.event", "more", {})
    assert chained.audit.verify_audit().ok and chained.audit.verify_audit().checked == EVENTS + 1


# -- edit, insert, delete ------------------------------------------------------------------


def test_a_row_edited_by_hand_is_reported(chained: Store, store_url: str) -> None:
    sql(store_url, "UPDATE audit_events SET detail = ? WHERE id = 3", ('{"n":99}',))
    check = chained.audit.verify_audit()
    assert (check.ok, check.first_bad_id, check.problem) == (False, 3, "edited")
    assert check.describe().startswith("audit chain broken at event 3: edited")


def test_a_row_edited_and_rehashed_is_reported_as_edited(chained: Store, store_url: str) -> None:
    event = chained.audit.audit_events()[2]
    new = forger.rehash(event, 3, event.prev_hash, "{}")
    sql(store_url, "UPDATE audit_events SET detail = ?, hash = ? WHERE id = 3", ("{}", new))
    assert _verdict(chained) == (False, 3, "edited")


def test_a_row_deleted_in_the_middle_is_reported(chained: Store, store_url: str) -> None:
    sql(store_url, "DELETE FROM audit_events WHERE id = 3")
    assert _verdict(chained) == (False, 3, "deleted")


def test_the_first_row_deleted_is_reported(chained: Store, store_url: str) -> None:
    sql(store_url, "DELETE FROM audit_events WHERE id = 1")
    assert _verdict(chained) == (False, 1, "deleted")


def test_a_row_deleted_and_the_gap_closed_by_renumbering_is_reported_as_deleted(
    chained: Store, store_url: str
) -> None:
    sql(store_url, "DELETE FROM audit_events WHERE id = 3")
    sql(store_url, "UPDATE audit_events SET id = id - 1 WHERE id > 3")
    sql(store_url, "UPDATE store_head SET audit_last_id = audit_last_id - 1")
    assert _verdict(chained) == (False, 3, "deleted")


def test_rows_deleted_at_the_end_are_reported_through_the_head(chained: Store, store_url: str) -> None:
    sql(store_url, "DELETE FROM audit_events WHERE id >= ?", (EVENTS - 1,))
    assert _verdict(chained) == (False, EVENTS - 1, "deleted")


def test_a_row_inserted_in_the_middle_is_reported(chained: Store, store_url: str) -> None:
    events = chained.audit.audit_events()
    _open_gap_after(store_url, 3)
    # chained to row 3 and hashed with its id, as a careful forger would
    _insert(store_url, 4, events[2].hash, 3, forger.rehash(events[2], 4, events[2].hash, '{"forged":true}'))
    assert _verdict(chained) == (False, 4, "inserted")


def test_a_row_inserted_with_a_made_up_link_is_reported(chained: Store, store_url: str) -> None:
    _open_gap_after(store_url, 3)
    _insert(store_url, 4, "sha256:" + "1" * 64, 3, "sha256:" + "2" * 64)
    assert _verdict(chained) == (False, 4, "inserted")


def test_a_row_appended_without_the_store_is_reported_as_appended(chained: Store, store_url: str) -> None:
    forger.append_forged(store_url, chained.audit.audit_events(), head=False)
    assert _verdict(chained) == (False, EVENTS + 1, "appended")


# -- reorder and renumber ------------------------------------------------------------------


def test_two_rows_swapped_are_reported_as_reordered(chained: Store, store_url: str) -> None:
    forger.swap_ids(store_url, 3, 4)
    assert _verdict(chained) == (False, 3, "reordered")


def test_a_row_moved_to_the_end_is_reported_as_reordered(chained: Store, store_url: str) -> None:
    sql(store_url, "UPDATE audit_events SET id = 100 WHERE id = 2")
    sql(store_url, "UPDATE audit_events SET id = id - 1 WHERE id > 2 AND id < 100")
    sql(store_url, "UPDATE audit_events SET id = ? WHERE id = 100", (EVENTS,))
    assert _verdict(chained) == (False, 2, "reordered")


def test_ids_shifted_from_a_row_on_are_reported_as_renumbered(chained: Store, store_url: str) -> None:
    sql(store_url, "UPDATE audit_events SET id = id + 1000 WHERE id >= 4")
    check = chained.audit.verify_audit()
    assert (check.ok, check.first_bad_id, check.problem) == (False, 1004, "renumbered")
    assert check.reason is not None and "4" in check.reason


def test_ids_shifted_with_head_and_hashes_rewritten_are_still_renumbered(
    chained: Store, store_url: str
) -> None:
    events = chained.audit.audit_events()
    sql(store_url, "UPDATE audit_events SET id = id + 1000 WHERE id >= 4")
    for event in events[3:]:  # the forger knows the formula: rehash each row with its new id
        event_id = event.id + 1000
        prev = sql(store_url, "SELECT hash FROM audit_events WHERE id < ? ORDER BY id DESC", (event_id,))
        new = forger.rehash(event, event_id, prev[0][0])
        sql(
            store_url,
            "UPDATE audit_events SET prev_hash = ?, hash = ? WHERE id = ?",
            (prev[0][0], new, event_id),
        )
        forger.set_head(store_url, event_id, new)
    assert _verdict(chained) == (False, 1004, "renumbered")


def test_every_id_shifted_is_reported_at_the_first_row(chained: Store, store_url: str) -> None:
    sql(store_url, "UPDATE audit_events SET id = id + 1000")
    sql(store_url, "UPDATE store_head SET audit_last_id = audit_last_id + 1000")
    assert _verdict(chained) == (False, 1001, "renumbered")


# -- malformed rows and head: findings, never exceptions ------------------------------------


def test_a_row_with_a_time_that_is_not_a_time_is_malformed(chained: Store, store_url: str) -> None:
    bad = "yesterday" if store_url.startswith("sqlite") else "infinity"  # PostgreSQL checks the type
    sql(store_url, "UPDATE audit_events SET at = ? WHERE id = 3", (bad,))
    check = chained.audit.verify_audit()
    assert (check.ok, check.first_bad_id, check.problem) == (False, 3, "malformed")
    assert check.reason is not None and "at" in check.reason
    listed = chained.audit.audit_events()
    assert [event.id for event in listed] == list(range(1, EVENTS + 1))
    assert listed[2].malformed is not None and "at" in listed[2].malformed


def test_a_row_whose_detail_is_not_json_is_malformed(chained: Store, store_url: str) -> None:
    sql(store_url, "UPDATE audit_events SET detail = ? WHERE id = 3", ("{not json",))
    assert _verdict(chained) == (False, 3, "malformed")
    event = chained.audit.audit_events()[2]
    assert event.malformed is not None and "detail" in event.malformed and event.detail == {}


def test_a_row_whose_detail_is_json_but_not_an_object_is_malformed(chained: Store, store_url: str) -> None:
    sql(store_url, "UPDATE audit_events SET detail = ? WHERE id = 2", ("[1, 2]",))
    assert _verdict(chained) == (False, 2, "malformed")


def test_a_row_whose_hash_is_not_a_hash_is_malformed(chained: Store, store_url: str) -> None:
    sql(store_url, "UPDATE audit_events SET hash = ? WHERE id = 4", ("sha256:nope",))
    assert _verdict(chained) == (False, 4, "malformed")


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("actor", "CAST(x'ff' AS TEXT)"),  # not UTF-8: sqlite3 cannot even decode it as text
        ("actor", "x'616e61'"),  # a blob
        ("at", "12345"),
        ("at", "x'00'"),
        ("detail", "x'7b7d'"),
        ("prev_hash", "42"),
        ("resource", "CAST(x'c3' AS TEXT)"),
    ],
)
def test_sqlite_values_of_the_wrong_type_are_malformed_not_a_crash(
    on_sqlite: tuple[Store, Path], column: str, value: str
) -> None:
    store, path = on_sqlite  # PostgreSQL keeps each column's type
    with sqlite3.connect(path) as database:
        database.execute(f"UPDATE audit_events SET {column} = {value} WHERE id = 3")  # noqa: S608
    assert _verdict(store) == (False, 3, "malformed")
    assert [event.id for event in store.audit.audit_events()] == list(range(1, EVENTS + 1))


def test_a_deleted_head_row_is_a_finding_and_writes_fail_with_a_clear_error(
    chained: Store, store_url: str
) -> None:
    sql(store_url, "DELETE FROM store_head")
    check = chained.audit.verify_audit()
    assert (check.ok, check.first_bad_id, check.problem) == (False, None, "head")
    assert check.reason is not None and "missing" in check.reason
    assert len(chained.audit.audit_events()) == EVENTS
    with pytest.raises(UsageError, match="head"):
        chained.audit.audit("ana", "test.event", "after", {})


def test_a_head_that_names_no_hash_is_a_finding(chained: Store, store_url: str) -> None:
    sql(store_url, "UPDATE store_head SET audit_last_hash = ?", ("not a hash",))
    assert _verdict(chained) == (False, None, "head")


def test_the_first_finding_wins_and_verify_reads_every_row_once(chained: Store, store_url: str) -> None:
    sql(store_url, "UPDATE audit_events SET detail = ? WHERE id = 2", ("{not json",))
    sql(store_url, "DELETE FROM audit_events WHERE id = 5")
    check = chained.audit.verify_audit()
    assert (check.first_bad_id, check.problem, check.checked) == (2, "malformed", 2)
    assert isinstance(check, AuditCheck)


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE store_head SET audit_last_hash = CAST(x'ff' AS TEXT)",
        "UPDATE store_head SET audit_mac = CAST(x'ff' AS TEXT)",
        "UPDATE store_head SET audit_last_id = CAST(x'ff' AS TEXT)",
        "UPDATE store_head SET audit_v2_from = 'one'",
    ],
)
def test_sqlite_head_values_of_the_wrong_type_are_a_finding_not_a_crash(
    on_sqlite: tuple[Store, Path], statement: str
) -> None:
    store, path = on_sqlite
    with sqlite3.connect(path) as database:
        database.execute(statement)
    assert _verdict(store) == (False, None, "head")


def test_a_row_that_cannot_be_read_after_a_bad_link_does_not_stop_the_verdict(
    on_sqlite: tuple[Store, Path],
) -> None:
    store, path = on_sqlite  # PostgreSQL text is always readable
    with sqlite3.connect(path) as database:
        database.execute("UPDATE audit_events SET prev_hash = ? WHERE id = 3", ("sha256:" + "1" * 64,))
        database.execute("UPDATE audit_events SET prev_hash = CAST(x'ff' AS TEXT) WHERE id = 4")
    assert _verdict(store)[0] is False


_HOSTILE = st.sampled_from(
    [
        "NULL",
        "''",
        "'x'",
        "42",
        "-1",
        "4.5",
        "x'ff'",
        "CAST(x'ff' AS TEXT)",
        "'[' || replace(hex(zeroblob(3000)), '00', '[')",  # JSON nested 6000 deep
        "'2026-13-45 99:99:99.000000'",
        "'sha256:' || lower(hex(randomblob(32)))",
        "'hmac-sha256:' || lower(hex(randomblob(32)))",
    ]
)
_COLUMNS = st.sampled_from(["at", "actor", "action", "resource", "detail", "prev_hash", "hash", "mac"])
_HEAD = st.sampled_from(
    ["audit_last_id", "audit_last_hash", "audit_v2_from", "audit_keyed_from", "audit_mac"]
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    changes=st.lists(st.tuples(st.integers(1, EVENTS + 1), _COLUMNS, _HOSTILE), min_size=1, max_size=3),
    head=st.none() | st.tuples(_HEAD, _HOSTILE),
)
def test_any_value_in_any_column_gives_a_verdict_and_a_listing_never_an_exception(
    tmp_path_factory: pytest.TempPathFactory,
    key: SecretKey,
    changes: list[tuple[int, str, str]],
    head: tuple[str, str] | None,
) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "toolpool.db"
    with Store.open(f"sqlite:///{path}", key=key) as store:
        for n in range(EVENTS - 1):
            store.audit.audit("ana", "test.event", f"thing/{n}", {"n": n})
        with sqlite3.connect(path) as database:
            database.execute("PRAGMA ignore_check_constraints = ON")
            for row_id, column, value in changes:
                with suppress(sqlite3.IntegrityError):  # NOT NULL holds: the database refused it
                    database.execute(f"UPDATE audit_events SET {column} = {value} WHERE id = ?", (row_id,))  # noqa: S608
            if head is not None:
                with suppress(sqlite3.IntegrityError):
                    database.execute(f"UPDATE store_head SET {head[0]} = {head[1]}")  # noqa: S608
        check = store.audit.verify_audit()
        assert isinstance(check, AuditCheck) and check.describe()
        assert len(store.audit.audit_events()) == EVENTS
