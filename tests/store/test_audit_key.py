"""What the store's secret key adds to the audit chain, and what stays hidden without it.

An intruder who can write the database can rewrite rows k..end and the head into a chain that
is consistent by itself: no hash can name row k then. Each row written by a process holding
the store's secret key also carries an HMAC (with a key derived from it, never stored), and so
does the head: with the key, verify names row k; without it, such a rewrite verifies. These
tests state both sides, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import pytest

from toolpool.store import SecretKey, Store

from . import forger
from .helpers import sql

EVENTS = 8


@pytest.fixture
def chained(store: Store) -> Store:
    for n in range(EVENTS - 1):  # the store's own first event makes EVENTS
        store.audit.audit("ana", "test.event", f"thing/{n}", {"n": n})
    return store


def _verdict(store: Store) -> tuple[bool, int | None, str | None]:
    check = store.audit.verify_audit()
    return check.ok, check.first_bad_id, check.problem


def _keyless_verdict(store_url: str) -> tuple[bool, int | None, str | None]:
    with Store.open(store_url) as keyless:
        return _verdict(keyless)


def _edit_and_rewrite_tail(store: Store, store_url: str, row_id: int, *, macs: str = "keep") -> None:
    events = store.audit.audit_events()
    sql(store_url, "UPDATE audit_events SET detail = ? WHERE id = ?", ('{"n":"changed"}', row_id))
    if macs == "clear":
        sql(store_url, "UPDATE audit_events SET mac = NULL WHERE id >= ?", (row_id,))
    forger.rewrite_from(store_url, events, row_id)


def test_with_the_key_an_edit_and_rewrite_of_the_tail_names_the_edited_row(
    chained: Store, store_url: str
) -> None:
    _edit_and_rewrite_tail(chained, store_url, 4)
    check = chained.audit.verify_audit()
    assert (check.ok, check.first_bad_id, check.problem) == (False, 4, "edited")
    assert check.reason is not None and "MAC" in check.reason


def test_with_the_key_a_rewritten_tail_without_macs_names_the_first_rewritten_row(
    chained: Store, store_url: str
) -> None:
    _edit_and_rewrite_tail(chained, store_url, 4, macs="clear")
    assert _verdict(chained) == (False, 4, "edited")


def test_without_the_key_a_consistently_rewritten_tail_verifies(chained: Store, store_url: str) -> None:
    _edit_and_rewrite_tail(chained, store_url, 4)
    assert _keyless_verdict(store_url) == (True, None, None)  # the limit the key exists for


def test_with_the_key_a_forged_append_that_moves_the_head_is_reported_as_appended(
    chained: Store, store_url: str
) -> None:
    forger.append_forged(store_url, chained.audit.audit_events(), head=True)
    assert _verdict(chained) == (False, EVENTS + 1, "appended")
    assert _keyless_verdict(store_url) == (True, None, None)


def test_with_the_key_rows_cut_from_the_end_with_the_head_moved_back_are_reported(
    chained: Store, store_url: str
) -> None:
    events = chained.audit.audit_events()
    sql(store_url, "DELETE FROM audit_events WHERE id > ?", (EVENTS - 2,))
    forger.set_head(store_url, EVENTS - 2, events[EVENTS - 3].hash)
    assert _verdict(chained) == (False, EVENTS - 1, "deleted")
    assert _keyless_verdict(store_url) == (True, None, None)


def test_appending_after_a_cut_does_not_launder_it(chained: Store, store_url: str) -> None:
    events = chained.audit.audit_events()
    sql(store_url, "DELETE FROM audit_events WHERE id > ?", (EVENTS - 2,))
    forger.set_head(store_url, EVENTS - 2, events[EVENTS - 3].hash)
    chained.audit.audit("bo", "test.event", "after the cut", {})
    chained.audit.audit("bo", "test.event", "and again", {})
    assert _verdict(chained) == (False, EVENTS - 1, "deleted")


def test_stripping_the_macs_of_the_tail_is_reported_at_the_first_stripped_row(
    chained: Store, store_url: str
) -> None:
    sql(store_url, "UPDATE audit_events SET mac = NULL WHERE id >= 5")
    sql(store_url, "UPDATE store_head SET audit_mac = NULL")
    assert _verdict(chained) == (False, 5, "edited")


def test_moving_the_start_of_the_keyed_part_is_reported(chained: Store, store_url: str) -> None:
    sql(store_url, "UPDATE store_head SET audit_keyed_from = 5")
    assert _verdict(chained) == (False, None, "head")


def test_rows_written_without_the_key_on_a_keyed_chain_are_reported_as_appended(
    chained: Store, store_url: str
) -> None:
    with Store.open(store_url) as keyless:
        keyless.audit.audit("bo", "test.event", "no key here", {})
    chained.audit.audit("ana", "test.event", "keyed again", {})
    check = chained.audit.verify_audit()
    assert (check.ok, check.first_bad_id, check.problem) == (False, EVENTS + 1, "appended")
    assert check.reason is not None and "key" in check.reason
    assert _keyless_verdict(store_url) == (True, None, None)


def test_a_store_opened_with_another_key_cannot_vouch_for_the_chain(chained: Store, store_url: str) -> None:
    with Store.open(store_url, key=SecretKey.generate()) as other:
        check = other.audit.verify_audit()
    assert (check.ok, check.problem) == (False, "edited") and check.first_bad_id == 1


def test_a_keyless_verify_of_a_keyed_chain_checks_the_hashes_only(chained: Store, store_url: str) -> None:
    with Store.open(store_url) as keyless:
        check = keyless.audit.verify_audit()
    assert check.ok and check.keyed_from is None and check.checked == EVENTS
    assert "not checked" in check.describe()


def test_a_store_without_a_key_keeps_an_unkeyed_chain_that_verifies(store_url: str) -> None:
    with Store.open(store_url) as keyless:
        keyless.audit.audit("bo", "test.event", "x", {})
        check = keyless.audit.verify_audit()
    assert check.ok and check.checked == 2 and check.keyed_from is None


def test_a_key_given_later_keys_the_chain_from_its_first_event(store_url: str, key: SecretKey) -> None:
    with Store.open(store_url) as keyless:
        keyless.audit.audit("bo", "test.event", "x", {})
    with Store.open(store_url, key=key) as keyed:
        keyed.audit.audit("ana", "test.event", "y", {})
        check = keyed.audit.verify_audit()
        assert check.ok and check.keyed_from == 3
        sql(store_url, "UPDATE audit_events SET mac = NULL WHERE id = 3")
        assert _verdict(keyed) == (False, 3, "edited")


def test_clearing_the_key_fields_of_the_head_is_reported(chained: Store, store_url: str) -> None:
    sql(store_url, "UPDATE store_head SET audit_keyed_from = NULL, audit_mac = NULL")
    check = chained.audit.verify_audit()
    assert (check.ok, check.first_bad_id, check.problem) == (False, None, "head")


def test_a_cut_behind_a_cleared_head_is_not_laundered_by_the_next_append(
    chained: Store, store_url: str
) -> None:
    events = chained.audit.audit_events()
    sql(store_url, "DELETE FROM audit_events WHERE id > 5")
    forger.set_head(store_url, 5, events[4].hash)
    sql(store_url, "UPDATE store_head SET audit_keyed_from = NULL, audit_mac = NULL")
    chained.audit.audit("bo", "test.event", "after the cut", {})
    assert _verdict(chained) == (False, 6, "deleted")
