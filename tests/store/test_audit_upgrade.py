"""A store from before migration 0003 (hashes without ids, no MACs) upgrades without any old
row being re-hashed: verify checks the old rows with the old rule, up to the switch point the
migration records, and the new rows with the rule that binds ids (and, with the key, MACs)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from alembic import command

from toolpool.store import SecretKey, Store
from toolpool.store._engine import alembic_config, connect_engine, parse_url

from . import forger
from .helpers import sql

OLD_EVENTS = 4


def _store_at_0002(store_url: str) -> None:
    engine = connect_engine(parse_url(store_url))
    try:
        with engine.begin() as connection:
            command.upgrade(alembic_config(connection), "0002")
    finally:
        engine.dispose()


def _old_rows(store_url: str) -> list[str]:
    """Events as the store wrote them before 0003: v1 hashes, chained, with the head."""
    prev, hashes = forger.GENESIS, []
    for n in range(1, OLD_EVENTS + 1):
        at = f"2026-01-0{n} 10:00:00.12345{n}"
        detail = forger.canonical({"n": n})
        row_hash = forger.v1_hash(prev, at.replace(" ", "T"), "ana", "old.event", f"thing/{n}", detail)
        stored_at = at if store_url.startswith("sqlite") else at + "+00"
        sql(
            store_url,
            "INSERT INTO audit_events (id, at, actor, action, resource, detail, prev_hash, hash) "
            "VALUES (?, ?, 'ana', 'old.event', ?, ?, ?, ?)",
            (n, stored_at, f"thing/{n}", detail, prev, row_hash),
        )
        prev = row_hash
        hashes.append(row_hash)
    forger.set_head(store_url, OLD_EVENTS, prev)
    return hashes


@pytest.fixture
def upgraded(store_url: str, key: SecretKey) -> Iterator[tuple[Store, list[str]]]:
    _store_at_0002(store_url)
    hashes = _old_rows(store_url)
    with Store.open(store_url, key=key) as store:  # migrates, then writes its first release
        yield store, hashes


def test_old_rows_keep_their_hashes_and_verify_with_the_old_rule(upgraded: tuple[Store, list[str]]) -> None:
    store, hashes = upgraded
    events = store.audit.audit_events()
    assert [event.hash for event in events[:OLD_EVENTS]] == hashes
    new = events[OLD_EVENTS]
    assert new.prev_hash == hashes[-1] and new.hash == forger.rehash(new, new.id, new.prev_hash)
    check = store.audit.verify_audit()
    assert check.ok and check.checked == OLD_EVENTS + 1 and check.keyed_from == OLD_EVENTS + 1


def test_renumbering_old_rows_is_still_reported(upgraded: tuple[Store, list[str]], store_url: str) -> None:
    store, _ = upgraded
    sql(store_url, "UPDATE audit_events SET id = id + 1000 WHERE id >= 2")
    check = store.audit.verify_audit()
    assert (check.ok, check.first_bad_id, check.problem) == (False, 1002, "renumbered")


def test_an_old_row_edited_is_reported(upgraded: tuple[Store, list[str]], store_url: str) -> None:
    store, _ = upgraded
    sql(store_url, "UPDATE audit_events SET actor = 'mallory' WHERE id = 2")
    check = store.audit.verify_audit()
    assert (check.ok, check.first_bad_id, check.problem) == (False, 2, "edited")


def test_moving_the_switch_point_is_reported(upgraded: tuple[Store, list[str]], store_url: str) -> None:
    store, _ = upgraded
    sql(store_url, "UPDATE store_head SET audit_v2_from = 1")
    assert (store.audit.verify_audit().first_bad_id, store.audit.verify_audit().problem) == (1, "edited")
    sql(store_url, "UPDATE store_head SET audit_v2_from = 100")
    assert (store.audit.verify_audit().first_bad_id, store.audit.verify_audit().problem) == (
        OLD_EVENTS + 1,
        "edited",
    )


def test_keyed_rows_rehashed_under_the_old_rule_are_reported(
    upgraded: tuple[Store, list[str]], store_url: str
) -> None:
    store, _ = upgraded
    store.audit.audit("ana", "test.event", "new", {})
    events = store.audit.audit_events()
    sql(store_url, "UPDATE store_head SET audit_v2_from = 100")
    sql(store_url, "UPDATE audit_events SET mac = NULL")
    prev = events[OLD_EVENTS - 1].hash
    for event in events[OLD_EVENTS:]:  # downgrade the new rows to the rule without ids
        detail = forger.canonical(dict(event.detail))
        new = forger.v1_hash(prev, forger.moment(event), event.actor, event.action, event.resource, detail)
        sql(store_url, "UPDATE audit_events SET prev_hash = ?, hash = ? WHERE id = ?", (prev, new, event.id))
        prev = new
    forger.set_head(store_url, events[-1].id, prev)
    assert (store.audit.verify_audit().first_bad_id, store.audit.verify_audit().problem) == (
        OLD_EVENTS + 1,
        "edited",
    )
